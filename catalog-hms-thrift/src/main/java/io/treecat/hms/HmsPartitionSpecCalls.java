package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.hms.HmsCalls.TableName;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.model.TableEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.PartitionValuesResponse;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRow;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;

/**
 * The partition calls that answer or take {@link PartitionSpec}s ({@code get_partitions_pspec},
 * {@code get_part_specs_by_filter}, {@code add_partitions_pspec}; the spec forms are {@link HmsPartitionSpecs}'), and
 * {@code get_partition_values}. Each call is one lake transaction ({@link HmsCalls}); partitions are
 * {@link HmsPartitions}', filters the one evaluator's ({@link PartitionFilterPlanner}).
 */
final class HmsPartitionSpecCalls {
    private static final String VALUES_ERROR = "Error retrieving partition values: ";

    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsPartitionSpecCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    // ---- specs

    /**
     * Every partition (the first {@code max}; Hive reads it as a 16-bit count), as specs; a table without partition
     * keys answers one empty spec, as Hive's does.
     */
    public List<PartitionSpec> get_partitions_pspec(String dbName, String tableName, int max) throws TException {
        TableName name = calls.tableName(dbName, tableName);
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<Partition> found = HmsPartitions.partitionKeys(table).isEmpty()
                    ? List.of()
                    : partitions.partitions(table, partitions.all(txn, table, limit((short) max)));
            return HmsPartitionSpecs.specs(table, name.name(), found);
        });
    }

    /** The partitions Hive's filter selects (the first {@code max}), as specs named for the table as asked. */
    public List<PartitionSpec> get_part_specs_by_filter(String dbName, String tableName, String filter, int max)
            throws TException {
        TableName name = calls.tableName(dbName, tableName);
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<Partition> found = (filter == null || filter.isBlank())
                            && HmsPartitions.partitionKeys(table).isEmpty()
                    ? List.of()
                    : partitions.partitions(table, partitions.filtered(txn, table, filter, limit((short) max)));
            return HmsPartitionSpecs.specs(table, tableName, found);
        });
    }

    private static int limit(int max) {
        return max < 0 ? -1 : max;
    }

    /**
     * Adds the partitions of the specs to the table the first spec names, in one commit, as Hive does: each partition
     * must name that table, have values, not exist and not repeat an earlier one of the call (checked in order,
     * Hive's exceptions); a partition without a location gets its default one. Returns how many were added.
     */
    public int add_partitions_pspec(List<PartitionSpec> specs) throws TException {
        if (specs == null) {
            throw new MetaException("The partition specs cannot be null.");
        }
        if (specs.isEmpty()) {
            return 0;
        }
        PartitionSpec first = specs.get(0);
        if (first == null || first.getDbName() == null || first.getTableName() == null) {
            throw new MetaException("The database and table name cannot be null.");
        }
        List<Partition> given = HmsPartitionSpecs.partitions(specs);
        TableName name;
        try {
            name = calls.tableName(first.getCatName(), first.getDbName(), first.getTableName());
        } catch (NoSuchObjectException e) {
            throw new InvalidObjectException(
                    "Unable to add partitions because " + qualified(first) + " does not exist");
        }
        HmsCalls.Made<List<Partition>> added = calls.write(Action.ADD_PARTITIONS, calls.tablePath(name), txn -> {
            Optional<TableEntry> entry = calls.findTable(txn, name.db(), name.name());
            if (entry.isEmpty()) {
                throw new InvalidObjectException(
                        "Unable to add partitions because " + qualified(first) + " does not exist");
            }
            Table table = HmsTables.table(name.db(), name.name(), entry.get());
            Set<List<String>> seen = new HashSet<>();
            for (Partition partition : given) {
                check(name, partition);
                if (HmsPartitions.partitionKeys(table).size()
                        != partition.getValues().size()) {
                    throw new MetaException("Invalid partition key & values; keys " + HmsPartitions.keyNames(table)
                            + ", values " + partition.getValues());
                }
                if (partitions.find(txn, table, partition.getValues()).isPresent()) {
                    throw new AlreadyExistsException("Partition already exists: " + partition);
                }
                if (!seen.add(partition.getValues())) {
                    throw new MetaException("Duplicate partitions in the list: " + partition);
                }
            }
            return new HmsCalls.Made<>(partitions.add(txn, table, given, false), HmsTables.location(table));
        });
        added.value()
                .forEach(partition -> calls.createDirectories(partition.getSd().getLocation(), added.home()));
        return added.value().size();
    }

    private static String qualified(PartitionSpec spec) {
        return HmsNames.HIVE_CATALOG + "." + spec.getDbName() + "." + spec.getTableName();
    }

    /** Hive's {@code validatePartition}: the partition names the call's table and has values, none null. */
    private void check(TableName table, Partition partition) throws TException {
        if (partition.getDbName() == null || partition.getTableName() == null) {
            throw new MetaException("The database and table name must be set in the partition.");
        }
        if (!calls.db(partition.getDbName()).equals(table.db())
                || !HmsNames.normalize(partition.getTableName()).equals(table.name())) {
            throw new MetaException("Partition does not belong to target table " + HmsNames.HIVE_CATALOG + "."
                    + table.db() + "." + table.name() + ". It belongs to the table " + partition.getDbName() + "."
                    + partition.getTableName() + " : " + partition);
        }
        if (partition.getValues() == null || partition.getValues().isEmpty()) {
            throw new MetaException("The partition values cannot be null or empty.");
        }
        if (partition.getValues().contains(null)) {
            throw new MetaException("Partition value cannot be null.");
        }
    }

    // ---- values

    /**
     * The values of the table's partitions, one row per partition, as Hive 4's store answers:
     *
     * <ul>
     *   <li>without a filter: the values of the keys asked, in their order; with {@code applyDistinct} (the default)
     *       each row once, sorted; without, one per partition in name order; {@code maxParts} > 0 keeps the first so
     *       many, and {@code ascending} is ignored, as in Hive;
     *   <li>with a filter (Hive's language, the one evaluator): the values of every key, one row per partition the
     *       filter selects, in partition-name order or its reverse ({@code ascending=false}); {@code applyDistinct}
     *       and the keys asked are ignored, and {@code maxParts} >= 0 keeps the first so many. Hive takes those in the
     *       order asked when the filter reads only string keys, but the first ones in ascending order (then reversed)
     *       when it reads another key type (its fallback from JDO to direct SQL); so does TreeCat.
     * </ul>
     *
     * Values are as Hive has them (unescaped), also without a filter, where Hive 4.0.1 answers them escaped as in the
     * partition's name ({@code 50%25off}); docs/hms-thrift.md lists this divergence. Failures, including a table that
     * does not exist, are MetaExceptions.
     */
    public PartitionValuesResponse get_partition_values(PartitionValuesRequest request) throws TException {
        if (request == null) {
            throw new MetaException(VALUES_ERROR + "no request");
        }
        TableName name;
        try {
            name = calls.tableName(request.getCatName(), request.getDbName(), request.getTblName());
        } catch (NoSuchObjectException e) {
            throw new MetaException(VALUES_ERROR + e.getMessage());
        }
        List<List<String>> rows = calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            Table table;
            try {
                table = calls.requireTable(txn, name);
            } catch (NoSuchObjectException e) {
                throw new MetaException(e.getMessage());
            }
            if (HmsPartitions.partitionKeys(table).isEmpty()) {
                throw new MetaException(
                        VALUES_ERROR + "table " + name.db() + "." + name.name() + " is not partitioned");
            }
            String filter = request.getFilter();
            if (filter == null || filter.isEmpty()) {
                int[] columns = columns(table, request.getPartitionKeys());
                return values(request, columns, named(table, partitions.all(txn, table, -1)));
            }
            List<CatalogObject> selected;
            try {
                selected = partitions.filtered(txn, table, filter, -1);
            } catch (MetaException e) {
                throw new MetaException(VALUES_ERROR + e.getMessage());
            }
            return filtered(request, table, named(table, selected));
        });
        PartitionValuesResponse response = new PartitionValuesResponse(new ArrayList<>());
        for (List<String> row : rows) {
            response.addToPartitionValues(new PartitionValuesRow(new ArrayList<>(row)));
        }
        return response;
    }

    /** A partition's escaped name (Hive's order of partitions) and its values. */
    private record Named(String name, List<String> values) {}

    private List<Named> named(Table table, List<CatalogObject> rows) throws MetaException {
        List<Named> named = new ArrayList<>(rows.size());
        List<String> names = HmsPartitions.names(rows, HmsPartitionCalls.TABLE_DEPTH);
        List<Partition> structs = partitions.partitions(table, rows);
        for (int i = 0; i < rows.size(); i++) {
            named.add(new Named(names.get(i), structs.get(i).getValues()));
        }
        named.sort(Comparator.comparing(Named::name));
        return named;
    }

    /** Where each key asked is among the table's partition keys (names compare ignoring case). */
    private static int[] columns(Table table, List<FieldSchema> asked) throws MetaException {
        if (asked == null || asked.isEmpty()) {
            throw new MetaException(VALUES_ERROR + "no partition keys asked");
        }
        List<String> keys = HmsPartitions.keyNames(table);
        int[] columns = new int[asked.size()];
        for (int i = 0; i < asked.size(); i++) {
            String key = asked.get(i) == null || asked.get(i).getName() == null
                    ? null
                    : asked.get(i).getName().toLowerCase(Locale.ROOT);
            columns[i] = key == null ? -1 : keys.indexOf(key);
            if (columns[i] < 0) {
                throw new MetaException(
                        VALUES_ERROR + "'" + key + "' is not a partition key of the table (its keys are " + keys + ")");
            }
        }
        return columns;
    }

    private static List<List<String>> values(PartitionValuesRequest request, int[] columns, List<Named> partitions) {
        List<List<String>> rows = new ArrayList<>(partitions.size());
        for (Named partition : partitions) {
            List<String> row = new ArrayList<>(columns.length);
            for (int column : columns) {
                row.add(partition.values().get(column));
            }
            rows.add(row);
        }
        if (request.isApplyDistinct()) {
            rows = new ArrayList<>(new LinkedHashSet<>(rows));
            rows.sort(HmsPartitionSpecCalls::compareRows);
        }
        long max = request.isSetMaxParts() ? request.getMaxParts() : -1;
        return max > 0 && rows.size() > max ? rows.subList(0, (int) max) : rows;
    }

    private static int compareRows(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int order = a.get(i).compareTo(b.get(i));
            if (order != 0) {
                return order;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private List<List<String>> filtered(PartitionValuesRequest request, Table table, List<Named> selected)
            throws MetaException {
        long max = request.isSetMaxParts() ? request.getMaxParts() : -1;
        List<Named> ordered = new ArrayList<>(selected);
        if (!request.isAscending()) {
            if (max >= 0 && !readsOnlyStringKeys(table, request.getFilter())) {
                // Hive's direct-SQL fallback: the first ones in ascending order, then reversed.
                ordered = new ArrayList<>(ordered.subList(0, (int) Math.min(max, ordered.size())));
            }
            Collections.reverse(ordered);
        }
        if (max >= 0 && ordered.size() > max) {
            ordered = ordered.subList(0, (int) max);
        }
        List<List<String>> rows = new ArrayList<>(ordered.size());
        for (Named partition : ordered) {
            rows.add(partition.values());
        }
        return rows;
    }

    /** Whether every condition of the filter is on a string-typed key (what Hive's JDO query can run). */
    private boolean readsOnlyStringKeys(Table table, String filter) throws MetaException {
        List<String> keys = HmsPartitions.keyNames(table);
        List<FieldSchema> schemas = HmsPartitions.partitionKeys(table);
        boolean[] onlyStrings = {true};
        HiveFilter.forEachCondition(partitions.parseFilter(filter), (key, operator, value) -> {
            int index = keys.indexOf(key.toLowerCase(Locale.ROOT));
            if (index < 0 || PartitionFilterPlanner.keyType(schemas.get(index)) != HiveFilterEvaluator.KeyType.STRING) {
                onlyStrings[0] = false;
            }
        });
        return onlyStrings[0];
    }
}
