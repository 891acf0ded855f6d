package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.version.ChildKinds;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.bson.BsonDocument;

/**
 * Hive partitions on the tree (DESIGN §7): one tree level per partition key under the table object.
 * A table partitioned by {@code (ds, hr)} keeps partition {@code ds=2025-01-01/hr=7} at
 * {@code /<catalog>/<db>/<table>/ds=2025-01-01/hr=7}: each level's id is Hive's escaped
 * {@code key=value} ({@link HivePartitionNames}), so a partition's path below the table is its Hive
 * name, and the children of one level are one contiguous key range.
 *
 * <p>Every level is a {@link PartitionEntry#hiveLevel Hive level} of the lake model: the key, the
 * value as Hive has it (a string) and, for a key of an integral type whose value is an integer, the
 * value as a number, so a filter step can compare numerically. The last level is the partition: it
 * also keeps the whole Hive {@link Partition} struct (values, storage descriptor, parameters with the
 * basic statistics, times), its location, and its column statistics ({@link HmsColumnStats}). A level
 * above the last exists while some partition is below it.
 *
 * <p>Each method runs in the caller's lake transaction; the call areas own the transactions (one per call).
 */
final class HmsPartitions {
    static final String TRANSIENT_LAST_DDL_TIME = "transient_lastDdlTime";

    private final String catalog;

    HmsPartitions(String catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    // ---- paths and values

    ObjectPath tablePath(String db, String table) {
        return ObjectPath.of(catalog, db, table);
    }

    static List<String> keyNames(Table table) {
        List<String> keys = new ArrayList<>();
        for (FieldSchema key : partitionKeys(table)) {
            keys.add(key.getName().toLowerCase(java.util.Locale.ROOT));
        }
        return keys;
    }

    /** Whether two versions of a table have the same partition keys (names and types, in order). */
    static boolean sameKeys(Table a, Table b) {
        List<FieldSchema> x = partitionKeys(a);
        List<FieldSchema> y = partitionKeys(b);
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (!x.get(i).getName().equalsIgnoreCase(y.get(i).getName())
                    || !String.valueOf(x.get(i).getType())
                            .equalsIgnoreCase(String.valueOf(y.get(i).getType()))) {
                return false;
            }
        }
        return true;
    }

    static List<FieldSchema> partitionKeys(Table table) {
        return table.getPartitionKeys() == null ? List.of() : table.getPartitionKeys();
    }

    /** The partition's path; the values must be one per key. */
    ObjectPath path(Table table, List<String> values) throws MetaException {
        List<String> keys = keyNames(table);
        if (keys.isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName() + " is not partitioned");
        }
        if (values == null || values.size() != keys.size()) {
            throw new MetaException("Invalid partition key & values; keys " + keys + ", values " + values);
        }
        ObjectPath path = tablePath(table.getDbName(), table.getTableName());
        for (int i = 0; i < keys.size(); i++) {
            path = path.child(HivePartitionNames.component(keys.get(i), values.get(i)));
        }
        return path;
    }

    static String name(Table table, List<String> values) throws MetaException {
        return HivePartitionNames.name(keyNames(table), values);
    }

    /** One level of a Hive partition. */
    private static PartitionEntry level(FieldSchema key, String value) {
        Long number = value == null ? null : PartitionFilterPlanner.parseLong(value);
        return PartitionEntry.hiveLevel(
                key.getName().toLowerCase(java.util.Locale.ROOT),
                value,
                PartitionFilterPlanner.isIntegral(key) && number != null ? number : null);
    }

    /** The partition's entry: its last level plus the struct and location, keeping what {@code previous} (if any) has besides (statistics). */
    static PartitionEntry entry(Table table, Partition partition, PartitionEntry previous) throws MetaException {
        List<FieldSchema> keys = partitionKeys(table);
        PartitionEntry level = previous != null
                ? previous
                : level(keys.get(keys.size() - 1), partition.getValues().get(keys.size() - 1));
        String location = partition.getSd() == null ? null : partition.getSd().getLocation();
        return level.withHivePartition(HmsStructs.encode(partition, "partition " + partition.getValues()), location);
    }

    /** The Hive partition a partition object stands for, named for the table it is under now. */
    static Partition partition(String db, String table, BsonDocument value) throws MetaException {
        PartitionEntry entry = PartitionEntry.decode(value);
        if (entry.hivePartition() == null) {
            throw new MetaException("Not a partition object of " + db + "." + table);
        }
        Partition partition =
                HmsStructs.decode(new Partition(), entry.hivePartition(), "a stored partition of " + db + "." + table);
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setCatName(HmsNames.HIVE_CATALOG);
        return partition;
    }

    /** Whether an object is a Hive partition (the last level, with its struct). */
    static boolean isPartition(CatalogObject object) {
        return ObjectType.PARTITION.isTypeOf(object) && object.value().containsKey(LakeKeys.HMS_PARTITION);
    }

    static boolean isPartition(Optional<CatalogObject> object) {
        return object.isPresent() && isPartition(object.get());
    }

    Optional<CatalogObject> find(LakeTransaction txn, Table table, List<String> values) throws MetaException {
        Optional<CatalogObject> object = txn.read(path(table, values));
        return isPartition(object) ? object : Optional.empty();
    }

    CatalogObject require(LakeTransaction txn, Table table, List<String> values)
            throws MetaException, NoSuchObjectException {
        return find(txn, table, values)
                .orElseThrow(() -> new NoSuchObjectException("Partition " + table.getDbName() + "."
                        + table.getTableName() + " " + nameOrValues(table, values) + " does not exist"));
    }

    private static String nameOrValues(Table table, List<String> values) {
        try {
            return name(table, values);
        } catch (MetaException e) {
            return String.valueOf(values);
        }
    }

    // ---- adding

    /**
     * Adds partitions to {@code table} in this transaction: the levels above each that do not exist
     * yet, then the partition. An existing partition fails with AlreadyExistsException unless
     * {@code ifNotExists}, which skips it. Returns the partitions added, as stored.
     */
    List<Partition> add(LakeTransaction txn, Table table, List<Partition> partitions, boolean ifNotExists)
            throws TException {
        return add(txn, table, partitions, ifNotExists, null);
    }

    /** {@link #add}; the partitions added take the column statistics of {@code statisticsOf} when given (a rename). */
    private List<Partition> add(
            LakeTransaction txn,
            Table table,
            List<Partition> partitions,
            boolean ifNotExists,
            PartitionEntry statisticsOf)
            throws TException {
        List<FieldSchema> keys = partitionKeys(table);
        if (keys.isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName() + " is not partitioned");
        }
        Set<ObjectPath> levels = new HashSet<>();
        Set<ObjectPath> createdLevels = new HashSet<>();
        Set<ObjectPath> added = new HashSet<>();
        List<Partition> result = new ArrayList<>();
        int now = (int) (System.currentTimeMillis() / 1000);
        for (Partition given : partitions) {
            if (given == null) {
                throw new InvalidObjectException("A partition to add is null");
            }
            Partition partition = normalize(table, given, now);
            ObjectPath path = path(table, partition.getValues());
            // Under a level this call creates nothing can exist yet: skip the lookup (bulk adds of new days).
            if (added.contains(path)
                    || (!createdLevels.contains(path.parent()) && txn.read(path).isPresent())) {
                if (ifNotExists) {
                    continue;
                }
                throw new AlreadyExistsException("Partition already exists: " + table.getDbName() + "."
                        + table.getTableName() + " " + name(table, partition.getValues()));
            }
            ObjectPath level = tablePath(table.getDbName(), table.getTableName());
            for (int i = 0; i < keys.size() - 1; i++) {
                level = level.child(HivePartitionNames.component(
                        keys.get(i).getName(), partition.getValues().get(i)));
                if (levels.add(level)
                        && (createdLevels.contains(level.parent())
                                || txn.read(level).isEmpty())) {
                    txn.add(level, level(keys.get(i), partition.getValues().get(i)));
                    createdLevels.add(level);
                }
            }
            PartitionEntry entry = entry(table, partition, null);
            if (statisticsOf != null && statisticsOf.columnStatistics() != null) {
                entry = entry.withColumnStatistics(statisticsOf.columnStatistics(), entry.statisticsAnalyzed());
            }
            txn.add(path, entry);
            added.add(path);
            result.add(partition);
        }
        return result;
    }

    /** A partition as it is stored: names set, default location and storage descriptor, times. */
    Partition normalize(Table table, Partition given, int now) throws MetaException {
        Partition partition = given.deepCopy();
        if (partition.getValues() == null
                || partition.getValues().size() != partitionKeys(table).size()) {
            throw new MetaException(
                    "Invalid partition key & values; keys " + keyNames(table) + ", values " + partition.getValues());
        }
        partition.setDbName(table.getDbName());
        partition.setTableName(table.getTableName());
        partition.setCatName(HmsNames.HIVE_CATALOG);
        if (partition.getSd() == null) {
            partition.setSd(
                    table.getSd() == null
                            ? new StorageDescriptor()
                            : table.getSd().deepCopy());
            partition.getSd().setLocation(null);
        }
        if (partition.getSd().getLocation() == null
                || partition.getSd().getLocation().isEmpty()) {
            partition.getSd().setLocation(defaultLocation(table, partition.getValues()));
        }
        if (partition.getCreateTime() == 0) {
            partition.setCreateTime(now);
        }
        if (partition.getParameters() == null) {
            partition.setParameters(new HashMap<>());
        }
        partition.getParameters().putIfAbsent(TRANSIENT_LAST_DDL_TIME, Integer.toString(now));
        return partition;
    }

    /** {@code <table location>/<partition name>}, as Hive's Warehouse places a partition. */
    static String defaultLocation(Table table, List<String> values) throws MetaException {
        String tableLocation = table.getSd() == null ? null : table.getSd().getLocation();
        if (tableLocation == null || tableLocation.isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName()
                    + " has no location for the partition's default location");
        }
        return (tableLocation.endsWith("/") ? tableLocation : tableLocation + "/") + name(table, values);
    }

    // ---- listing

    /** The levels of {@code table} as path query steps from the root. */
    private String tableSteps(Table table) {
        return PathSteps.of(tablePath(table.getDbName(), table.getTableName()));
    }

    /**
     * The partitions (last-level objects) a query with these per-level predicates returns that also
     * pass {@code test}, in path order; at most {@code max} (negative: all).
     */
    List<CatalogObject> query(
            LakeTransaction txn, Table table, List<String> levelPredicates, Predicate<CatalogObject> test, int max) {
        StringBuilder query = new StringBuilder(tableSteps(table));
        for (String predicate : levelPredicates) {
            query.append("/[").append(predicate).append(']');
        }
        QueryRequest request =
                QueryRequest.of(query.toString()).withResults(ChildKinds.INNER).withLimit(QueryRequest.MAX_LIMIT);
        List<CatalogObject> rows = new ArrayList<>();
        if (max == 0) {
            return rows;
        }
        while (true) {
            QueryPage page = txn.query(request);
            for (CatalogObject row : page.rows()) {
                if (isPartition(row) && test.test(row)) {
                    rows.add(row);
                    if (max >= 0 && rows.size() >= max) {
                        return rows;
                    }
                }
            }
            if (page.continuation().isEmpty()) {
                return rows;
            }
            request = request.withPageToken(page.continuation().get());
        }
    }

    /** Every partition (or the first {@code max}). */
    List<CatalogObject> all(LakeTransaction txn, Table table, int max) throws MetaException {
        requirePartitioned(table);
        return query(
                txn,
                table,
                PartitionFilterPlanner.plan(new HiveFilter.All(), partitionKeys(table))
                        .levelPredicates(),
                row -> true,
                max);
    }

    /**
     * The partitions matching a partial spec: values for a prefix of the keys, an empty value matching
     * any (Hive's {@code get_partitions_ps}).
     */
    List<CatalogObject> matching(LakeTransaction txn, Table table, List<String> partialValues, int max)
            throws MetaException {
        List<String> keys = keyNames(table);
        requirePartitioned(table);
        List<String> values = partialValues == null ? List.of() : partialValues;
        if (values.size() > keys.size()) {
            throw new MetaException("Incorrect number of partition values: " + values + " for partition keys " + keys);
        }
        List<String> predicates = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String value = i < values.size() ? values.get(i) : null;
            predicates.add(
                    value == null || value.isEmpty()
                            ? PartitionFilterPlanner.isPartition()
                            : "obj_id = "
                                    + PartitionFilterPlanner.quote(HivePartitionNames.component(keys.get(i), value)));
        }
        return query(txn, table, predicates, row -> true, max);
    }

    /** The partitions a Hive filter selects: pushed down per level, then checked exactly. */
    List<CatalogObject> filtered(LakeTransaction txn, Table table, String filter, int max) throws TException {
        requirePartitioned(table);
        PartitionFilterPlanner plan = PartitionFilterPlanner.plan(HiveFilter.parse(filter), partitionKeys(table));
        String db = table.getDbName();
        String name = table.getTableName();
        List<MetaException> failure = new ArrayList<>();
        List<CatalogObject> rows = query(
                txn,
                table,
                plan.levelPredicates(),
                row -> {
                    try {
                        return plan.test(partition(db, name, row.value()).getValues());
                    } catch (MetaException e) {
                        failure.add(e);
                        return false;
                    }
                },
                max);
        if (!failure.isEmpty()) {
            throw failure.get(0);
        }
        return rows;
    }

    /** The existing partitions among these names, in the order asked; a malformed name is an error. */
    List<CatalogObject> byNames(LakeTransaction txn, Table table, List<String> names) throws MetaException {
        requirePartitioned(table);
        List<CatalogObject> rows = new ArrayList<>();
        Set<ObjectPath> seen = new HashSet<>();
        for (String name : names == null ? List.<String>of() : names) {
            ObjectPath path = path(table, HivePartitionNames.values(keyNames(table), name));
            if (seen.add(path)) {
                Optional<CatalogObject> object = txn.read(path);
                if (isPartition(object)) {
                    rows.add(object.get());
                }
            }
        }
        return rows;
    }

    private static void requirePartitioned(Table table) throws MetaException {
        if (partitionKeys(table).isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName() + " is not partitioned");
        }
    }

    List<Partition> partitions(Table table, List<CatalogObject> rows) throws MetaException {
        List<Partition> result = new ArrayList<>(rows.size());
        for (CatalogObject row : rows) {
            result.add(partition(table.getDbName(), table.getTableName(), row.value()));
        }
        return result;
    }

    /** The names of these partition objects: their paths below the table. */
    static List<String> names(List<CatalogObject> rows, int tableDepth) {
        List<String> names = new ArrayList<>(rows.size());
        for (CatalogObject row : rows) {
            names.add(String.join(
                    "/", row.path().ids().subList(tableDepth, row.path().ids().size())));
        }
        return names;
    }

    // ---- altering

    /** Replaces a partition's struct (found by its values); its statistics stay. */
    void alter(LakeTransaction txn, Table table, Partition given) throws TException {
        if (given == null || given.getValues() == null) {
            throw new InvalidOperationException("alter is not possible: no partition values given");
        }
        Optional<CatalogObject> existing = find(txn, table, given.getValues());
        if (existing.isEmpty()) {
            throw new InvalidOperationException("alter is not possible: partition " + table.getDbName() + "."
                    + table.getTableName() + " " + nameOrValues(table, given.getValues()) + " does not exist");
        }
        Partition old = partition(
                table.getDbName(), table.getTableName(), existing.get().value());
        Partition altered = normalize(table, given, (int) (System.currentTimeMillis() / 1000));
        if (given.getCreateTime() == 0) {
            altered.setCreateTime(old.getCreateTime());
        }
        PartitionEntry entry =
                entry(table, altered, PartitionEntry.decode(existing.get().value()));
        txn.update(existing.get().path(), entry);
    }

    /** Moves the partition with {@code oldValues} to the values of {@code renamed}. */
    Partition rename(LakeTransaction txn, Table table, List<String> oldValues, Partition renamed) throws TException {
        if (renamed == null || renamed.getValues() == null) {
            throw new InvalidOperationException("rename is not possible: no new partition values given");
        }
        Optional<CatalogObject> existing = find(txn, table, oldValues);
        if (existing.isEmpty()) {
            throw new InvalidOperationException("rename is not possible: partition " + table.getDbName() + "."
                    + table.getTableName() + " " + nameOrValues(table, oldValues) + " does not exist");
        }
        if (path(table, renamed.getValues()).equals(existing.get().path())) {
            alter(txn, table, renamed);
            return renamed;
        }
        if (txn.read(path(table, renamed.getValues())).isPresent()) {
            throw new InvalidOperationException(
                    "rename is not possible: partition " + name(table, renamed.getValues()) + " already exists");
        }
        Partition old = partition(
                table.getDbName(), table.getTableName(), existing.get().value());
        Partition moved = renamed.deepCopy();
        if (moved.getSd() != null
                && (moved.getSd().getLocation() == null
                        || moved.getSd().getLocation().equals(defaultLocation(table, oldValues)))) {
            // A partition at its default place follows its name, as Hive's rename does for managed tables.
            moved.getSd().setLocation(null);
        }
        if (moved.getCreateTime() == 0) {
            moved.setCreateTime(old.getCreateTime());
        }
        // The column statistics move with the partition.
        List<Partition> added = add(
                txn,
                table,
                List.of(moved),
                false,
                PartitionEntry.decode(existing.get().value()));
        drop(txn, table, List.of(existing.get().path()));
        return added.get(0);
    }

    // ---- dropping

    /**
     * Removes these partition objects, and every level above them that has no other child left, in
     * this transaction. Files are kept (deleteData is not acted on).
     */
    void drop(LakeTransaction txn, Table table, List<ObjectPath> paths) {
        Set<ObjectPath> removed = new LinkedHashSet<>(paths);
        for (ObjectPath path : paths) {
            txn.remove(path);
        }
        int tableDepth =
                tablePath(table.getDbName(), table.getTableName()).ids().size();
        // Walk the levels above, deepest first: a level whose children are all removed goes too.
        Map<ObjectPath, Set<String>> removedChildren =
                new TreeMap<>((a, b) -> b.ids().size() != a.ids().size()
                        ? Integer.compare(b.ids().size(), a.ids().size())
                        : a.compareTo(b));
        for (ObjectPath path : removed) {
            if (path.ids().size() - 1 > tableDepth) {
                removedChildren
                        .computeIfAbsent(path.parent(), parent -> new HashSet<>())
                        .add(path.id());
            }
        }
        while (!removedChildren.isEmpty()) {
            Map.Entry<ObjectPath, Set<String>> deepest =
                    removedChildren.entrySet().iterator().next();
            removedChildren.remove(deepest.getKey());
            ObjectPath level = deepest.getKey();
            if (!txn.addsBelow(level) && childIds(txn, level).stream().allMatch(deepest.getValue()::contains)) {
                txn.remove(level);
                if (level.ids().size() - 1 > tableDepth) {
                    removedChildren
                            .computeIfAbsent(level.parent(), parent -> new HashSet<>())
                            .add(level.id());
                }
            }
        }
    }

    /** The ids of every child of {@code parent}, of any kind and type, read in {@code txn}. */
    private static List<String> childIds(LakeTransaction txn, ObjectPath parent) {
        QueryRequest request = QueryRequest.of(PathSteps.of(parent) + "/*")
                .withResults(ChildKinds.BOTH)
                .withProjection(List.of(LakeKeys.OBJ_TYPE))
                .withLimit(QueryRequest.MAX_LIMIT);
        List<String> ids = new ArrayList<>();
        while (true) {
            QueryPage page = txn.query(request);
            for (CatalogObject row : page.rows()) {
                ids.add(row.id());
            }
            if (page.continuation().isEmpty()) {
                return ids;
            }
            request = request.withPageToken(page.continuation().get());
        }
    }

    /** What dropping {@code table} with deleteData removes, read in {@code txn} (its partitions' locations). */
    HmsDataFiles.Plan dropData(LakeTransaction txn, Table table) throws MetaException {
        if (!HmsDataFiles.deletesData(table)) {
            return new HmsDataFiles.Plan();
        }
        List<Partition> all = partitionKeys(table).isEmpty() ? List.of() : partitions(table, all(txn, table, -1));
        return HmsDataFiles.table(table, all);
    }
}
