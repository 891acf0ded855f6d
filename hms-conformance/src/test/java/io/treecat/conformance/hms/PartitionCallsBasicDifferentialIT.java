package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AlterPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AppendPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByFilterRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionsRequest;
import org.apache.hadoop.hive.metastore.api.RenamePartitionRequest;
import org.apache.hadoop.hive.metastore.api.RequestPartsSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The partition calls against Hive 4.0.1 and TreeCat on a table partitioned by {@code (ds string, hr int)}: every
 * form of add, append, get, list (all, partial specs, names, filter requests), alter, rename and drop, and Hive's name
 * helpers, with the missing tables and partitions and malformed values each refuses. (Partition filters themselves:
 * {@link PartitionFilterDifferentialIT}.) Database {@code diffpart}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
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
    "get_partitions_by_filter_req",
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
    "partition_name_to_spec",
    "partition_name_has_valid_characters"
})
class PartitionCallsBasicDifferentialIT {
    private static final String DB = "diffpart";
    private static final String T = "p";

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
        for (String table : List.of(T, "listed", "changed", "dropped")) {
            differential.setUp("create_table " + table, (client, peer) -> {
                client.create_table(Structs.table(DB, table, "ds string", "hr int"));
                return null;
            });
        }
        differential.setUp("create_table unpartitioned", (client, peer) -> {
            client.create_table(Structs.table(DB, "unpartitioned"));
            return null;
        });
        for (String table : List.of("listed", "changed", "dropped")) {
            differential.setUp(
                    "add_partitions " + table,
                    (client, peer) -> client.add_partitions(List.of(
                            Structs.partition(DB, table, "2024-01-01", "1"),
                            Structs.partition(DB, table, "2024-01-01", "2"),
                            Structs.partition(DB, table, "2024-01-02", "1"),
                            Structs.partition(DB, table, "us/west", "3"))));
        }
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        differential.compare(call, description, both, values::of);
    }

    /** {@code request} in catalog {@code hive}, as Hive's own client sends every request (Hive 4.0.1 fails without one). */
    private static <R extends org.apache.thrift.TBase<?, ?>> R inHive(R request) {
        try {
            request.getClass().getMethod("setCatName", String.class).invoke(request, "hive");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return request;
    }

    /** Partitions in value order: get_partitions_by_names answers in its store's order, TreeCat in the order asked. */
    private static List<Partition> byValues(List<Partition> partitions) {
        List<Partition> sorted = new ArrayList<>(partitions);
        sorted.sort(Comparator.comparing(partition -> String.join("/", partition.getValues())));
        return sorted;
    }

    private static Differential.Call<List<String>> names(String table) {
        return (client, peer) -> client.get_partition_names(DB, table, (short) -1);
    }

    @Test
    void add() {
        compare(
                "add_partition",
                "2024-01-01/1",
                (client, peer) -> client.add_partition(Structs.partition(DB, T, "2024-01-01", "1")));
        compare(
                "add_partition",
                "2024-01-01/1 again",
                (client, peer) -> client.add_partition(Structs.partition(DB, T, "2024-01-01", "1")));
        compare(
                "add_partition",
                "missing table",
                (client, peer) -> client.add_partition(Structs.partition(DB, "missing", "2024-01-01", "1")));
        compare(
                "add_partition",
                "too few values",
                (client, peer) -> client.add_partition(Structs.partition(DB, T, "2024-01-01")));
        compare(
                "add_partition",
                "too many values",
                (client, peer) -> client.add_partition(Structs.partition(DB, T, "2024-01-01", "1", "x")));
        compare(
                "add_partition",
                "unpartitioned table",
                (client, peer) -> client.add_partition(Structs.partition(DB, "unpartitioned", "x")));
        compare(
                "add_partition",
                "escaped value us/west:1",
                (client, peer) -> client.add_partition(Structs.partition(DB, T, "us/west:1", "1")));
        compare("add_partition", "no storage descriptor", (client, peer) -> {
            Partition partition = Structs.partition(DB, T, "2024-02-01", "1");
            partition.setSd(null);
            return client.add_partition(partition);
        });
        compare(
                "add_partition_with_environment_context",
                "2024-01-01/2",
                (client, peer) -> client.add_partition_with_environment_context(
                        Structs.partition(DB, T, "2024-01-01", "2"), new EnvironmentContext(new HashMap<>())));
        compare(
                "add_partitions",
                "two",
                (client, peer) -> client.add_partitions(List.of(
                        Structs.partition(DB, T, "2024-01-02", "1"), Structs.partition(DB, T, "2024-01-02", "2"))));
        compare(
                "add_partitions",
                "one new, one existing",
                (client, peer) -> client.add_partitions(List.of(
                        Structs.partition(DB, T, "2024-01-03", "1"), Structs.partition(DB, T, "2024-01-02", "2"))));
        compare("add_partitions", "none", (client, peer) -> client.add_partitions(List.of()));
        compare("add_partitions_req", "ifNotExists, needResult", (client, peer) -> {
            AddPartitionsRequest request = inHive(new AddPartitionsRequest(
                    DB,
                    T,
                    List.of(Structs.partition(DB, T, "2024-01-02", "2"), Structs.partition(DB, T, "2024-01-04", "1")),
                    true));
            request.setNeedResult(true);
            return client.add_partitions_req(request);
        });
        compare(
                "add_partitions_req",
                "existing, not ifNotExists",
                (client, peer) -> client.add_partitions_req(inHive(
                        new AddPartitionsRequest(DB, T, List.of(Structs.partition(DB, T, "2024-01-04", "1")), false))));
        compare(
                "add_partitions_req",
                "missing table",
                (client, peer) -> client.add_partitions_req(inHive(new AddPartitionsRequest(
                        DB, "missing", List.of(Structs.partition(DB, "missing", "2024-01-04", "1")), false))));
        compare(
                "append_partition",
                "2024-01-05/1",
                (client, peer) -> client.append_partition(DB, T, List.of("2024-01-05", "1")));
        compare(
                "append_partition",
                "existing",
                (client, peer) -> client.append_partition(DB, T, List.of("2024-01-05", "1")));
        compare(
                "append_partition",
                "missing table",
                (client, peer) -> client.append_partition(DB, "missing", List.of("2024-01-05", "1")));
        compare(
                "append_partition_with_environment_context",
                "2024-01-05/2",
                (client, peer) -> client.append_partition_with_environment_context(
                        DB, T, List.of("2024-01-05", "2"), new EnvironmentContext(new HashMap<>())));
        compare(
                "append_partition_by_name",
                "ds=2024-01-06/hr=1",
                (client, peer) -> client.append_partition_by_name(DB, T, "ds=2024-01-06/hr=1"));
        compare(
                "append_partition_by_name",
                "malformed name",
                (client, peer) -> client.append_partition_by_name(DB, T, "ds=2024-01-06"));
        compare(
                "append_partition_by_name",
                "escaped ds=a%2Fb/hr=1",
                (client, peer) -> client.append_partition_by_name(DB, T, "ds=a%2Fb/hr=1"));
        compare(
                "append_partition_by_name_with_environment_context",
                "ds=2024-01-06/hr=2",
                (client, peer) -> client.append_partition_by_name_with_environment_context(
                        DB, T, "ds=2024-01-06/hr=2", new EnvironmentContext(new HashMap<>())));
        compare("append_partition_req", "values", (client, peer) -> {
            AppendPartitionsRequest request = new AppendPartitionsRequest(DB, T);
            request.setPartVals(List.of("2024-01-07", "1"));
            request.setCatalogName("hive");
            return client.append_partition_req(request);
        });
        compare("append_partition_req", "name", (client, peer) -> {
            AppendPartitionsRequest request = new AppendPartitionsRequest(DB, T);
            request.setName("ds=2024-01-07/hr=2");
            return client.append_partition_req(request);
        });
        compare("get_partitions", T + " after the adds", (client, peer) -> client.get_partitions(DB, T, (short) -1));
        differential.assertAgreed("add");
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
                (client, peer) -> client.get_partition_req(
                                inHive(new GetPartitionRequest(DB, table, List.of("2024-01-01", "2"))))
                        .getPartition());
        compare(
                "get_partition_req",
                "missing",
                (client, peer) -> client.get_partition_req(
                                inHive(new GetPartitionRequest(DB, table, List.of("2024-01-09", "2"))))
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
                (client, peer) -> client.get_partitions_req(inHive(new PartitionsRequest(DB, table)))
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
                (client, peer) -> client.fetch_partition_names_req(inHive(new PartitionsRequest(DB, table))));
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
            GetPartitionsPsWithAuthRequest request = inHive(new GetPartitionsPsWithAuthRequest(DB, table));
            request.setPartVals(List.of("2024-01-02"));
            return client.get_partitions_ps_with_auth_req(request).getPartitions();
        });
        compare("get_partitions_ps_with_auth_req", "by names", (client, peer) -> {
            GetPartitionsPsWithAuthRequest request = inHive(new GetPartitionsPsWithAuthRequest(DB, table));
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
            GetPartitionNamesPsRequest request = inHive(new GetPartitionNamesPsRequest(DB, table));
            request.setPartValues(List.of("", "1"));
            return client.get_partition_names_ps_req(request).getNames();
        });
        compare(
                "get_partitions_by_filter_req",
                "hr = 1",
                (client, peer) -> client.get_partitions_by_filter_req(
                        inHive(new GetPartitionsByFilterRequest(DB, table, "hr = 1"))));
        compare(
                "get_partitions_by_filter_req",
                "a bad filter",
                (client, peer) -> client.get_partitions_by_filter_req(
                        inHive(new GetPartitionsByFilterRequest(DB, table, "hr = = 1"))));
        compare(
                "get_partitions_by_names",
                "two and a missing one",
                (client, peer) -> byValues(client.get_partitions_by_names(
                        DB, table, List.of("ds=2024-01-02/hr=1", "ds=2024-01-01/hr=1", "ds=x/hr=9"))));
        compare(
                "get_partitions_by_names",
                "a malformed name",
                (client, peer) -> byValues(client.get_partitions_by_names(DB, table, List.of("nonsense"))));
        compare("get_partitions_by_names_req", "two", (client, peer) -> {
            GetPartitionsByNamesRequest request = new GetPartitionsByNamesRequest(DB, table);
            request.setNames(List.of("ds=2024-01-01/hr=2", "ds=us%2Fwest/hr=3"));
            return byValues(client.get_partitions_by_names_req(request).getPartitions());
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

    @Test
    void alterRenameDrop() {
        String table = "changed";
        compare("alter_partition", "new parameters", done((client, peer) -> {
            Partition partition = client.get_partition(DB, table, List.of("2024-01-01", "1"));
            partition.getParameters().put("numRows", "10");
            client.alter_partition(DB, table, partition);
        }));
        compare(
                "get_partition",
                "after alter_partition",
                (client, peer) -> client.get_partition(DB, table, List.of("2024-01-01", "1")));
        compare(
                "alter_partition",
                "missing",
                done((client, peer) ->
                        client.alter_partition(DB, table, Structs.partition(DB, table, "2024-09-09", "1"))));
        compare("alter_partition_with_environment_context", "new parameters", done((client, peer) -> {
            Partition partition = client.get_partition(DB, table, List.of("2024-01-01", "2"));
            partition.getParameters().put("totalSize", "100");
            client.alter_partition_with_environment_context(
                    DB, table, partition, new EnvironmentContext(new HashMap<>()));
        }));
        compare("alter_partitions", "two", done((client, peer) -> {
            List<Partition> partitions = client.get_partitions_ps(DB, table, List.of("2024-01-01"), (short) -1);
            partitions.forEach(partition -> partition.getParameters().put("batch", "1"));
            client.alter_partitions(DB, table, partitions);
        }));
        compare(
                "alter_partitions",
                "one missing",
                done((client, peer) ->
                        client.alter_partitions(DB, table, List.of(Structs.partition(DB, table, "2024-09-09", "1")))));
        compare("alter_partitions_with_environment_context", "one", done((client, peer) -> {
            List<Partition> partitions = client.get_partitions_ps(DB, table, List.of("2024-01-02"), (short) -1);
            partitions.forEach(partition -> partition.getParameters().put("batch", "2"));
            client.alter_partitions_with_environment_context(
                    DB, table, partitions, new EnvironmentContext(new HashMap<>()));
        }));
        compare("alter_partitions_req", "one", (client, peer) -> {
            List<Partition> partitions = client.get_partitions_ps(DB, table, List.of("2024-01-02"), (short) -1);
            partitions.forEach(partition -> partition.getParameters().put("batch", "3"));
            return client.alter_partitions_req(inHive(new AlterPartitionsRequest(DB, table, partitions)));
        });
        compare("get_partitions", "after the alters", (client, peer) -> client.get_partitions(DB, table, (short) -1));
        compare("rename_partition", "2024-01-02/1 to 2024-02-02/1", done((client, peer) -> {
            Partition partition = client.get_partition(DB, table, List.of("2024-01-02", "1"));
            partition.setValues(new ArrayList<>(List.of("2024-02-02", "1")));
            client.rename_partition(DB, table, List.of("2024-01-02", "1"), partition);
        }));
        compare(
                "get_partition",
                "renamed",
                (client, peer) -> client.get_partition(DB, table, List.of("2024-02-02", "1")));
        compare("rename_partition", "onto an existing one", done((client, peer) -> {
            Partition partition = client.get_partition(DB, table, List.of("2024-02-02", "1"));
            partition.setValues(new ArrayList<>(List.of("2024-01-01", "1")));
            client.rename_partition(DB, table, List.of("2024-02-02", "1"), partition);
        }));
        compare(
                "rename_partition",
                "missing",
                done((client, peer) -> client.rename_partition(
                        DB, table, List.of("2024-09-09", "1"), Structs.partition(DB, table, "2024-09-10", "1"))));
        compare("rename_partition_req", "2024-02-02/1 to 2024-03-03/1", (client, peer) -> {
            Partition partition = client.get_partition(DB, table, List.of("2024-02-02", "1"));
            partition.setValues(new ArrayList<>(List.of("2024-03-03", "1")));
            return client.rename_partition_req(
                    inHive(new RenamePartitionRequest(DB, table, List.of("2024-02-02", "1"), partition)));
        });
        compare("get_partition_names", "after the renames", names(table));

        String dropped = "dropped";
        compare(
                "drop_partition",
                "2024-01-01/1",
                (client, peer) -> client.drop_partition(DB, dropped, List.of("2024-01-01", "1"), false));
        compare(
                "drop_partition",
                "missing",
                (client, peer) -> client.drop_partition(DB, dropped, List.of("2024-01-01", "1"), false));
        compare(
                "drop_partition",
                "too few values",
                (client, peer) -> client.drop_partition(DB, dropped, List.of("2024-01-01"), false));
        compare(
                "drop_partition_with_environment_context",
                "2024-01-01/2",
                (client, peer) -> client.drop_partition_with_environment_context(
                        DB, dropped, List.of("2024-01-01", "2"), false, new EnvironmentContext(new HashMap<>())));
        compare(
                "drop_partition_by_name",
                "ds=us%2Fwest/hr=3",
                (client, peer) -> client.drop_partition_by_name(DB, dropped, "ds=us%2Fwest/hr=3", false));
        compare(
                "drop_partition_by_name",
                "missing",
                (client, peer) -> client.drop_partition_by_name(DB, dropped, "ds=us%2Fwest/hr=3", false));
        compare(
                "drop_partition_by_name",
                "malformed",
                (client, peer) -> client.drop_partition_by_name(DB, dropped, "nonsense", false));
        compare("get_partition_names", "after the drops", names(dropped));
        differential.setUp(
                "add_partitions to drop",
                (client, peer) -> client.add_partitions(List.of(
                        Structs.partition(DB, dropped, "2024-04-01", "1"),
                        Structs.partition(DB, dropped, "2024-04-01", "2"),
                        Structs.partition(DB, dropped, "2024-04-02", "1"),
                        Structs.partition(DB, dropped, "2024-04-03", "1"))));
        compare(
                "drop_partition_by_name_with_environment_context",
                "ds=2024-04-01/hr=1",
                (client, peer) -> client.drop_partition_by_name_with_environment_context(
                        DB, dropped, "ds=2024-04-01/hr=1", false, new EnvironmentContext(new HashMap<>())));
        compare("drop_partition_req", "2024-04-01/2", (client, peer) -> {
            DropPartitionRequest request = inHive(new DropPartitionRequest(DB, dropped));
            request.setPartVals(List.of("2024-04-01", "2"));
            return client.drop_partition_req(request);
        });
        compare("drop_partition_req", "by name", (client, peer) -> {
            DropPartitionRequest request = inHive(new DropPartitionRequest(DB, dropped));
            request.setPartName("ds=2024-04-02/hr=1");
            return client.drop_partition_req(request);
        });
        compare("drop_partition_req", "missing", (client, peer) -> {
            DropPartitionRequest request = inHive(new DropPartitionRequest(DB, dropped));
            request.setPartName("ds=2024-04-02/hr=1");
            return client.drop_partition_req(request);
        });
        compare("drop_partitions_req", "by names, needResult", (client, peer) -> {
            DropPartitionsRequest request = inHive(
                    new DropPartitionsRequest(DB, dropped, RequestPartsSpec.names(List.of("ds=2024-04-03/hr=1"))));
            request.setNeedResult(true);
            return client.drop_partitions_req(request);
        });
        compare("drop_partitions_req", "missing, not ifExists", (client, peer) -> {
            DropPartitionsRequest request = inHive(
                    new DropPartitionsRequest(DB, dropped, RequestPartsSpec.names(List.of("ds=2024-04-03/hr=1"))));
            request.setIfExists(false);
            return client.drop_partitions_req(request);
        });
        compare("drop_partitions_req", "missing, ifExists", (client, peer) -> {
            DropPartitionsRequest request = inHive(
                    new DropPartitionsRequest(DB, dropped, RequestPartsSpec.names(List.of("ds=2024-04-03/hr=1"))));
            request.setIfExists(true);
            return client.drop_partitions_req(request);
        });
        compare("get_partition_names", "at the end", names(dropped));
        differential.assertAgreed("alterRenameDrop");
    }
}
