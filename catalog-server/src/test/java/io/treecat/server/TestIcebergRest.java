package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Iceberg's own REST client against a real TreeCat server: the calls Spark, Trino and PyIceberg make. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergRest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RESTCatalog client() {
        return server.icebergClient();
    }

    private static DataFile file(Table table, String name, String day) {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .withPartitionPath("day=" + day)
                .build();
    }

    @Test
    void namespacesTablesAppendsSchemaChangesAndDrops() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace retail = Namespace.of("retail");
            Namespace sales = Namespace.of("retail", "sales");
            catalog.createNamespace(retail, new HashMap<>(Map.of("owner", "ann")));
            catalog.createNamespace(sales);
            assertThatThrownBy(() -> catalog.createNamespace(retail))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageContaining("Namespace already exists");
            assertThat(catalog.listNamespaces()).contains(retail);
            assertThat(catalog.listNamespaces(retail)).containsExactly(sales);
            assertThat(catalog.namespaceExists(sales)).isTrue();
            assertThat(catalog.namespaceExists(Namespace.of("nope"))).isFalse();
            catalog.setProperties(retail, new HashMap<>(Map.of("team", "bi")));
            catalog.removeProperties(retail, new HashSet<>(Set.of("owner")));
            assertThat(catalog.loadNamespaceMetadata(retail))
                    .containsEntry("team", "bi")
                    .doesNotContainKey("owner");
            // No location was set: the default one is answered (Trino creates tables under it).
            assertThat(catalog.loadNamespaceMetadata(sales).get("location"))
                    .startsWith("file:")
                    .endsWith("/warehouse/retail/sales");
            assertThat(directory.resolve("warehouse/warehouse/retail/sales")).isDirectory();

            TableIdentifier orders = TableIdentifier.of(sales, "orders");
            Table table = catalog.createTable(orders, SCHEMA, SPEC);
            assertThat(table.location()).startsWith("file:");
            assertThatThrownBy(() -> catalog.createTable(orders, SCHEMA, SPEC))
                    .isInstanceOf(AlreadyExistsException.class);
            table.newAppend().appendFile(file(table, "f1", "2025-01-01")).commit();

            Table loaded = catalog.loadTable(orders);
            assertThat(loaded.currentSnapshot()).isNotNull();
            assertThat(loaded.currentSnapshot().summary()).containsEntry("added-data-files", "1");
            assertThat(loaded.spec().fields()).hasSize(1);

            loaded.updateSchema().addColumn("price", Types.DoubleType.get()).commit();
            assertThat(catalog.loadTable(orders).schema().findField("price")).isNotNull();
            assertThat(catalog.listTables(sales)).containsExactly(orders);
            assertThat(catalog.tableExists(orders)).isTrue();

            assertThatThrownBy(() -> catalog.dropNamespace(sales)).isInstanceOf(NamespaceNotEmptyException.class);
            TableIdentifier renamed = TableIdentifier.of(retail, "orders_v2");
            catalog.renameTable(orders, renamed);
            assertThat(catalog.tableExists(orders)).isFalse();
            assertThat(catalog.loadTable(renamed).currentSnapshot().snapshotId())
                    .isEqualTo(loaded.currentSnapshot().snapshotId());
            assertThat(catalog.dropTable(renamed, true)).isTrue();
            assertThatThrownBy(() -> catalog.loadTable(renamed)).isInstanceOf(NoSuchTableException.class);
            assertThat(catalog.dropNamespace(sales)).isTrue();
            assertThatThrownBy(() -> catalog.loadNamespaceMetadata(sales)).isInstanceOf(NoSuchNamespaceException.class);
        }
    }

    @Test
    void aDropWithPurgeDeletesTheTablesFilesInTheBackgroundAndNothingOutsideItsLocation() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("purged");
            catalog.createNamespace(ns);
            TableIdentifier events = TableIdentifier.of(ns, "events");
            Table table = catalog.createTable(events, SCHEMA, SPEC);
            Path tableDirectory = Path.of(URI.create(table.location()));
            Path outside = Files.writeString(directory.resolve("shared-file.parquet"), "someone else's rows");
            for (String day : List.of("2025-01-01", "2025-01-02")) {
                Path data = tableDirectory.resolve("data/day=" + day + "/f.parquet");
                Files.createDirectories(data.getParent());
                Files.writeString(data, "rows");
                table.newAppend().appendFile(file(table, "f", day)).commit();
            }
            table.newAppend()
                    .appendFile(DataFiles.builder(table.spec())
                            .withPath(outside.toUri().toString())
                            .withFileSizeInBytes(19)
                            .withRecordCount(1)
                            .withPartitionPath("day=2025-01-03")
                            .build())
                    .commit();
            assertThat(regularFiles(tableDirectory)).hasSizeGreaterThan(8);
            long completedBefore = gauge("treecat.purge.completed");

            assertThat(catalog.dropTable(events, true)).isTrue();

            // The drop answers once it committed; the files go right after, on the purger's thread.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            // Finished when its queue entry is gone, a moment after the last file.
            while (gauge("treecat.purge.completed") == completedBefore && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(gauge("treecat.purge.completed")).isEqualTo(completedBefore + 1);
            assertThat(regularFiles(tableDirectory)).isEmpty();
            assertThat(outside).exists();
            assertThat(gauge("treecat.purge.queued")).isZero();
        }
    }

    private static List<Path> regularFiles(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private long gauge(String name) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return TreeCatTestServer.JSON
                .readTree(response.body())
                .get("gauges")
                .get(name)
                .get("value")
                .asLong();
    }

    @Test
    void stagedCreateAndMultiTableTransactionCommitTogether() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("multi");
            catalog.createNamespace(ns);
            TableIdentifier a = TableIdentifier.of(ns, "a");
            TableIdentifier b = TableIdentifier.of(ns, "b");
            Transaction create =
                    catalog.buildTable(a, SCHEMA).withPartitionSpec(SPEC).createTransaction();
            create.newAppend()
                    .appendFile(file(create.table(), "staged", "2025-01-02"))
                    .commit();
            create.commitTransaction();
            catalog.createTable(b, SCHEMA);

            Table tableA = catalog.loadTable(a);
            Table tableB = catalog.loadTable(b);
            assertThat(tableA.currentSnapshot()).isNotNull();
            TableMetadata baseA = ((BaseTable) tableA).operations().current();
            TableMetadata baseB = ((BaseTable) tableB).operations().current();
            catalog.commitTransaction(
                    TableCommit.create(
                            a,
                            baseA,
                            TableMetadata.buildFrom(baseA)
                                    .setProperties(new HashMap<>(Map.of("k", "1")))
                                    .build()),
                    TableCommit.create(
                            b,
                            baseB,
                            TableMetadata.buildFrom(baseB)
                                    .setProperties(new HashMap<>(Map.of("k", "1")))
                                    .build()));
            assertThat(catalog.loadTable(a).properties()).containsEntry("k", "1");
            assertThat(catalog.loadTable(b).properties()).containsEntry("k", "1");

            // Someone adds a column to b; a schema change from b's old base must now fail, and with it the whole
            // commit.
            catalog.loadTable(b)
                    .updateSchema()
                    .addColumn("x", Types.IntegerType.get())
                    .commit();
            Schema staleSchema = new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "day", Types.StringType.get()),
                    Types.NestedField.optional(3, "y", Types.IntegerType.get()));
            TableMetadata freshA =
                    ((BaseTable) catalog.loadTable(a)).operations().current();
            assertThatThrownBy(() -> catalog.commitTransaction(
                            TableCommit.create(
                                    a,
                                    freshA,
                                    TableMetadata.buildFrom(freshA)
                                            .setProperties(new HashMap<>(Map.of("k", "2")))
                                            .build()),
                            TableCommit.create(
                                    b,
                                    baseB,
                                    TableMetadata.buildFrom(baseB)
                                            .setCurrentSchema(staleSchema, 3)
                                            .build())))
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed");
            assertThat(catalog.loadTable(a).properties()).containsEntry("k", "1");
            assertThat(catalog.loadTable(b).properties()).containsEntry("k", "1");
            assertThat(catalog.loadTable(b).schema().findField("y")).isNull();
        }
    }

    @Test
    void concurrentAppendsAllLand() throws Exception {
        TableIdentifier events = TableIdentifier.of(Namespace.of("busy"), "events");
        try (RESTCatalog setup = client()) {
            setup.createNamespace(events.namespace());
            setup.createTable(
                    events,
                    SCHEMA,
                    SPEC,
                    // Opted out of the server's rebase (on by default, TestIcebergRebase): this is the client's own
                    // retry.
                    new HashMap<>(Map.of(
                            "commit.retry.num-retries",
                            "50",
                            "commit.retry.min-wait-ms",
                            "5",
                            "treecat.rebase-appends",
                            "false")));
        }
        // Two clients hold the same base: the loser gets 409, refreshes and retries.
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            Table first = one.loadTable(events);
            Table second = two.loadTable(events);
            first.newAppend().appendFile(file(first, "one", "2025-01-01")).commit();
            second.newAppend().appendFile(file(second, "two", "2025-01-01")).commit();

            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (RESTCatalog client : List.of(one, two)) {
                    writers.add(pool.submit(() -> {
                        Table table = client.loadTable(events);
                        for (int i = 0; i < 8; i++) {
                            table.newAppend()
                                    .appendFile(file(table, client.hashCode() + "-" + i, "2025-01-0" + (1 + i % 3)))
                                    .commit();
                        }
                        return null;
                    }));
                }
                for (Future<?> writer : writers) {
                    writer.get();
                }
            } finally {
                pool.shutdown();
            }
            Table result = one.loadTable(events);
            assertThat(result.currentSnapshot().summary()).containsEntry("total-data-files", "18");
        }
    }

    @Test
    void pagesAndRegisters() throws Exception {
        Namespace paged = Namespace.of("paged");
        try (RESTCatalog catalog = client()) {
            catalog.createNamespace(paged);
            for (String name : List.of("t1", "t2", "t3")) {
                catalog.createTable(TableIdentifier.of(paged, name), SCHEMA);
                catalog.createNamespace(Namespace.of("paged", "n" + name));
            }
        }
        RESTCatalog small = server.icebergClient("treecat", Map.of("rest-page-size", "1"));
        try (small) {
            assertThat(small.listTables(paged))
                    .extracting(TableIdentifier::name)
                    .containsExactly("t1", "t2", "t3");
            assertThat(small.listNamespaces(paged)).hasSize(3);
        }
        TreeCatTestServer.Reply page = server.get("/v1/warehouse/namespaces/paged/tables?pageSize=2");
        assertThat(page.json().get("identifiers")).hasSize(2);
        assertThat(page.json().get("next-page-token").asText()).isNotEmpty();

        try (RESTCatalog catalog = client()) {
            Table t1 = catalog.loadTable(TableIdentifier.of(paged, "t1"));
            String metadata = ((BaseTable) t1).operations().current().metadataFileLocation();
            catalog.dropTable(TableIdentifier.of(paged, "t1"), false);
            Table registered = catalog.registerTable(TableIdentifier.of(paged, "again"), metadata);
            assertThat(registered.uuid()).isEqualTo(t1.uuid());
            assertThatThrownBy(() -> catalog.registerTable(TableIdentifier.of(paged, "again"), metadata))
                    .isInstanceOf(AlreadyExistsException.class);
            // overwrite=true points an existing table at another metadata file; a view or a missing table is not a
            // target of it.
            Table t2 = catalog.loadTable(TableIdentifier.of(paged, "t2"));
            String otherMetadata = ((BaseTable) t2).operations().current().metadataFileLocation();
            TreeCatTestServer.Reply overwritten = server.post(
                    "/v1/warehouse/namespaces/paged/register",
                    "{\"name\": \"again\", \"metadata-location\": \"" + otherMetadata + "\", \"overwrite\": true}");
            assertThat(overwritten.status()).isEqualTo(200);
            assertThat(catalog.loadTable(TableIdentifier.of(paged, "again")).uuid())
                    .isEqualTo(t2.uuid());
        }
    }

    @Test
    void badInputGetsIcebergErrorModel() {
        TreeCatTestServer.Reply config = server.get("/v1/config");
        assertThat(config.status()).isEqualTo(200);
        assertThat(config.json().get("overrides").get("prefix").asText()).isEqualTo("warehouse");
        assertThat(config.json().get("endpoints").toString())
                .contains(
                        "POST /v1/{prefix}/transactions/commit",
                        "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
                        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan");

        assertError(server.post("/v1/warehouse/namespaces", "{not json"), 400, "BadRequestException");
        assertError(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"odd ns/with'chars\"]}"), 200, null);
        assertThat(server.get("/v1/warehouse/namespaces/odd%20ns%2Fwith'chars").status())
                .isEqualTo(200);
        assertError(
                server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"odd ns/with'chars\", \"inner\"]}"),
                200,
                null);
        assertThat(server.get("/v1/warehouse/namespaces/odd%20ns%2Fwith'chars%1Finner")
                        .status())
                .isEqualTo(200);
        assertThat(server.get("/v1/warehouse/namespaces?parent=odd%20ns%2Fwith'chars")
                        .json()
                        .get("namespaces")
                        .toString())
                .contains("inner");
        assertError(
                server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"odd ns/with'chars\"]}"),
                409,
                "AlreadyExistsException");
        assertError(server.get("/v1/warehouse/namespaces/missing"), 404, "NoSuchNamespaceException");
        assertError(server.get("/v1/warehouse/namespaces/missing/tables/t"), 404, "NoSuchTableException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/missing/tables/t",
                        "{\"requirements\": [], \"updates\": [{\"action\": \"frobnicate\"}]}"),
                400,
                "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/missing/tables/t",
                        "{\"requirements\": [{\"type\": \"assert-nothing\"}], \"updates\": []}"),
                400,
                "BadRequestException");
        assertError(server.get("/v1/warehouse/nowhere"), 404, "NotFoundException");
        assertError(server.get("/v1/warehouse/namespaces/missing/views"), 404, "NoSuchNamespaceException");
        assertError(server.post("/v1/warehouse/namespaces/missing/tables/t/plan", "{}"), 404, "NoSuchTableException");
        assertError(server.delete("/v1/warehouse/namespaces/odd%20ns%2Fwith'chars"), 409, "NamespaceNotEmptyException");
        // The native API keeps its own error table.
        assertThat(server.get("/treecat/v1/nowhere").error().get("type").asText())
                .isEqualTo("NOT_FOUND");
    }

    private static void assertError(TreeCatTestServer.Reply reply, int status, String type) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        if (type != null) {
            assertThat(reply.contentType()).startsWith("application/json");
            assertThat(reply.error().get("type").asText()).as(reply.body()).isEqualTo(type);
            assertThat(reply.error().get("code").asInt()).isEqualTo(status);
        }
    }
}
