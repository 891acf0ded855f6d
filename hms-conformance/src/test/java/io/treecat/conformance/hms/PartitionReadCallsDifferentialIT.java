package io.treecat.conformance.hms;

import java.util.List;
import org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByFilterRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The partition calls that read partitions, against Hive 4.0.1 and TreeCat on a table partitioned by
 * {@code (ds string, hr int)} with four partitions (one with an escaped value): every form of get and list (all,
 * partial specs, names, filter requests, by names), and Hive's name helpers, with the missing tables and partitions
 * and malformed names each refuses. Database {@code diffpart_read}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
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
    "get_partitions_by_filter_req",
    "get_partitions_by_names",
    "get_partitions_by_names_req",
    "partition_name_to_vals",
    "partition_name_to_spec",
    "partition_name_has_valid_characters"
})
class PartitionReadCallsDifferentialIT {
    private static final String DB = "diffpart_read";

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
        differential.setUp("create_table listed", (client, peer) -> {
            client.create_table(Structs.table(DB, "listed", "ds string", "hr int"));
            return null;
        });
        differential.setUp(
                "add_partitions listed",
                (client, peer) -> client.add_partitions(List.of(
                        Structs.partition(DB, "listed", "2024-01-01", "1"),
                        Structs.partition(DB, "listed", "2024-01-01", "2"),
                        Structs.partition(DB, "listed", "2024-01-02", "1"),
                        Structs.partition(DB, "listed", "us/west", "3"))));
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        differential.compare(call, description, both, values::of);
    }

    private static Differential.Call<List<String>> names(String table) {
        return (client, peer) -> client.get_partition_names(DB, table, (short) -1);
    }

    @Test
    void get() {
        String table = "listed";
        compare(
                "get_partition",
                "2024-01-01/1",
                (client, peer) -> client.get_partition(DB, table, List.of("2024-01-01", "1")));
        compare(
                "get_partition",
                "missing",
                (client, peer) -> client.get_partition(DB, table, List.of("2024-01-09", "1")));
        compare(
                "get_partition",
                "too few values",
                (client, peer) -> client.get_partition(DB, table, List.of("2024-01-01")));
        compare(
                "get_partition",
                "missing table",
                (client, peer) -> client.get_partition(DB, "missing", List.of("2024-01-01", "1")));
        compare(
                "get_partition_req",
                "2024-01-01/2",
                (client, peer) -> client.get_partition_req(PartitionRequests.inHive(
                                new GetPartitionRequest(DB, table, List.of("2024-01-01", "2"))))
                        .getPartition());
        compare(
                "get_partition_req",
                "missing",
                (client, peer) -> client.get_partition_req(PartitionRequests.inHive(
                                new GetPartitionRequest(DB, table, List.of("2024-01-09", "2"))))
                        .getPartition());
        compare(
                "get_partition_with_auth",
                "2024-01-02/1",
                (client, peer) ->
                        client.get_partition_with_auth(DB, table, List.of("2024-01-02", "1"), "someone", List.of("g")));
        compare(
                "get_partition_by_name",
                "ds=us%2Fwest/hr=3",
                (client, peer) -> client.get_partition_by_name(DB, table, "ds=us%2Fwest/hr=3"));
        compare(
                "get_partition_by_name",
                "missing",
                (client, peer) -> client.get_partition_by_name(DB, table, "ds=x/hr=1"));
        compare(
                "get_partition_by_name",
                "malformed",
                (client, peer) -> client.get_partition_by_name(DB, table, "nonsense"));
        compare("get_partitions", "all", (client, peer) -> client.get_partitions(DB, table, (short) -1));
        compare("get_partitions", "max 2", (client, peer) -> client.get_partitions(DB, table, (short) 2));
        compare("get_partitions", "missing table", (client, peer) -> client.get_partitions(DB, "missing", (short) -1));
        compare(
                "get_partitions_req",
                "all",
                (client, peer) -> client.get_partitions_req(PartitionRequests.inHive(new PartitionsRequest(DB, table)))
                        .getPartitions());
        compare(
                "get_partitions_with_auth",
                "all",
                (client, peer) -> client.get_partitions_with_auth(DB, table, (short) -1, "someone", List.of("g")));
        compare("get_partition_names", "all", names(table));
        compare("get_partition_names", "max 1", (client, peer) -> client.get_partition_names(DB, table, (short) 1));
        compare("get_partition_names", "missing table", names("missing"));
        compare(
                "fetch_partition_names_req",
                "all",
                (client, peer) ->
                        client.fetch_partition_names_req(PartitionRequests.inHive(new PartitionsRequest(DB, table))));
        compare(
                "get_partitions_ps",
                "ds=2024-01-01",
                (client, peer) -> client.get_partitions_ps(DB, table, List.of("2024-01-01"), (short) -1));
        compare(
                "get_partitions_ps",
                "any ds, hr=1",
                (client, peer) -> client.get_partitions_ps(DB, table, List.of("", "1"), (short) -1));
        compare(
                "get_partitions_ps",
                "too many values",
                (client, peer) -> client.get_partitions_ps(DB, table, List.of("a", "1", "x"), (short) -1));
        compare(
                "get_partitions_ps_with_auth",
                "ds=2024-01-01",
                (client, peer) -> client.get_partitions_ps_with_auth(
                        DB, table, List.of("2024-01-01"), (short) -1, "someone", List.of("g")));
        compare("get_partitions_ps_with_auth_req", "ds=2024-01-02", (client, peer) -> {
            GetPartitionsPsWithAuthRequest request =
                    PartitionRequests.inHive(new GetPartitionsPsWithAuthRequest(DB, table));
            request.setPartVals(List.of("2024-01-02"));
            return client.get_partitions_ps_with_auth_req(request).getPartitions();
        });
        compare("get_partitions_ps_with_auth_req", "by names", (client, peer) -> {
            GetPartitionsPsWithAuthRequest request =
                    PartitionRequests.inHive(new GetPartitionsPsWithAuthRequest(DB, table));
            request.setPartNames(List.of("ds=2024-01-02/hr=1", "ds=nothing/hr=1"));
            return client.get_partitions_ps_with_auth_req(request).getPartitions();
        });
        compare(
                "get_partition_names_ps",
                "ds=2024-01-01",
                (client, peer) -> client.get_partition_names_ps(DB, table, List.of("2024-01-01"), (short) -1));
        compare(
                "get_partition_names_ps",
                "ds=us/west",
                (client, peer) -> client.get_partition_names_ps(DB, table, List.of("us/west"), (short) -1));
        compare("get_partition_names_ps_req", "hr=1", (client, peer) -> {
            GetPartitionNamesPsRequest request = PartitionRequests.inHive(new GetPartitionNamesPsRequest(DB, table));
            request.setPartValues(List.of("", "1"));
            return client.get_partition_names_ps_req(request).getNames();
        });
        compare(
                "get_partitions_by_filter_req",
                "hr = 1",
                (client, peer) -> client.get_partitions_by_filter_req(
                        PartitionRequests.inHive(new GetPartitionsByFilterRequest(DB, table, "hr = 1"))));
        compare(
                "get_partitions_by_filter_req",
                "a bad filter",
                (client, peer) -> client.get_partitions_by_filter_req(
                        PartitionRequests.inHive(new GetPartitionsByFilterRequest(DB, table, "hr = = 1"))));
        compare(
                "get_partitions_by_names",
                "two and a missing one",
                (client, peer) -> PartitionRequests.byValues(client.get_partitions_by_names(
                        DB, table, List.of("ds=2024-01-02/hr=1", "ds=2024-01-01/hr=1", "ds=x/hr=9"))));
        compare(
                "get_partitions_by_names",
                "a malformed name",
                (client, peer) ->
                        PartitionRequests.byValues(client.get_partitions_by_names(DB, table, List.of("nonsense"))));
        compare("get_partitions_by_names_req", "two", (client, peer) -> {
            GetPartitionsByNamesRequest request = new GetPartitionsByNamesRequest(DB, table);
            request.setNames(List.of("ds=2024-01-01/hr=2", "ds=us%2Fwest/hr=3"));
            return PartitionRequests.byValues(
                    client.get_partitions_by_names_req(request).getPartitions());
        });
        compare(
                "partition_name_to_vals",
                "ds=a%2Fb/hr=1",
                (client, peer) -> client.partition_name_to_vals("ds=a%2Fb/hr=1"));
        compare("partition_name_to_vals", "empty", (client, peer) -> client.partition_name_to_vals(""));
        compare(
                "partition_name_to_spec",
                "ds=a%2Fb/hr=1",
                (client, peer) -> client.partition_name_to_spec("ds=a%2Fb/hr=1"));
        compare(
                "partition_name_to_spec",
                "no equals sign",
                (client, peer) -> client.partition_name_to_spec("nonsense"));
        compare(
                "partition_name_has_valid_characters",
                "plain",
                (client, peer) -> client.partition_name_has_valid_characters(List.of("a", "1"), false));
        compare(
                "partition_name_has_valid_characters",
                "odd characters, throw",
                (client, peer) -> client.partition_name_has_valid_characters(List.of("a/b", "\u00e9"), true));
        differential.assertAgreed("get");
    }
}
