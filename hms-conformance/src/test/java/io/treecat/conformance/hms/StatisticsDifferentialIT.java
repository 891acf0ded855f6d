package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsResult;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.StringColumnStatsData;
import org.apache.hadoop.hive.metastore.api.TableStatsRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Column statistics against Hive 4.0.1 and TreeCat, on a table {@code (id bigint, payload string)} partitioned by
 * {@code ds string}: updates of table and partitions (four forms and {@code set_aggr_stats_for}), the reads (single
 * column, requests, aggregation over partitions), deletes, and what each refuses (a column the table lacks, a missing
 * table or partition). Database {@code diffstats}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "update_table_column_statistics",
    "update_partition_column_statistics",
    "update_table_column_statistics_req",
    "update_partition_column_statistics_req",
    "set_aggr_stats_for",
    "get_table_column_statistics",
    "get_partition_column_statistics",
    "get_table_statistics_req",
    "get_partitions_statistics_req",
    "get_aggr_stats_for",
    "delete_table_column_statistics",
    "delete_partition_column_statistics",
    "get_table_req"
})
class StatisticsDifferentialIT {
    private static final String DB = "diffstats";
    private static final String T = "t";
    private static final String ENGINE = "hive";

    private static Differential differential;
    private static HmsValues values;

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
        differential.setUp("create_database " + DB, (client, peer) -> {
            client.create_database(Structs.database(DB));
            return null;
        });
        differential.setUp("create_table " + T, (client, peer) -> {
            client.create_table(Structs.table(DB, T, "ds string"));
            return null;
        });
        differential.setUp("create_table flat", (client, peer) -> {
            client.create_table(Structs.table(DB, "flat"));
            return null;
        });
        differential.setUp(
                "add_partitions",
                (client, peer) -> client.add_partitions(List.of(
                        Structs.partition(DB, T, "a"), Structs.partition(DB, T, "b"), Structs.partition(DB, T, "c"))));
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        differential.compare(call, description, both, values::of);
    }

    /** Each partition's statistics in column order: Hive answers them in its store's order, which says nothing. */
    private static PartitionsStatsResult byColumn(PartitionsStatsResult result) {
        result.getPartStats()
                .values()
                .forEach(columns -> columns.sort(Comparator.comparing(ColumnStatisticsObj::getColName)));
        return result;
    }

    private static ColumnStatistics statistics(String table, String partition, long low, long high, long nulls) {
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(partition == null, DB, table);
        if (partition != null) {
            desc.setPartName(partition);
        }
        desc.setLastAnalyzed(1_700_000_000L);
        LongColumnStatsData longs = new LongColumnStatsData(nulls, high - low + 1);
        longs.setLowValue(low);
        longs.setHighValue(high);
        StringColumnStatsData strings = new StringColumnStatsData(20, 7.5, nulls, 3);
        List<ColumnStatisticsObj> objects = new ArrayList<>(List.of(
                new ColumnStatisticsObj("id", "bigint", ColumnStatisticsData.longStats(longs)),
                new ColumnStatisticsObj("payload", "string", ColumnStatisticsData.stringStats(strings))));
        ColumnStatistics statistics = new ColumnStatistics(desc, objects);
        statistics.setEngine(ENGINE);
        return statistics;
    }

    private static ColumnStatistics onColumn(ColumnStatistics statistics, String column, String type) {
        statistics.getStatsObj().get(0).setColName(column);
        statistics.getStatsObj().get(0).setColType(type);
        return statistics;
    }

    private static SetPartitionsStatsRequest request(ColumnStatistics... statistics) {
        SetPartitionsStatsRequest request = new SetPartitionsStatsRequest(new ArrayList<>(List.of(statistics)));
        request.setEngine(ENGINE);
        return request;
    }

    private static TableStatsRequest tableRequest(String table, List<String> columns) {
        TableStatsRequest request = new TableStatsRequest(DB, table, columns);
        request.setEngine(ENGINE);
        return request;
    }

    private static PartitionsStatsRequest partitionsRequest(List<String> columns, List<String> partitions) {
        PartitionsStatsRequest request = new PartitionsStatsRequest(DB, T, columns, partitions);
        request.setEngine(ENGINE);
        return request;
    }

    @Test
    void tableStatistics() {
        compare(
                "update_table_column_statistics",
                "flat: id and payload",
                (client, peer) -> client.update_table_column_statistics(statistics("flat", null, 1, 100, 0)));
        compare(
                "get_table_statistics_req",
                "flat: id, payload, missing",
                (client, peer) ->
                        client.get_table_statistics_req(tableRequest("flat", List.of("id", "payload", "missing"))));
        compare(
                "get_table_column_statistics",
                "flat.id",
                (client, peer) -> client.get_table_column_statistics(DB, "flat", "id"));
        compare(
                "get_table_column_statistics",
                "flat.missing",
                (client, peer) -> client.get_table_column_statistics(DB, "flat", "missing"));
        compare("get_table_req", "flat after the statistics", (client, peer) -> {
            GetTableRequest request = new GetTableRequest(DB, "flat");
            request.setCatName("hive");
            return client.get_table_req(request).getTable();
        });
        compare(
                "update_table_column_statistics",
                "a column the table lacks",
                (client, peer) -> client.update_table_column_statistics(
                        onColumn(statistics("flat", null, 1, 2, 0), "nope", "bigint")));
        compare(
                "update_table_column_statistics",
                "missing table",
                (client, peer) -> client.update_table_column_statistics(statistics("missing", null, 1, 2, 0)));
        compare(
                "update_table_column_statistics_req",
                "flat: new id range",
                (client, peer) ->
                        client.update_table_column_statistics_req(request(statistics("flat", null, 5, 50, 1))));
        compare(
                "get_table_statistics_req",
                "flat after the _req update",
                (client, peer) -> client.get_table_statistics_req(tableRequest("flat", List.of("id", "payload"))));
        compare(
                "delete_table_column_statistics",
                "flat.payload",
                (client, peer) -> client.delete_table_column_statistics(DB, "flat", "payload", ENGINE));
        compare(
                "get_table_statistics_req",
                "flat after deleting payload",
                (client, peer) -> client.get_table_statistics_req(tableRequest("flat", List.of("id", "payload"))));
        compare(
                "delete_table_column_statistics",
                "flat.payload again",
                (client, peer) -> client.delete_table_column_statistics(DB, "flat", "payload", ENGINE));
        compare(
                "delete_table_column_statistics",
                "flat, every column",
                (client, peer) -> client.delete_table_column_statistics(DB, "flat", null, ENGINE));
        compare(
                "get_table_statistics_req",
                "flat after deleting all",
                (client, peer) -> client.get_table_statistics_req(tableRequest("flat", List.of("id", "payload"))));
        compare(
                "get_table_statistics_req",
                "missing table",
                (client, peer) -> client.get_table_statistics_req(tableRequest("missing", List.of("id"))));
        differential.assertAgreed("tableStatistics");
    }

    @Test
    void partitionStatistics() {
        compare(
                "update_partition_column_statistics",
                "ds=a",
                (client, peer) -> client.update_partition_column_statistics(statistics(T, "ds=a", 1, 10, 0)));
        compare(
                "update_partition_column_statistics_req",
                "ds=b",
                (client, peer) ->
                        client.update_partition_column_statistics_req(request(statistics(T, "ds=b", 5, 20, 2))));
        compare(
                "update_partition_column_statistics",
                "missing partition",
                (client, peer) -> client.update_partition_column_statistics(statistics(T, "ds=z", 1, 10, 0)));
        compare(
                "update_partition_column_statistics",
                "a column the table lacks",
                (client, peer) -> client.update_partition_column_statistics(
                        onColumn(statistics(T, "ds=a", 1, 2, 0), "nope", "bigint")));
        compare(
                "set_aggr_stats_for",
                "ds=c",
                (client, peer) -> client.set_aggr_stats_for(request(statistics(T, "ds=c", 0, 3, 1))));
        compare(
                "get_partition_column_statistics",
                "ds=a id",
                (client, peer) -> client.get_partition_column_statistics(DB, T, "ds=a", "id"));
        compare(
                "get_partition_column_statistics",
                "ds=z id",
                (client, peer) -> client.get_partition_column_statistics(DB, T, "ds=z", "id"));
        compare(
                "get_partitions_statistics_req",
                "a, b, c, z: id and payload",
                (client, peer) -> byColumn(client.get_partitions_statistics_req(
                        partitionsRequest(List.of("id", "payload"), List.of("ds=a", "ds=b", "ds=c", "ds=z")))));
        compare(
                "get_aggr_stats_for",
                "a, b, c: id and payload",
                (client, peer) -> client.get_aggr_stats_for(
                        partitionsRequest(List.of("id", "payload"), List.of("ds=a", "ds=b", "ds=c"))));
        compare(
                "get_aggr_stats_for",
                "a and b: id",
                (client, peer) -> client.get_aggr_stats_for(partitionsRequest(List.of("id"), List.of("ds=a", "ds=b"))));
        compare(
                "get_aggr_stats_for",
                "no partitions",
                (client, peer) -> client.get_aggr_stats_for(partitionsRequest(List.of("id"), List.of())));
        compare(
                "delete_partition_column_statistics",
                "ds=a id",
                (client, peer) -> client.delete_partition_column_statistics(DB, T, "ds=a", "id", ENGINE));
        compare(
                "delete_partition_column_statistics",
                "ds=a id again",
                (client, peer) -> client.delete_partition_column_statistics(DB, T, "ds=a", "id", ENGINE));
        compare(
                "delete_partition_column_statistics",
                "missing partition",
                (client, peer) -> client.delete_partition_column_statistics(DB, T, "ds=z", "id", ENGINE));
        compare(
                "get_partitions_statistics_req",
                "after the delete",
                (client, peer) -> byColumn(client.get_partitions_statistics_req(
                        partitionsRequest(List.of("id", "payload"), List.of("ds=a", "ds=b")))));
        differential.assertAgreed("partitionStatistics");
    }
}
