package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dropwizard.testing.ConfigOverride;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Catalogs whose warehouses are on an S3-compatible store (S3Proxy on loopback), end to end through the real server
 * and Iceberg's own REST client: the metadata files land in the bucket through the server's S3FileIO, a failing store
 * is 503 with the store's error and commits nothing (the files it wrote deleted), an unknown scheme is 400 naming it,
 * and the keys never appear in a log line, an error body or the metrics.
 *
 * <p>The client is given the store's keys for its own data and manifest files: vended credentials and remote signing
 * come in a later slice of issue 17.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestObjectStorageWarehouses {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));

    @TempDir
    static Path directory;

    private S3ProxyServer s3;
    private TreeCatTestServer server;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<String> bodies = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        s3 = new S3ProxyServer();
        s3.createBucket("lake");
        Path secretFile = directory.resolve("lake-s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + S3ProxyServer.ACCESS_KEY + "\nsecret-access-key=" + S3ProxyServer.SECRET_KEY + "\n");
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        List<ConfigOverride> overrides = new ArrayList<>();
        overrides.add(TreeCatTestServer.logLevel("INFO"));
        overrides.addAll(catalog("lake", "s3://lake/warehouse", s3.endpoint(), secretFile));
        // A bucket that does not exist: the store answers every write with an error.
        overrides.addAll(catalog("nobucket", "s3://missing-bucket/warehouse", s3.endpoint(), secretFile));
        // Nothing listens there: the store cannot be reached.
        overrides.addAll(catalog("down", "s3://lake/down", "http://127.0.0.1:" + closedPort, secretFile));
        server = new TreeCatTestServer(directory, overrides.toArray(ConfigOverride[]::new));
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    /** One catalog's warehouse.catalogs.<name> keys; a property's own dots escaped, as Dropwizard's overrides take them. */
    private static List<ConfigOverride> catalog(String name, String location, String endpoint, Path secretFile) {
        String prefix = "warehouse.catalogs." + name + ".";
        return List.of(
                ConfigOverride.config(prefix + "location", location),
                ConfigOverride.config(prefix + "properties.s3\\.endpoint", endpoint),
                ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"),
                ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"),
                // Fail fast in a test; the default (5 retries, 2-20 s apart) rides out a real store's hiccups.
                ConfigOverride.config(prefix + "properties.s3\\.retry\\.num-retries", "1"),
                ConfigOverride.config(prefix + "properties.s3\\.retry\\.min-wait-ms", "10"),
                ConfigOverride.config(prefix + "properties.s3\\.retry\\.max-wait-ms", "20"),
                ConfigOverride.config(prefix + "credentials.source", "static"),
                ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
    }

    @AfterAll
    void stop() throws Exception {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        if (server != null) {
            server.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /** Iceberg's REST client, with its own S3FileIO on the same store (this slice has no vended credentials). */
    private RESTCatalog client(String warehouse) {
        Map<String, String> properties = new HashMap<>();
        properties.put("uri", "http://127.0.0.1:" + server.port());
        properties.put("warehouse", warehouse);
        properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("s3.endpoint", s3.endpoint());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", S3ProxyServer.ACCESS_KEY);
        properties.put("s3.secret-access-key", S3ProxyServer.SECRET_KEY);
        properties.put("client.region", "us-east-1");
        properties.put("http-client.type", "apache");
        RESTCatalog client = new RESTCatalog();
        client.initialize("treecat-" + warehouse, properties);
        return client;
    }

    private static DataFile file(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
    }

    private List<String> metadataFiles(String prefix) {
        return s3.keys("lake").stream()
                .filter(key -> key.startsWith(prefix) && key.endsWith(".metadata.json"))
                .sorted()
                .toList();
    }

    @Test
    void tablesLiveInTheBucketThroughTheServersS3FileIO() throws Exception {
        try (RESTCatalog catalog = client("lake")) {
            Namespace ns = Namespace.of("sales");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "orders");
            Table table = catalog.createTable(id, SCHEMA);
            assertThat(table.location()).isEqualTo("s3://lake/warehouse/sales/orders");
            table.newAppend().appendFile(file(table, "a")).commit();
            table.newAppend().appendFile(file(table, "b")).commit();

            Table loaded = catalog.loadTable(id);
            assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).hasSize(1);
            assertThat(loaded.snapshots()).hasSize(2);
            assertThat(((org.apache.iceberg.HasTableOperations) loaded)
                            .operations()
                            .current()
                            .metadataFileLocation())
                    .startsWith("s3://lake/warehouse/sales/orders/metadata/00002-");
            // The server wrote every metadata file (create and two appends) into the bucket; the client wrote the
            // manifests and manifest lists.
            assertThat(metadataFiles("warehouse/sales/orders/metadata/"))
                    .hasSize(3)
                    .allMatch(key -> key.matches("warehouse/sales/orders/metadata/0000[0-2]-.*\\.metadata\\.json"));
            assertThat(s3.keys("lake")).anyMatch(key -> key.startsWith("warehouse/sales/orders/metadata/snap-"));

            assertThat(catalog.dropTable(id, false)).isTrue();
            assertThat(catalog.tableExists(id)).isFalse();
        }
    }

    @Test
    void aDropWithPurgeDeletesTheTablesObjectsFromTheBucket() throws Exception {
        try (RESTCatalog catalog = client("lake")) {
            Namespace ns = Namespace.of("purged");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "clicks");
            Table table = catalog.createTable(id, SCHEMA);
            for (String name : List.of("a", "b")) {
                try (var out = table.io()
                        .newOutputFile(table.location() + "/data/" + name + ".parquet")
                        .create()) {
                    out.write(new byte[100]);
                }
                table.newAppend().appendFile(file(table, name)).commit();
            }
            catalog.createTable(TableIdentifier.of(ns, "clicks_v2"), SCHEMA);
            String prefix = "warehouse/purged/clicks/";
            assertThat(s3.keys("lake").stream().filter(key -> key.startsWith(prefix)))
                    .hasSizeGreaterThanOrEqualTo(9); // 2 data files, 2 manifests, 2 lists, 3 metadata files

            assertThat(catalog.dropTable(id, true)).isTrue();

            // The purger deletes in the background, through the catalog's S3FileIO (bulk deletes).
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (s3.keys("lake").stream().anyMatch(key -> key.startsWith(prefix)) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(s3.keys("lake")).noneMatch(key -> key.startsWith(prefix));
            // A neighbour whose location shares the text prefix "clicks" is not inside the dropped table's location.
            assertThat(s3.keys("lake")).anyMatch(key -> key.startsWith("warehouse/purged/clicks_v2/metadata/"));
        }
    }

    @Test
    void aBucketThatDoesNotExistIs503AndCommitsNothing() throws Exception {
        try (RESTCatalog catalog = client("nobucket")) {
            Namespace ns = Namespace.of("ns");
            // A namespace touches no file on an object store.
            catalog.createNamespace(ns);
            long vid = newestVid();
            assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(ns, "t"), SCHEMA))
                    .isInstanceOf(ServiceUnavailableException.class)
                    .hasMessageContaining("The catalog's object store failed")
                    .hasMessageContaining("bucket does not exist");
            assertThat(newestVid()).isEqualTo(vid);
            assertThat(catalog.tableExists(TableIdentifier.of(ns, "t"))).isFalse();
        }
        TreeCatTestServer.Reply raw =
                server.post("/v1/nobucket/namespaces/ns/tables", "{\"name\": \"t\", \"schema\": " + schemaJson() + "}");
        bodies.add(raw.body());
        assertThat(raw.status()).isEqualTo(503);
        assertThat(raw.error().get("type").asText()).isEqualTo("ServiceUnavailableException");
        assertThat(raw.error().get("message").asText()).contains("catalog=nobucket");
    }

    @Test
    void anUnreachableStoreIs503AndCommitsNothing() throws Exception {
        try (RESTCatalog catalog = client("down")) {
            Namespace ns = Namespace.of("ns");
            catalog.createNamespace(ns);
            long vid = newestVid();
            assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(ns, "t"), SCHEMA))
                    .isInstanceOf(ServiceUnavailableException.class)
                    .hasMessageContaining("The catalog's object store failed");
            assertThat(newestVid()).isEqualTo(vid);
        }
        TreeCatTestServer.Reply raw =
                server.post("/v1/down/namespaces/ns/tables", "{\"name\": \"t\", \"schema\": " + schemaJson() + "}");
        bodies.add(raw.body());
        assertThat(raw.status()).isEqualTo(503);
    }

    @Test
    void aMultiTableCommitThatFailsHalfWayDeletesTheFileItWrote() throws Exception {
        try (RESTCatalog catalog = client("lake")) {
            Namespace ns = Namespace.of("half");
            catalog.createNamespace(ns);
            Table first = catalog.createTable(TableIdentifier.of(ns, "first"), SCHEMA);
            Table second = catalog.createTable(TableIdentifier.of(ns, "second"), SCHEMA);
            List<String> before = metadataFiles("warehouse/half/");
            assertThat(before).hasSize(2);
            long vid = newestVid();

            // The first table's new metadata file is written, then the second's goes to a bucket that does not exist.
            org.apache.iceberg.Transaction one = first.newTransaction();
            one.updateProperties().set("k", "v").commit();
            org.apache.iceberg.Transaction two = second.newTransaction();
            two.updateProperties()
                    .set("write.metadata.path", "s3://missing-bucket/elsewhere")
                    .commit();
            assertThatThrownBy(() -> catalog.commitTransaction(
                            TableCommit.create(
                                    TableIdentifier.of(ns, "first"),
                                    ((org.apache.iceberg.BaseTransaction) one).startMetadata(),
                                    ((org.apache.iceberg.BaseTransaction) one).currentMetadata()),
                            TableCommit.create(
                                    TableIdentifier.of(ns, "second"),
                                    ((org.apache.iceberg.BaseTransaction) two).startMetadata(),
                                    ((org.apache.iceberg.BaseTransaction) two).currentMetadata())))
                    // Iceberg's client reads any 5xx on a commit route as "state unknown" (its CommitErrorHandler);
                    // the server's answer is the 503 with the store's error, and nothing was committed.
                    .isInstanceOf(CommitStateUnknownException.class)
                    .hasMessageContaining(
                            "503: The catalog's object store failed: The specified bucket does not exist");
            assertThat(newestVid()).isEqualTo(vid);
            assertThat(metadataFiles("warehouse/half/")).isEqualTo(before);
            assertThat(catalog.loadTable(TableIdentifier.of(ns, "first")).properties())
                    .doesNotContainKey("k");
        }
    }

    @Test
    void anUnknownSchemeIs400NamingIt() throws Exception {
        server.post("/v1/lake/namespaces", "{\"namespace\": [\"schemes\"]}");
        TreeCatTestServer.Reply reply = server.post(
                "/v1/lake/namespaces/schemes/tables",
                "{\"name\": \"t\", \"location\": \"foo://bucket/t\", \"schema\": " + schemaJson() + "}");
        bodies.add(reply.body());
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error().get("message").asText())
                .startsWith("Unsupported location scheme: foo")
                .contains("field=location");
        // A scheme the lake knows but this catalog's store does not serve: the server cannot write there.
        try (RESTCatalog catalog = client("lake")) {
            assertThatThrownBy(() -> catalog.buildTable(TableIdentifier.of("schemes", "g"), SCHEMA)
                            .withLocation("gs://bucket/g")
                            .create())
                    .isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("Unsupported location scheme: gs");
        }
    }

    /**
     * Makes a store failure of its own (so it holds whatever order JUnit runs the methods in), then checks every log
     * line since start and every error body collected so far, plus the metrics and the config response.
     */
    @Test
    void zzTheKeysAppearInNoLogLineErrorBodyOrMetric() throws Exception {
        aBucketThatDoesNotExistIs503AndCommitsNothing_bodiesOnly();
        bodies.add(server.admin("/metrics").body());
        bodies.add(server.admin("/metrics/prometheus").body());
        bodies.add(server.get("/v1/config?warehouse=lake").body());
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent event : logs.list) {
            lines.add(event.getFormattedMessage());
            for (ch.qos.logback.classic.spi.IThrowableProxy t = event.getThrowableProxy();
                    t != null;
                    t = t.getCause()) {
                lines.add(t.getClassName() + ": " + t.getMessage());
            }
        }
        assertThat(lines).as("the server logged the store failures").isNotEmpty();
        for (String text : concat(lines, bodies)) {
            assertThat(text).doesNotContain(S3ProxyServer.ACCESS_KEY).doesNotContain(S3ProxyServer.SECRET_KEY);
        }
    }

    private void aBucketThatDoesNotExistIs503AndCommitsNothing_bodiesOnly() {
        server.post("/v1/nobucket/namespaces", "{\"namespace\": [\"keys\"]}");
        TreeCatTestServer.Reply reply = server.post(
                "/v1/nobucket/namespaces/keys/tables", "{\"name\": \"t\", \"schema\": " + schemaJson() + "}");
        assertThat(reply.status()).isEqualTo(503);
        bodies.add(reply.body());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String schemaJson() {
        return "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"id\", \"required\": true,"
                + " \"type\": \"long\"}]}";
    }

    private long newestVid() {
        return server.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }
}
