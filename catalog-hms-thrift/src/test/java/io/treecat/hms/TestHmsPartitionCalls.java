package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AddPartitionsResult;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionsResult;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.RequestPartsSpec;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableStatsRequest;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The partition calls in the forms Spark's Hive 2.3 client and Trino send (not the Hive 4 *_req
 * forms), through Hive's generated Thrift client.
 */
class TestHmsPartitionCalls {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private ThriftHiveMetastore.Client client;

    @BeforeEach
    void start() throws Exception {
        client = hms.client();
        Database db = new Database();
        db.setName("db");
        client.create_database(db);
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        Table table = new Table();
        table.setDbName("db");
        table.setTableName("t");
        table.setTableType("EXTERNAL_TABLE");
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("day", "string", null), new FieldSchema("n", "smallint", null)));
        table.setParameters(new HashMap<>());
        client.create_table(table);
    }

    private static Partition partition(String day, String n) {
        Partition partition = new Partition();
        partition.setDbName("db");
        partition.setTableName("t");
        partition.setValues(List.of(day, n));
        partition.setParameters(new HashMap<>());
        return partition;
    }

    private static List<List<String>> values(List<Partition> partitions) {
        return partitions.stream().map(Partition::getValues).toList();
    }

    @Test
    void sparkAndTrinoForms() throws Exception {
        assertThat(client.add_partitions(List.of(partition("d1", "1"), partition("d1", "2"))))
                .isEqualTo(2);
        assertThat(client.add_partition(partition("d2", "1")).getSd().getLocation())
                .endsWith("/db/t/day=d2/n=1");
        assertThat(client.append_partition_by_name("db", "t", "day=d3/n=7").getValues())
                .containsExactly("d3", "7");
        assertThat(client.append_partition("@hive#db", "t", List.of("d3", "8")).getValues())
                .containsExactly("d3", "8");
        assertThatThrownBy(() -> client.add_partition(partition("d1", "1"))).isInstanceOf(AlreadyExistsException.class);
        Partition wrongTable = partition("d9", "1");
        wrongTable.setTableName("nope");
        assertThatThrownBy(() -> client.add_partition(wrongTable)).isInstanceOf(InvalidObjectException.class);

        // add_partitions_req: ifNotExists skips what exists, needResult returns what was added.
        AddPartitionsRequest addRequest =
                new AddPartitionsRequest("db", "t", List.of(partition("d1", "1"), partition("d4", "1")), true);
        addRequest.setNeedResult(true);
        AddPartitionsResult added = client.add_partitions_req(addRequest);
        assertThat(values(added.getPartitions())).containsExactly(List.of("d4", "1"));

        assertThat(client.get_partition_names("db", "t", (short) -1))
                .containsExactly("day=d1/n=1", "day=d1/n=2", "day=d2/n=1", "day=d3/n=7", "day=d3/n=8", "day=d4/n=1");
        assertThat(values(client.get_partitions_ps_with_auth("db", "t", List.of("d3"), (short) -1, "u", List.of())))
                .containsExactly(List.of("d3", "7"), List.of("d3", "8"));
        assertThat(client.get_partition_names_ps("db", "t", List.of("", "1"), (short) -1))
                .containsExactly("day=d1/n=1", "day=d2/n=1", "day=d4/n=1");
        assertThatThrownBy(() -> client.get_partition_names_ps("db", "t", List.of("a", "b", "c"), (short) -1))
                .isInstanceOf(MetaException.class);
        assertThat(values(client.get_partitions_by_filter("db", "t", "n >= 2 and day < 'd4'", (short) -1)))
                .containsExactly(List.of("d1", "2"), List.of("d3", "7"), List.of("d3", "8"));
        assertThat(client.get_num_partitions_by_filter("db", "t", "day = 'd3'")).isEqualTo(2);
        assertThat(values(client.get_partitions_by_names("db", "t", List.of("day=d2/n=1", "day=d9/n=9"))))
                .containsExactly(List.of("d2", "1"));
        assertThat(client.get_partition_with_auth("db", "t", List.of("d2", "1"), "u", List.of())
                        .getValues())
                .containsExactly("d2", "1");
        assertThat(client.get_partitions_with_auth("db", "t", (short) 2, "u", List.of()))
                .hasSize(2);
        assertThat(client.get_partitions("db", "t", (short) -1)).hasSize(6);
        assertThat(client.get_partitions("db", "t", (short) 0)).isEmpty();
        assertThat(client.get_partition_by_name("db", "t", "day=d4/n=1").getValues())
                .containsExactly("d4", "1");
        assertThatThrownBy(() -> client.get_partitions("db", "missing", (short) -1))
                .isInstanceOf(NoSuchObjectException.class);

        // An invalid filter: a MetaException with the position; the same connection keeps working.
        assertThatThrownBy(() -> client.get_partitions_by_filter("db", "t", "day = 'd1' and and", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error parsing partition filter at position 16: expected a partition key but found 'and'");
        assertThat(client.get_partition_names("db", "t", (short) 1)).containsExactly("day=d1/n=1");

        // alter_partitions_with_environment_context (Spark) and alter_partition (Trino's basic statistics).
        Partition d1 = client.get_partition("db", "t", List.of("d1", "1"));
        d1.getParameters().put("numRows", "10");
        Partition d2 = client.get_partition("db", "t", List.of("d2", "1"));
        d2.getParameters().put("numRows", "20");
        client.alter_partitions_with_environment_context("db", "t", List.of(d1, d2), new EnvironmentContext());
        assertThat(client.get_partition("db", "t", List.of("d2", "1")).getParameters())
                .containsEntry("numRows", "20");

        // Statistics the way Trino writes and reads them.
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(false, "db", "t");
        desc.setPartName("day=d1/n=1");
        LongColumnStatsData data = new LongColumnStatsData(1, 5);
        data.setLowValue(0);
        data.setHighValue(99);
        assertThat(client.update_partition_column_statistics(new ColumnStatistics(
                        desc, List.of(new ColumnStatisticsObj("id", "bigint", ColumnStatisticsData.longStats(data))))))
                .isTrue();
        assertThat(client.get_partitions_statistics_req(new PartitionsStatsRequest(
                                "db", "t", List.of("id"), List.of("day=d1/n=1", "day=d2/n=1")))
                        .getPartStats())
                .containsOnlyKeys("day=d1/n=1");
        assertThat(client.get_partition_column_statistics("db", "t", "day=d1/n=1", "id")
                        .getStatsObj()
                        .get(0)
                        .getStatsData()
                        .getLongStats()
                        .getHighValue())
                .isEqualTo(99);
        assertThat(client.get_table_statistics_req(new TableStatsRequest("db", "t", List.of("id")))
                        .getTableStats())
                .isEmpty();
        assertThatThrownBy(() -> client.get_table_column_statistics("db", "t", "id"))
                .isInstanceOf(NoSuchObjectException.class);

        // Spark's rename_partition and drop_partition_with_environment_context.
        Partition renamed = client.get_partition("db", "t", List.of("d1", "1"));
        renamed.setValues(List.of("d1", "3"));
        client.rename_partition("db", "t", List.of("d1", "1"), renamed);
        assertThat(client.get_partition_column_statistics("db", "t", "day=d1/n=3", "id")
                        .getStatsObj())
                .hasSize(1);
        assertThat(client.get_partition("db", "t", List.of("d1", "3")).getParameters())
                .containsEntry("numRows", "10");
        assertThat(client.drop_partition_with_environment_context(
                        "db", "t", List.of("d1", "3"), false, new EnvironmentContext()))
                .isTrue();
        assertThat(client.drop_partition_by_name("db", "t", "day=d1/n=2", false))
                .isTrue();
        assertThatThrownBy(() -> client.get_partition("db", "t", List.of("d1", "2")))
                .isInstanceOf(NoSuchObjectException.class);

        // drop_partitions_req by names: ifExists tolerates a missing one, needResult returns the dropped.
        DropPartitionsRequest drop = new DropPartitionsRequest(
                "db", "t", RequestPartsSpec.names(new ArrayList<>(List.of("day=d3/n=7", "day=d3/n=8", "day=d0/n=0"))));
        drop.setIfExists(true);
        drop.setNeedResult(true);
        DropPartitionsResult dropped = client.drop_partitions_req(drop);
        assertThat(values(dropped.getPartitions())).containsExactly(List.of("d3", "7"), List.of("d3", "8"));
        DropPartitionsRequest strict =
                new DropPartitionsRequest("db", "t", RequestPartsSpec.names(List.of("day=d0/n=0")));
        strict.setIfExists(false);
        assertThatThrownBy(() -> client.drop_partitions_req(strict)).isInstanceOf(NoSuchObjectException.class);
        assertThat(client.get_partition_names("db", "t", (short) -1)).containsExactly("day=d2/n=1", "day=d4/n=1");

        // Tables by type and by filter (Trino).
        assertThat(client.get_tables_by_type("db", "*", "EXTERNAL_TABLE")).containsExactly("t");
        assertThat(client.get_table_names_by_filter(
                        "db", "hive_filter_field_tableType__ = 'EXTERNAL_TABLE'", (short) -1))
                .containsExactly("t");
        assertThat(client.partition_name_to_vals("day=a%3Db/n=1")).containsExactly("a=b", "1");
        assertThat(client.partition_name_to_spec("day=a%3Db/n=1")).isEqualTo(Map.of("day", "a=b", "n", "1"));
    }

    @Test
    void aTableRenameLosesNoConcurrentlyAddedPartition() throws Exception {
        client.add_partition(partition("a", "0"));
        TSocket adderSocket = new TSocket("127.0.0.1", hms.port());
        adderSocket.open();
        ThriftHiveMetastore.Client adder = new ThriftHiveMetastore.Client(new TBinaryProtocol(adderSocket));
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(20);
        List<String> added = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread adding = new Thread(() -> {
            for (int i = 1; i <= 300; i++) {
                try {
                    adder.add_partition(partition("a", Integer.toString(i)));
                    added.add("day=a/n=" + i);
                } catch (Exception e) {
                    // After the rename the table is gone (InvalidObjectException), or a commit conflicted: not added.
                }
                started.countDown();
            }
        });
        adding.start();
        started.await();
        Table renamed = client.get_table_req(new org.apache.hadoop.hive.metastore.api.GetTableRequest("db", "t"))
                .getTable();
        renamed.setTableName("t2");
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                client.alter_table_with_environment_context("db", "t", renamed, new EnvironmentContext());
                break;
            } catch (MetaException e) {
                assertThat(e.getMessage()).startsWith("Commit conflict");
            }
        }
        adding.join();
        adderSocket.close();
        List<String> names = client.get_partition_names("db", "t2", (short) -1);
        assertThat(names).contains("day=a/n=0").containsAll(added);
        assertThat(names).hasSize(added.size() + 1);
        System.out.println("Rename after " + attempts + " attempt(s); " + added.size()
                + " partitions added concurrently, all moved");
    }

    @Test
    void everyDelegateMatchesAThriftCall() {
        // A signature that does not match the Iface exactly would silently stay UNKNOWN_METHOD.
        assertThat(TreeCatHmsServer.servedCalls())
                .contains(
                        "add_partition",
                        "add_partition_with_environment_context",
                        "add_partitions",
                        "add_partitions_req",
                        "append_partition",
                        "append_partition_with_environment_context",
                        "append_partition_by_name",
                        "append_partition_by_name_with_environment_context",
                        "append_partition_req",
                        "get_partition",
                        "get_partition_req",
                        "get_partition_with_auth",
                        "get_partition_by_name",
                        "get_partitions",
                        "get_partitions_req",
                        "get_partitions_with_auth",
                        "get_partition_names",
                        "fetch_partition_names_req",
                        "get_partitions_ps",
                        "get_partitions_ps_with_auth",
                        "get_partitions_ps_with_auth_req",
                        "get_partition_names_ps",
                        "get_partition_names_ps_req",
                        "get_partitions_by_filter",
                        "get_partitions_by_filter_req",
                        "get_num_partitions_by_filter",
                        "get_partitions_by_names",
                        "get_partitions_by_names_req",
                        "alter_partition",
                        "alter_partition_with_environment_context",
                        "alter_partitions",
                        "alter_partitions_with_environment_context",
                        "alter_partitions_req",
                        "rename_partition",
                        "rename_partition_req",
                        "drop_partition",
                        "drop_partition_with_environment_context",
                        "drop_partition_by_name",
                        "drop_partition_by_name_with_environment_context",
                        "drop_partition_req",
                        "drop_partitions_req",
                        "partition_name_to_vals",
                        "partition_name_has_valid_characters",
                        "get_table_names_by_filter",
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
                        "delete_column_statistics_req")
                .doesNotContain(
                        "get_partitions_by_expr",
                        "get_partitions_spec_by_expr",
                        "get_partition_names_req",
                        "add_dynamic_partitions");
    }
}
