package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveNames;
import io.treecat.lakehouse.catalog.Partitions;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.bson.BsonDocument;

/**
 * Hive's {@code alter_table} in all its forms, one transaction each: a full replacement of the struct, the
 * expected-parameter compare-and-swap (an Iceberg pointer move is the lake's {@link Tables#swapMetadataLocation}), a
 * rename moving the table's subtree ({@link Tables#move}) and its constraints' names on both sides, and Hive's
 * {@code CASCADE}: when the columns change, every partition's storage descriptor takes the table's new columns and
 * loses the column statistics of columns it no longer has with the same type (Hive's {@code HiveAlterHandler}; a
 * rename does not cascade, as in Hive).
 */
final class HmsTableAlter {
    /** Hive's {@code StatsSetupConst.CASCADE}: the environment-context key of {@code ALTER TABLE … CASCADE}. */
    static final String CASCADE = "CASCADE";

    private final HmsCalls calls;
    private final HmsPartitions partitions;
    private final HmsColumnTypeChanges typeChanges;

    HmsTableAlter(HmsCalls calls, HmsPartitions partitions, HmsColumnTypeChanges typeChanges) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
        this.typeChanges = requireNonNull(typeChanges, "typeChanges is null");
    }

    static boolean isCascade(Map<String, String> properties) {
        return "true".equals(properties.get(CASCADE));
    }

    void alterTable(
            String dbName, String tableName, Table newTable, String expectedKey, String expectedValue, boolean cascade)
            throws TException {
        if (newTable == null) {
            throw new InvalidOperationException("New table is null");
        }
        String db = calls.names().database(dbName);
        if (db == null || db.isEmpty()) {
            throw new InvalidOperationException("No database name in '" + dbName + "'");
        }
        if (tableName == null || tableName.isEmpty()) {
            throw new InvalidOperationException("No table name given");
        }
        String name = HmsNames.normalize(tableName);
        if (!HmsNames.fits(db) || !HmsNames.fits(name)) {
            // Longer than any stored name: Hive looks it up, finds no table and says so; no path is built for it.
            throw new InvalidOperationException("table " + shown(db) + "." + shown(name) + " doesn't exist");
        }
        ObjectPath path = calls.tablePath(db, name);
        try {
            // A lost race runs the body again: it re-reads the table, so a swap re-checks its pointer.
            calls.write(Action.COMMIT_TABLE, path, txn -> {
                alter(txn, db, name, newTable, expectedKey, expectedValue, cascade);
                return null;
            });
        } catch (CatalogException e) {
            String key = HmsIcebergCommits.swappedKey(newTable, expectedKey);
            if (key == null || !HmsIcebergCommits.isLostRace(e)) {
                throw e;
            }
            // Still losing after the retries: for a swap, Hive's answer, which Iceberg retries.
            String actual = calls.read(
                    Action.LOAD_TABLE,
                    path,
                    txn -> HmsIcebergCommits.parameter(calls.requireTable(txn, db, name), key));
            String expected = expectedKey != null
                    ? expectedValue
                    : newTable.getParameters().get(LakeKeys.PREVIOUS_METADATA_LOCATION);
            throw HmsIcebergCommits.modified(key, actual, expected);
        }
    }

    private void alter(
            LakeTransaction txn,
            String db,
            String name,
            Table newTable,
            String expectedKey,
            String expectedValue,
            boolean cascade)
            throws TException {
        ObjectPath path = calls.tablePath(db, name);
        Optional<TableEntry> entry = Tables.find(txn, path);
        if (entry.isEmpty()) {
            throw new InvalidOperationException("table " + db + "." + name + " doesn't exist");
        }
        Table old = HmsTables.table(db, name, entry.get());
        Optional<HmsIcebergCommits.PointerSwap> swap =
                HmsIcebergCommits.pointerSwap(old, newTable, expectedKey, expectedValue);
        String newDb = newTable.getDbName() == null ? db : calls.names().database(newTable.getDbName());
        String newName = newTable.getTableName() == null ? name : HmsNames.normalize(newTable.getTableName());
        Table altered = newTable.deepCopy();
        altered.setDbName(newDb);
        altered.setTableName(newName);
        altered.setCatName(HmsNames.HIVE_CATALOG);
        if (altered.getCreateTime() == 0) {
            altered.setCreateTime(old.getCreateTime());
        }
        checkNames(altered, !newDb.equals(db) || !newName.equals(name));
        String location = HmsTables.location(altered);
        if (location != null && !location.isEmpty() && !location.equals(HmsTables.location(old))) {
            // A new location the client chose: placeable, inside the warehouse unless external locations are allowed.
            try {
                calls.warehouse().check(location, Warehouse.LOCATION);
            } catch (CatalogException e) {
                throw new InvalidOperationException(e.getMessage());
            }
        }
        typeChanges.check(old, altered);
        if (!altered.isSetPartitionKeys()) {
            altered.setPartitionKeys(old.getPartitionKeys()); // a client that leaves them out keeps them
        }
        if (!HmsPartitions.sameKeys(old, altered)) {
            // Hive refuses it too: the partitions below are laid out by the keys.
            throw new InvalidOperationException("partition keys can not be changed.");
        }
        TableEntry next = HmsTables.entry(altered, entry.get());
        boolean renamed = !newDb.equals(db) || !newName.equals(name);
        ObjectPath target = calls.tablePath(newDb, newName);
        if (renamed) {
            if (!calls.databaseExists(txn, newDb)) {
                throw new InvalidOperationException(
                        "Unable to change the table's database: database " + newDb + " does not exist");
            }
            if (txn.read(target).isPresent()) {
                throw new InvalidOperationException("Table " + newDb + "." + newName + " already exists");
            }
        }
        if (swap.isPresent()) {
            Tables.swapMetadataLocation(txn, path, swap.get().expected(), current -> next);
        } else if (!renamed) {
            txn.update(path, next);
        }
        if (renamed) {
            // Read before the move (a transaction reads its own writes): the keys on both sides take the new name.
            TableEntry moved = new HmsConstraintStore(calls, txn).renamed(next, db, name, newDb, newName);
            // The partitions below move with the table; a concurrent partition change conflicts instead of being lost.
            Tables.move(txn, path, target, false);
            txn.update(target, moved);
        } else if (cascade && !HmsPartitions.partitionKeys(old).isEmpty() && !sameColumns(old, altered)) {
            cascadeColumns(txn, altered);
        }
    }

    /**
     * Hive's checks of an altered table ({@code HiveAlterHandler.alterTable}), answered as Hive does with an
     * InvalidOperationException: a new name passes Hive's rule and the lake's (a table that keeps its name keeps it,
     * even one made over REST with a name Hive would refuse), and the columns Hive's ({@link HmsTables#checkColumns}).
     */
    private static void checkNames(Table altered, boolean renamed) throws TException {
        if (renamed) {
            try {
                HiveNames.checkTable(altered.getTableName());
            } catch (CatalogException e) {
                throw new InvalidOperationException(e.getMessage());
            }
        }
        HmsTables.checkColumns(altered, altered.isSetPartitionKeys(), InvalidOperationException::new);
    }

    /** Hive's {@code areSameColumns}: the same columns (name, type and comment) in the same order. */
    private static boolean sameColumns(Table a, Table b) {
        return Objects.equals(columns(a), columns(b));
    }

    private static List<FieldSchema> columns(Table table) {
        return table.getSd() == null || table.getSd().getCols() == null
                ? List.of()
                : table.getSd().getCols();
    }

    /**
     * Every partition takes the table's new columns; its column statistics of a column it no longer has (by name and
     * type) go, as Hive's {@code updateOrGetPartitionColumnStats} deletes them.
     */
    private void cascadeColumns(LakeTransaction txn, Table altered) throws TException {
        List<FieldSchema> columns = columns(altered);
        for (CatalogObject row : partitions.all(txn, altered, -1)) {
            Partition partition = HmsPartitions.partition(altered.getDbName(), altered.getTableName(), row.value());
            if (partition.getSd() == null) {
                continue;
            }
            partition.getSd().setCols(new ArrayList<>(columns));
            PartitionEntry stored = PartitionEntry.decode(row.value());
            PartitionEntry next = HmsPartitions.entry(altered, partition, stored);
            BsonDocument statistics = stored.columnStatistics();
            if (statistics != null) {
                List<String> gone = new ArrayList<>();
                for (Map.Entry<String, ColumnStatisticsObj> column :
                        HmsColumnStats.read(statistics).entrySet()) {
                    if (!hasColumn(columns, column.getValue())) {
                        gone.add(column.getKey());
                    }
                }
                if (!gone.isEmpty()) {
                    BsonDocument kept = HmsColumnStats.withoutStatistics(statistics, gone);
                    next = next.withColumnStatistics(
                            kept.isEmpty() ? null : kept, kept.isEmpty() ? null : stored.statisticsAnalyzed());
                }
            }
            Partitions.update(txn, row.path(), next);
        }
    }

    private static boolean hasColumn(List<FieldSchema> columns, ColumnStatisticsObj statistics) {
        for (FieldSchema column : columns) {
            if (column.getName().equalsIgnoreCase(statistics.getColName())
                    && column.getType().equalsIgnoreCase(statistics.getColType())) {
                return true;
            }
        }
        return false;
    }

    /** A name as a message shows it: one longer than a stored name can be is cut, not echoed whole. */
    private static String shown(String name) {
        return HmsNames.fits(name) ? name : name.substring(0, 32) + "… (" + name.length() + " characters)";
    }
}
