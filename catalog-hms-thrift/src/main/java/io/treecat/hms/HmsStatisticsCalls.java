package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.hms.HmsCalls.TableName;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.DeleteColumnStatisticsRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsResult;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableStatsRequest;
import org.apache.hadoop.hive.metastore.api.TableStatsResult;
import org.apache.thrift.TException;
import org.bson.BsonDocument;

/**
 * The column-statistics calls: Hive column statistics of a table or of its partitions, kept in the
 * lake model's {@code columnStatistics} of the {@link TableEntry} or {@link PartitionEntry}
 * ({@link HmsColumnStats} encodes and aggregates them). Each call is one lake transaction.
 */
final class HmsStatisticsCalls {
    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsStatisticsCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    /** A table or partition whose statistics a call changes: its path and entry (one of the two). */
    private record Target(ObjectPath path, TableEntry table, PartitionEntry partition) {
        static Target of(CatalogObject partition) {
            return new Target(partition.path(), null, PartitionEntry.decode(partition.value()));
        }

        BsonDocument statistics() {
            return table != null ? table.columnStatistics() : partition.columnStatistics();
        }

        Long analyzed() {
            return table != null ? table.statisticsAnalyzed() : partition.statisticsAnalyzed();
        }

        Target with(BsonDocument statistics, Long analyzed) {
            return table != null
                    ? new Target(path, table.withColumnStatistics(statistics, analyzed), null)
                    : new Target(path, null, partition.withColumnStatistics(statistics, analyzed));
        }

        void stage(LakeTransaction txn) {
            txn.update(path, table != null ? table : partition);
        }
    }

    private Target tableTarget(LakeTransaction txn, TableName name) {
        return new Target(
                calls.tablePath(name),
                calls.findTable(txn, name.db(), name.name()).orElseThrow(),
                null);
    }

    /** The table an update names first (what the authorizer is asked about); the catalog if it names none. */
    private ObjectPath accessed(ColumnStatisticsDesc desc) {
        try {
            return calls.tablePath(calls.tableName(desc.getDbName(), desc.getTableName()));
        } catch (TException | RuntimeException e) {
            return calls.catalogPath(); // the body reports what is wrong, in its order
        }
    }

    private boolean updateStatistics(
            String method, List<ColumnStatistics> statistics, boolean merge, Boolean tableLevel) throws TException {
        if (statistics == null || statistics.isEmpty()) {
            return true;
        }
        return calls.write(Action.COMMIT_TABLE, accessed(statistics.get(0).getStatsDesc()), txn -> {
            Map<ObjectPath, Target> pending = new LinkedHashMap<>();
            for (ColumnStatistics stats : statistics) {
                ColumnStatisticsDesc desc = requireNonNull(stats.getStatsDesc(), "statsDesc");
                if (tableLevel != null && desc.isIsTblLevel() != tableLevel) {
                    throw new InvalidObjectException(
                            method + " needs " + (tableLevel ? "table" : "partition") + "-level statistics");
                }
                calls.names().checkCatalog(desc.getCatName());
                TableName name = calls.tableName(desc.getDbName(), desc.getTableName());
                Table table = calls.requireTable(txn, name);
                List<ColumnStatisticsObj> columns = stats.getStatsObj() == null ? List.of() : stats.getStatsObj();
                HmsColumnStats.checkColumns(table, columns);
                Target target;
                if (desc.isIsTblLevel()) {
                    target = tableTarget(txn, name);
                } else {
                    if (desc.getPartName() == null) {
                        throw new InvalidObjectException("Partition statistics name no partition");
                    }
                    target = Target.of(partitions.require(
                            txn, table, HivePartitionNames.values(HmsPartitions.keyNames(table), desc.getPartName())));
                }
                Target current = pending.getOrDefault(target.path(), target);
                if (merge) {
                    for (ColumnStatisticsObj column : columns) {
                        if (HmsColumnStats.read(current.statistics())
                                .containsKey(column.getColName().toLowerCase(Locale.ROOT))) {
                            throw new MetaException(
                                    "Merging column statistics (set_aggr_stats_for with needMerge) is not supported by TreeCat: column "
                                            + column.getColName()
                                            + " already has statistics; send needMerge=false to replace them");
                        }
                    }
                }
                long analyzed = desc.isSetLastAnalyzed() ? desc.getLastAnalyzed() : System.currentTimeMillis() / 1000;
                pending.put(
                        target.path(),
                        current.with(HmsColumnStats.withStatistics(current.statistics(), columns), analyzed));
            }
            pending.values().forEach(target -> target.stage(txn));
            return true;
        });
    }

    public boolean update_table_column_statistics(ColumnStatistics statistics) throws TException {
        return updateStatistics(
                "update_table_column_statistics", List.of(requireNonNull(statistics, "statistics")), false, true);
    }

    public boolean update_partition_column_statistics(ColumnStatistics statistics) throws TException {
        return updateStatistics(
                "update_partition_column_statistics", List.of(requireNonNull(statistics, "statistics")), false, false);
    }

    public SetPartitionsStatsResponse update_table_column_statistics_req(SetPartitionsStatsRequest request)
            throws TException {
        return new SetPartitionsStatsResponse(updateStatistics(
                "update_table_column_statistics_req", request.getColStats(), request.isNeedMerge(), true));
    }

    public SetPartitionsStatsResponse update_partition_column_statistics_req(SetPartitionsStatsRequest request)
            throws TException {
        return new SetPartitionsStatsResponse(updateStatistics(
                "update_partition_column_statistics_req", request.getColStats(), request.isNeedMerge(), false));
    }

    public boolean set_aggr_stats_for(SetPartitionsStatsRequest request) throws TException {
        return updateStatistics("set_aggr_stats_for", request.getColStats(), request.isNeedMerge(), null);
    }

    public ColumnStatistics get_table_column_statistics(String dbName, String tableName, String column)
            throws TException {
        TableName name = calls.tableName(dbName, tableName);
        return calls.read(Action.LOAD_TABLE, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            TableEntry entry = calls.findTable(txn, name.db(), name.name()).orElseThrow();
            ColumnStatisticsObj stats = HmsColumnStats.read(entry.columnStatistics())
                    .get(column == null ? "" : column.toLowerCase(Locale.ROOT));
            if (stats == null) {
                throw new NoSuchObjectException(
                        "No column statistics of column " + column + " of table " + name.db() + "." + name.name());
            }
            return HmsColumnStats.statistics(
                    HmsColumnStats.desc(true, table, null, entry.statisticsAnalyzed()), List.of(stats));
        });
    }

    public ColumnStatistics get_partition_column_statistics(
            String dbName, String tableName, String partitionName, String column) throws TException {
        TableName name = calls.tableName(dbName, tableName);
        return calls.read(Action.LOAD_TABLE, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            PartitionEntry entry = PartitionEntry.decode(partitions
                    .require(txn, table, HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName))
                    .value());
            ColumnStatisticsObj stats = HmsColumnStats.read(entry.columnStatistics())
                    .get(column == null ? "" : column.toLowerCase(Locale.ROOT));
            if (stats == null) {
                throw new NoSuchObjectException("No column statistics of column " + column + " of partition "
                        + partitionName + " of " + name.db() + "." + name.name());
            }
            return HmsColumnStats.statistics(
                    HmsColumnStats.desc(false, table, partitionName, entry.statisticsAnalyzed()), List.of(stats));
        });
    }

    private static List<ColumnStatisticsObj> select(Map<String, ColumnStatisticsObj> stored, List<String> columns) {
        List<ColumnStatisticsObj> result = new ArrayList<>();
        for (String column : columns == null ? List.<String>of() : columns) {
            ColumnStatisticsObj stats = stored.get(column.toLowerCase(Locale.ROOT));
            if (stats != null) {
                result.add(stats);
            }
        }
        return result;
    }

    public TableStatsResult get_table_statistics_req(TableStatsRequest request) throws TException {
        TableName name = calls.tableName(request.getCatName(), request.getDbName(), request.getTblName());
        return calls.read(Action.LOAD_TABLE, calls.tablePath(name), txn -> {
            calls.requireTable(txn, name);
            TableEntry entry = calls.findTable(txn, name.db(), name.name()).orElseThrow();
            // isStatsCompliant unset, as Hive leaves it for a table outside Hive transactions.
            return new TableStatsResult(select(HmsColumnStats.read(entry.columnStatistics()), request.getColNames()));
        });
    }

    /** Partition name → its statistics for the asked columns; partitions missing or without any are left out. */
    private Map<String, List<ColumnStatisticsObj>> partitionStatistics(
            LakeTransaction txn, TableName name, PartitionsStatsRequest request) throws TException {
        Table table = calls.requireTable(txn, name);
        Map<String, List<ColumnStatisticsObj>> result = new LinkedHashMap<>();
        List<CatalogObject> found = partitions.byNames(txn, table, request.getPartNames());
        List<String> foundNames = HmsPartitions.names(found, HmsPartitionCalls.TABLE_DEPTH);
        for (int i = 0; i < found.size(); i++) {
            List<ColumnStatisticsObj> stats = select(
                    HmsColumnStats.read(
                            PartitionEntry.decode(found.get(i).value()).columnStatistics()),
                    request.getColNames());
            if (!stats.isEmpty()) {
                result.put(foundNames.get(i), stats);
            }
        }
        return result;
    }

    public PartitionsStatsResult get_partitions_statistics_req(PartitionsStatsRequest request) throws TException {
        TableName name = calls.tableName(request.getCatName(), request.getDbName(), request.getTblName());
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            return new PartitionsStatsResult(partitionStatistics(txn, name, request));
        });
    }

    public AggrStats get_aggr_stats_for(PartitionsStatsRequest request) throws TException {
        TableName name = calls.tableName(request.getCatName(), request.getDbName(), request.getTblName());
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            List<String> asked = request.getPartNames() == null
                    ? List.of()
                    : new ArrayList<>(new LinkedHashSet<>(request.getPartNames()));
            List<String> columns = request.getColNames() == null ? List.of() : request.getColNames();
            Map<String, List<ColumnStatisticsObj>> byPartition = partitionStatistics(txn, name, request);
            long partsFound = byPartition.values().stream()
                    .filter(stats -> stats.size() == columns.size())
                    .count();
            List<ColumnStatisticsObj> aggregated = new ArrayList<>();
            for (String column : columns) {
                List<ColumnStatisticsObj> parts = new ArrayList<>();
                for (List<ColumnStatisticsObj> stats : byPartition.values()) {
                    for (ColumnStatisticsObj stat : stats) {
                        if (stat.getColName().equalsIgnoreCase(column)) {
                            parts.add(stat);
                        }
                    }
                }
                // Only what every asked partition has: Hive would extrapolate the rest, TreeCat leaves it out.
                if (!parts.isEmpty() && parts.size() == asked.size()) {
                    ColumnStatisticsObj merged = HmsColumnStats.aggregate(column.toLowerCase(Locale.ROOT), parts);
                    if (merged != null) {
                        aggregated.add(merged);
                    }
                }
            }
            return new AggrStats(aggregated, partsFound);
        });
    }

    private boolean deleteStatistics(
            TableName name, List<String> partitionNames, List<String> columns, boolean failIfNone) throws TException {
        return calls.write(Action.COMMIT_TABLE, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<Target> targets = new ArrayList<>();
            if (partitionNames == null) {
                targets.add(tableTarget(txn, name));
            } else {
                for (String partitionName : partitionNames) {
                    targets.add(Target.of(partitions.require(
                            txn, table, HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName))));
                }
            }
            boolean any = false;
            for (Target target : targets) {
                BsonDocument remaining = HmsColumnStats.withoutStatistics(target.statistics(), columns);
                if (remaining != null) {
                    target.with(remaining, target.analyzed()).stage(txn);
                    any = true;
                }
            }
            if (!any && failIfNone) {
                throw new NoSuchObjectException(
                        "No column statistics of " + (columns == null ? "any column" : "column " + columns) + " of "
                                + name.db() + "." + name.name());
            }
            return true;
        });
    }

    public boolean delete_table_column_statistics(String dbName, String tableName, String column, String engine)
            throws TException {
        return deleteStatistics(
                calls.tableName(dbName, tableName), null, column == null ? null : List.of(column), column != null);
    }

    public boolean delete_partition_column_statistics(
            String dbName, String tableName, String partitionName, String column, String engine) throws TException {
        return deleteStatistics(
                calls.tableName(dbName, tableName),
                List.of(requireNonNull(partitionName, "partName")),
                column == null ? null : List.of(column),
                column != null);
    }

    public boolean delete_column_statistics_req(DeleteColumnStatisticsRequest request) throws TException {
        TableName name = calls.tableName(request.getCat_name(), request.getDb_name(), request.getTbl_name());
        List<String> columns =
                request.isSetCol_names() && !request.getCol_names().isEmpty() ? request.getCol_names() : null;
        if (request.isTableLevel()) {
            return deleteStatistics(name, null, columns, false);
        }
        if (request.isSetPart_names() && !request.getPart_names().isEmpty()) {
            return deleteStatistics(name, request.getPart_names(), columns, false);
        }
        // Every partition of the table.
        List<String> all = calls.read(
                Action.LIST_PARTITIONS,
                calls.tablePath(name),
                txn -> HmsPartitions.names(
                        partitions.all(txn, calls.requireTable(txn, name), -1), HmsPartitionCalls.TABLE_DEPTH));
        return all.isEmpty() || deleteStatistics(name, all, columns, false);
    }
}
