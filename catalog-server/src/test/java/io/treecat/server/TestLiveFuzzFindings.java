package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Iceberg REST findings of the live protocol fuzzer ({@link LiveProtocolFuzzIT}, docs/robustness.md "Live
 * protocol fuzzing"), reduced to the requests that showed them, against the real server over real HTTP and its HMS
 * port: Hive allows a table named {@code /} or {@code @hive#x}, and an Iceberg REST commit, {@code /plan} or
 * multi-table commit naming such a Hive table (one that is not an Iceberg table) is the client's error, never a 500.
 */
class TestLiveFuzzFindings {
    private static final String SCHEMA =
            "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"}]}";
    private static final String COMMIT =
            "{\"requirements\":[{\"type\":\"assert-table-uuid\",\"uuid\":\"00000000-0000-0000-0000-000000000000\"}],"
                    + "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}},"
                    + "{\"action\":\"set-location\",\"location\":\"/tmp/x\"}]}";
    private static final String PLAN =
            "{\"filter\":{\"type\":\"eq\",\"term\":\"a\",\"value\":1},\"select\":[\"a\"],\"case-sensitive\":true}";
    /** Hive table names the fuzzer used, as a path segment of the Iceberg REST route. */
    private static final List<String> HIVE_TABLES = List.of("/", "@hive#x", "h");

    @TempDir
    static Path directory;

    private static TreeCatTestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TreeCatTestServer(directory);
        assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\":[\"fz\"]}")
                        .status())
                .isEqualTo(200);
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            for (String name : HIVE_TABLES) {
                hive.create_table(hiveTable("fz", name));
            }
        } finally {
            socket.close();
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aCommitOrPlanOnAHiveTableIsAClientError() {
        for (String name : HIVE_TABLES) {
            String table = TreeCatTestServer.encode(name);
            // Iceberg's answer for a Hive table that is not an Iceberg table, as its HiveCatalog gives it.
            String expected = "{\"error\":{\"message\":\"Not an Iceberg table: fz." + name
                    + "\",\"type\":\"NoSuchIcebergTableException\",\"code\":404}}";
            Reply commit = server.post("/v1/warehouse/namespaces/fz/tables/" + table, COMMIT);
            assertThat(commit.status()).as("commit %s: %s", name, commit.body()).isEqualTo(404);
            assertThat(commit.body()).isEqualTo(expected);
            Reply plan = server.post("/v1/warehouse/namespaces/fz/tables/" + table + "/plan", PLAN);
            assertThat(plan.status()).as("plan %s: %s", name, plan.body()).isEqualTo(404);
            assertThat(plan.body()).isEqualTo(expected);
            Reply load = server.get("/v1/warehouse/namespaces/fz/tables/" + table);
            assertThat(load.status()).as("load %s: %s", name, load.body()).isEqualTo(404);
        }
        // A create naming a Hive table finds the name taken.
        Reply create = server.post(
                "/v1/warehouse/transactions/commit",
                "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"fz\"],\"name\":\"h\"},"
                        + "\"requirements\":[{\"type\":\"assert-create\"}],\"updates\":[]}]}");
        assertThat(create.status()).as(create.body()).isEqualTo(409);
        // The Hive tables are untouched, and the server still serves Iceberg tables.
        assertThat(server.post("/v1/warehouse/namespaces/fz/tables", "{\"name\":\"t\",\"schema\":" + SCHEMA + "}")
                        .status())
                .isEqualTo(200);
        assertThat(server.post("/v1/warehouse/namespaces/fz/tables/t/plan", PLAN)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aMultiTableCommitNamingAHiveTableIsAClientError() {
        for (String name : HIVE_TABLES) {
            Reply reply = server.post(
                    "/v1/warehouse/transactions/commit",
                    "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"fz\"],\"name\":\"" + name
                            + "\"},\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":"
                            + "{\"k\":\"v\"}}]}]}");
            assertThat(reply.status()).as("%s: %s", name, reply.body()).isEqualTo(404);
            assertThat(reply.body()).contains("NoSuchIcebergTableException", "Not an Iceberg table: fz." + name);
        }
    }

    private static Table hiveTable(String db, String name) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("a", "int", null)));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setParameters(new HashMap<>());
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setSd(sd);
        table.setPartitionKeys(List.of());
        table.setParameters(new HashMap<>());
        table.setTableType("MANAGED_TABLE");
        return table;
    }
}
