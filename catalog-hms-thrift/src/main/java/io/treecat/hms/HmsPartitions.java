package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.catalog.Partitions;
import io.treecat.lakehouse.catalog.Partitions.PartitionKey;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
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
 * Hive partitions, translated to the lake's partition levels ({@link Partitions}: one tree level per
 * partition key under the table, a partition's path below the table being its Hive name). Here is what
 * is Hive's: the {@link Table}'s partition keys as {@link PartitionKey}s, the {@link Partition} struct
 * the last level keeps ({@link PartitionEntry#hivePartition()}), with its location, the basic statistics
 * in its parameters and its times, the defaults Hive gives a new partition (storage descriptor,
 * location under the table's), Hive's filter pushed down as level predicates
 * ({@link PartitionFilterPlanner}), and Hive's exceptions and messages. Column statistics are
 * {@link HmsColumnStats}'.
 *
 * <p>Each method runs in the caller's lake transaction; the call areas own the transactions (one per call).
 */
final class HmsPartitions {
    static final String TRANSIENT_LAST_DDL_TIME = "transient_lastDdlTime";

    private final String catalog;
    /** The catalog's warehouse: a partition's own location passes its {@link Warehouse#check}. */
    private final Warehouse warehouse;

    private final HiveFilterLimits filterLimits;

    HmsPartitions(String catalog, Warehouse warehouse) {
        this(catalog, warehouse, HiveFilterLimits.DEFAULTS);
    }

    HmsPartitions(String catalog, Warehouse warehouse, HiveFilterLimits filterLimits) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.warehouse = requireNonNull(warehouse, "warehouse is null");
        this.filterLimits = requireNonNull(filterLimits, "filterLimits is null");
    }

    /** Parses a Hive filter within the server's limits ({@code hms.filter.*}). */
    HiveFilter.Node parseFilter(String filter) throws MetaException {
        return HiveFilter.parse(filter, filterLimits);
    }

    // ---- paths and values

    private ObjectPath tablePath(String db, String table) {
        return ObjectPath.of(catalog, db, table);
    }

    private ObjectPath tablePath(Table table) {
        return tablePath(table.getDbName(), table.getTableName());
    }

    /** The table's partition keys as the lake keeps them: lower-cased, integral ones with numbers. */
    static List<PartitionKey> keys(Table table) {
        List<PartitionKey> keys = new ArrayList<>();
        for (FieldSchema key : partitionKeys(table)) {
            keys.add(new PartitionKey(key.getName(), PartitionFilterPlanner.isIntegral(key)));
        }
        return keys;
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
        checkValues(table, values);
        return Partitions.path(tablePath(table), keys(table), values);
    }

    private static void checkValues(Table table, List<String> values) throws MetaException {
        List<String> keys = keyNames(table);
        if (keys.isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName() + " is not partitioned");
        }
        if (values == null || values.size() != keys.size()) {
            throw new MetaException("Invalid partition key & values; keys " + keys + ", values " + values);
        }
    }

    static String name(Table table, List<String> values) throws MetaException {
        return HivePartitionNames.name(keyNames(table), values);
    }

    /** The partition's entry: its last level plus the struct and location, keeping what {@code previous} (if any) has besides (statistics). */
    static PartitionEntry entry(Table table, Partition partition, PartitionEntry previous) throws MetaException {
        List<PartitionKey> keys = keys(table);
        PartitionEntry level = previous != null
                ? previous
                : Partitions.level(
                        keys.get(keys.size() - 1), partition.getValues().get(keys.size() - 1));
        String location = partition.getSd() == null ? null : partition.getSd().getLocation();
        return level.withHivePartition(HmsStructs.encode(partition, "partition " + partition.getValues()), location);
    }

    /** The Hive partition a partition object stands for, named for the table it is under now. */
    static Partition partition(String db, String table, BsonDocument value) throws MetaException {
        byte[] struct = PartitionEntry.hivePartitionOf(value);
        if (struct == null) {
            throw new MetaException("Not a partition object of " + db + "." + table);
        }
        Partition partition = HmsStructs.decode(new Partition(), struct, "a stored partition of " + db + "." + table);
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setCatName(HmsNames.HIVE_CATALOG);
        return partition;
    }

    Optional<CatalogObject> find(LakeTransaction txn, Table table, List<String> values) throws MetaException {
        checkValues(table, values);
        return Partitions.find(txn, tablePath(table), keys(table), values);
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
        requirePartitioned(table);
        Partitions.Additions additions = Partitions.additions(txn, tablePath(table), keys(table));
        List<Partition> result = new ArrayList<>();
        int now = (int) (System.currentTimeMillis() / 1000);
        for (Partition given : partitions) {
            if (given == null) {
                throw new InvalidObjectException("A partition to add is null");
            }
            Partition partition = normalize(table, given, now, null);
            if (additions.exists(partition.getValues())) {
                if (ifNotExists) {
                    continue;
                }
                throw new AlreadyExistsException("Partition already exists: " + table.getDbName() + "."
                        + table.getTableName() + " " + name(table, partition.getValues()));
            }
            PartitionEntry entry = entry(table, partition, null);
            if (statisticsOf != null && statisticsOf.columnStatistics() != null) {
                entry = entry.withColumnStatistics(statisticsOf.columnStatistics(), entry.statisticsAnalyzed());
            }
            additions.add(partition.getValues(), entry);
            result.add(partition);
        }
        return result;
    }

    /**
     * A partition as it is stored: names set, default location and storage descriptor, times. A location the client
     * gives passes the warehouse's check (placeable; inside the warehouse unless external locations are allowed)
     * unless it is the partition's {@code previousLocation} (null for a new one); the default location is built from
     * the escaped partition name and checked to lie inside the table's.
     */
    Partition normalize(Table table, Partition given, int now, String previousLocation) throws MetaException {
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
        String location = partition.getSd().getLocation();
        if (location == null || location.isEmpty()) {
            partition.getSd().setLocation(checkedDefaultLocation(table, partition.getValues()));
        } else if (!location.equals(previousLocation)) {
            warehouse.check(location, Warehouse.LOCATION);
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

    /**
     * {@link #defaultLocation}, checked: every component of the name is {@code k=v} with {@code /}, {@code %},
     * {@code :}, {@code =} and control characters (but NUL) escaped (Hive's {@code escapePathName}), so a value such
     * as {@code ../../x} is the one path segment {@code k=..%2F..%2Fx} as written, which Hadoop's {@code Path}, and
     * the directories this server makes, take literally. A location that a NUL or a dot segment as written would
     * still place elsewhere is refused.
     */
    static String checkedDefaultLocation(Table table, List<String> values) throws MetaException {
        String location = defaultLocation(table, values);
        String tableLocation = table.getSd().getLocation();
        if (location.indexOf('\0') >= 0
                || HmsCalls.hasDotSegmentAsWritten(location)
                || !Locations.isInside(location, tableLocation)) {
            throw new CatalogException(
                            ErrorCode.INVALID_LOCATION,
                            "Invalid location: a partition's default location must lie inside its table's")
                    .with("field", Warehouse.LOCATION);
        }
        return location;
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

    /** Every partition (or the first {@code max}). */
    List<CatalogObject> all(LakeTransaction txn, Table table, int max) throws MetaException {
        requirePartitioned(table);
        return Partitions.all(txn, tablePath(table), keys(table), max);
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
        return Partitions.matching(txn, tablePath(table), keys(table), values, max);
    }

    /** The partitions a Hive filter selects: pushed down per level, then checked exactly. */
    List<CatalogObject> filtered(LakeTransaction txn, Table table, String filter, int max) throws TException {
        requirePartitioned(table);
        PartitionFilterPlanner plan = PartitionFilterPlanner.plan(parseFilter(filter), partitionKeys(table));
        String db = table.getDbName();
        String name = table.getTableName();
        List<MetaException> failure = new ArrayList<>();
        List<CatalogObject> rows = Partitions.list(
                txn,
                tablePath(table),
                plan.levelPredicates(txn.service().queryLimits()),
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
        List<List<String>> valuesList = new ArrayList<>();
        for (String name : names == null ? List.<String>of() : names) {
            valuesList.add(HivePartitionNames.values(keyNames(table), name));
        }
        return Partitions.findAll(txn, tablePath(table), keys(table), valuesList);
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
        Partition altered = normalize(
                table,
                given,
                (int) (System.currentTimeMillis() / 1000),
                old.getSd() == null ? null : old.getSd().getLocation());
        if (given.getCreateTime() == 0) {
            altered.setCreateTime(old.getCreateTime());
        }
        PartitionEntry entry =
                entry(table, altered, PartitionEntry.decode(existing.get().value()));
        Partitions.update(txn, existing.get().path(), entry);
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
        if (Partitions.exists(txn, tablePath(table), keys(table), renamed.getValues())) {
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
        Partitions.drop(txn, tablePath(table), List.of(existing.get().path()));
        return added.get(0);
    }

    // ---- dropping

    /**
     * Removes these partition objects, and every level above them left empty, in this transaction
     * ({@link Partitions#drop}). Files are kept (deleteData is the caller's).
     */
    void drop(LakeTransaction txn, Table table, List<ObjectPath> paths) {
        Partitions.drop(txn, tablePath(table), paths);
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
