package io.treecat.server;

import static io.treecat.server.TestIcebergViews.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The protocol details of the Iceberg REST spec against a real server: ETag / If-None-Match, snapshots=refs, credentials, metrics, Idempotency-Key. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergRestProtocol {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final String COMMIT_REPORT =
            "{\"report-type\": \"commit-report\", \"table-name\": \"proto.events\", \"snapshot-id\": 1,"
                    + " \"sequence-number\": 1, \"operation\": \"append\", \"metrics\": {}}";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
        try (RESTCatalog catalog = client(Map.of())) {
            catalog.createNamespace(Namespace.of("proto"));
        }
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RESTCatalog client(Map<String, String> extra) {
        return server.icebergClient("treecat", extra);
    }

    private static void append(Table table, String name) {
        DataFile file = DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
        table.newAppend().appendFile(file).commit();
    }

    /**
     * A table body goes out gzip-compressed to a client that takes gzip (Iceberg's and PyIceberg's HTTP
     * clients do), with the same JSON and ETag as uncompressed; a client that does not take gzip gets it
     * plain.
     */
    @Test
    void tableBodiesAreCompressedForClientsThatTakeGzip() throws Exception {
        String path = "/v1/warehouse/namespaces/proto/tables/zipped";
        try (RESTCatalog catalog = client(Map.of())) {
            Table table = catalog.createTable(TableIdentifier.of("proto", "zipped"), SCHEMA);
            append(table, "a");
            // Iceberg's own client still reads the table's answers (compressed if its HTTP client asks for gzip).
            assertThat(catalog.loadTable(TableIdentifier.of("proto", "zipped"))
                            .currentSnapshot()
                            .addedDataFiles(table.io()))
                    .hasSize(1);
        }
        TreeCatTestServer.RawReply plain = server.getRaw(path);
        assertThat(plain.status()).isEqualTo(200);
        assertThat(plain.header("Content-Encoding")).isNull();
        assertThat(plain.header("Vary")).isEqualToIgnoringCase("Accept-Encoding");
        String json = new String(plain.body(), StandardCharsets.UTF_8);
        assertThat(json).contains("\"metadata-location\"");

        for (String accept : List.of("gzip", "gzip, deflate", "deflate;q=1, gzip;q=0.5", "x-gzip")) {
            TreeCatTestServer.RawReply zipped = server.getRaw(path, "Accept-Encoding", accept);
            assertThat(zipped.status()).isEqualTo(200);
            assertThat(zipped.header("Content-Encoding")).as(accept).isEqualTo("gzip");
            assertThat(zipped.header("Vary")).isEqualToIgnoringCase("Accept-Encoding");
            assertThat(zipped.header("ETag")).isEqualTo(plain.header("ETag"));
            assertThat(zipped.body().length).isLessThan(plain.body().length);
            assertThat(Long.parseLong(zipped.header("Content-Length"))).isEqualTo(zipped.body().length);
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(zipped.body()))) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .isEqualTo(json);
            }
        }
        assertThat(server.getRaw(path, "Accept-Encoding", "gzip;q=0").header("Content-Encoding"))
                .isNull();
        assertThat(server.getRaw(path, "Accept-Encoding", "identity").header("Content-Encoding"))
                .isNull();
    }

    @Test
    void etagsAnswerNotModifiedUntilTheTableChanges() throws Exception {
        String path = "/v1/warehouse/namespaces/proto/tables/tagged";
        try (RESTCatalog catalog = client(Map.of())) {
            Table table = catalog.createTable(TableIdentifier.of("proto", "tagged"), SCHEMA);
            append(table, "a");
            append(table, "b");
        }
        TreeCatTestServer.Reply all = server.get(path);
        String etag = all.header("ETag");
        assertThat(etag).isNotBlank();
        assertThat(all.json().get("metadata").get("snapshots")).hasSize(2);

        TreeCatTestServer.Reply notModified = server.send("GET", path, null, "If-None-Match", etag);
        assertThat(notModified.status()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertThat(server.send("GET", path, null, "If-None-Match", "\"other\", " + etag)
                        .status())
                .isEqualTo(304);
        assertThat(server.send("GET", path, null, "If-None-Match", "\"other\"").status())
                .isEqualTo(200);

        // snapshots=refs: only what a branch or tag references (main's head), and its own tag.
        TreeCatTestServer.Reply refs = server.get(path + "?snapshots=refs");
        assertThat(refs.json().get("metadata").get("snapshots")).hasSize(1);
        assertThat(refs.json()
                        .get("metadata")
                        .get("snapshots")
                        .get(0)
                        .get("snapshot-id")
                        .asLong())
                .isEqualTo(all.json().get("metadata").get("current-snapshot-id").asLong());
        assertThat(refs.header("ETag")).isNotEqualTo(etag);
        assertThat(server.send("GET", path + "?snapshots=refs", null, "If-None-Match", etag)
                        .status())
                .isEqualTo(200);
        assertError(server.get(path + "?snapshots=some"), 400, "BadRequestException");

        // A commit answers the new tag; the old one no longer matches.
        try (RESTCatalog catalog = client(Map.of())) {
            append(catalog.loadTable(TableIdentifier.of("proto", "tagged")), "c");
        }
        TreeCatTestServer.Reply changed = server.send("GET", path, null, "If-None-Match", etag);
        assertThat(changed.status()).isEqualTo(200);
        assertThat(changed.header("ETag")).isNotEqualTo(etag);
        TreeCatTestServer.Reply committed = server.post(
                path,
                "{\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", \"updates\": {\"k\": \"v\"}}]}");
        assertThat(committed.status()).isEqualTo(200);
        assertThat(committed.header("ETag"))
                .isNotEqualTo(changed.header("ETag"))
                .isEqualTo(server.get(path).header("ETag"));
        // The load that follows a commit answers the committed metadata, byte for byte.
        assertThat(server.get(path).body()).isEqualTo(committed.body());

        // A metadata file that vanished fails the load, though its answer was served (and kept) before.
        String location = committed.json().get("metadata-location").asText();
        java.nio.file.Files.delete(java.nio.file.Path.of(java.net.URI.create(location)));
        TreeCatTestServer.Reply vanished = server.get(path);
        assertThat(vanished.status()).isEqualTo(404);
        assertThat(vanished.json().get("error").get("type").asText()).isEqualTo("NotFoundException");
        assertThat(server.send("GET", path, null, "If-None-Match", committed.header("ETag"))
                        .status())
                .isEqualTo(404);

        // Iceberg's client in refs mode loads the rest of the snapshots lazily, with snapshots=all.
        try (RESTCatalog writer = client(Map.of())) {
            // (a new table: this one's metadata file is gone)
            Table table = writer.createTable(TableIdentifier.of("proto", "lazy"), SCHEMA);
            append(table, "a");
            append(table, "b");
            append(table, "c");
            table.updateProperties().set("k", "v").commit();
        }
        try (RESTCatalog lazy = client(Map.of(RESTCatalogProperties.SNAPSHOT_LOADING_MODE, "refs"))) {
            Table table = lazy.loadTable(TableIdentifier.of("proto", "lazy"));
            assertThat(table.snapshots()).hasSize(3);
            assertThat(table.properties()).containsEntry("k", "v");
            // A second load of the same table revalidates with If-None-Match and keeps working on a 304.
            assertThat(lazy.loadTable(TableIdentifier.of("proto", "lazy"))
                            .currentSnapshot()
                            .snapshotId())
                    .isEqualTo(table.currentSnapshot().snapshotId());
        }
    }

    @Test
    void aLocalWarehouseVendsNoCredentials() throws Exception {
        try (RESTCatalog catalog = client(Map.of())) {
            catalog.createTable(TableIdentifier.of("proto", "creds"), SCHEMA);
        }
        // Its files are reached with the client's own access: the route says so (vending: VendedCredentialsIT).
        assertError(server.get("/v1/warehouse/namespaces/proto/tables/creds/credentials"), 400, "BadRequestException");
        assertError(
                server.get("/v1/warehouse/namespaces/proto/tables/missing/credentials"), 404, "NoSuchTableException");
        assertThat(server.get("/v1/config").json().get("endpoints").toString())
                .contains(
                        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
                        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics");
    }

    @Test
    void metricsReportsAreParsedAndCounted() throws Exception {
        TableIdentifier events = TableIdentifier.of("proto", "events");
        long commitsBefore = meterCount("iceberg.metrics-reports.commit-report");
        try (RESTCatalog catalog = client(Map.of())) {
            Table table = catalog.createTable(events, SCHEMA);
            append(table, "one");
            try (CloseableIterable<FileScanTask> tasks =
                    catalog.loadTable(events).newScan().planFiles()) {
                assertThat(tasks).hasSize(1);
            }
        }
        // The client posts its reports itself, after the append and the scan.
        assertThat(meterCount("iceberg.metrics-reports.scan-report")).isPositive();
        assertThat(meterCount("iceberg.metrics-reports.commit-report")).isGreaterThan(commitsBefore);

        long before = meterCount("iceberg.metrics-reports.commit-report");
        assertThat(server.post("/v1/warehouse/namespaces/proto/tables/events/metrics", COMMIT_REPORT)
                        .status())
                .isEqualTo(204);
        assertThat(meterCount("iceberg.metrics-reports.commit-report")).isEqualTo(before + 1);
        assertError(
                server.post("/v1/warehouse/namespaces/proto/tables/events/metrics", "{not json"),
                400,
                "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/proto/tables/events/metrics", "{\"report-type\": \"commit-report\"}"),
                400,
                null);
        assertError(
                server.post("/v1/warehouse/namespaces/proto/tables/missing/metrics", COMMIT_REPORT),
                404,
                "NoSuchTableException");
        assertThat(meterCount("iceberg.metrics-reports.commit-report")).isEqualTo(before + 1);
    }

    private long meterCount(String name) {
        JsonNode meter = server.admin("/metrics").json().get("meters").get(name);
        return meter == null ? 0 : meter.get("count").asLong();
    }

    @Test
    void idempotencyKeysReplayTheFinalResponse() throws Exception {
        assertThat(server.get("/v1/config")
                        .json()
                        .get("idempotency-key-lifetime")
                        .asText())
                .isEqualTo("PT30M");
        String create = "{\"namespace\": [\"idem\"]}";
        String key = UUID.randomUUID().toString();
        TreeCatTestServer.Reply first = server.send("POST", "/v1/warehouse/namespaces", create, "Idempotency-Key", key);
        assertThat(first.status()).isEqualTo(200);
        TreeCatTestServer.Reply replay =
                server.send("POST", "/v1/warehouse/namespaces", create, "Idempotency-Key", key);
        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.body()).isEqualTo(first.body());
        assertError(server.post("/v1/warehouse/namespaces", create), 409, "AlreadyExistsException");

        // The replay does not run again: after a drop, the namespace stays dropped.
        assertThat(server.delete("/v1/warehouse/namespaces/idem").status()).isEqualTo(204);
        assertThat(server.send("POST", "/v1/warehouse/namespaces", create, "Idempotency-Key", key)
                        .status())
                .isEqualTo(200);
        assertError(server.get("/v1/warehouse/namespaces/idem"), 404, "NoSuchNamespaceException");

        // The same key for another request is the client's mistake.
        assertError(
                server.send("POST", "/v1/warehouse/namespaces", "{\"namespace\": [\"other\"]}", "Idempotency-Key", key),
                422,
                "UnprocessableEntityException");
        assertError(
                server.send("DELETE", "/v1/warehouse/namespaces/idem", null, "Idempotency-Key", key),
                422,
                "UnprocessableEntityException");
        assertError(server.get("/v1/warehouse/namespaces/other"), 404, "NoSuchNamespaceException");

        // A final 4xx is replayed too, even once the request would succeed.
        String conflictKey = UUID.randomUUID().toString();
        assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"taken\"]}")
                        .status())
                .isEqualTo(200);
        assertError(
                server.send(
                        "POST",
                        "/v1/warehouse/namespaces",
                        "{\"namespace\": [\"taken\"]}",
                        "Idempotency-Key",
                        conflictKey),
                409,
                "AlreadyExistsException");
        assertThat(server.delete("/v1/warehouse/namespaces/taken").status()).isEqualTo(204);
        assertError(
                server.send(
                        "POST",
                        "/v1/warehouse/namespaces",
                        "{\"namespace\": [\"taken\"]}",
                        "Idempotency-Key",
                        conflictKey),
                409,
                "AlreadyExistsException");
        assertError(server.get("/v1/warehouse/namespaces/taken"), 404, "NoSuchNamespaceException");

        assertError(
                server.send("POST", "/v1/warehouse/namespaces", create, "Idempotency-Key", "x".repeat(200)),
                400,
                "BadRequestException");
    }

    @Test
    void concurrentDuplicatesRunOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = "{\"name\": \"once\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": "
                + "[{\"id\": 1, \"name\": \"id\", \"required\": true, \"type\": \"long\"}]}}";
        int clients = 8;
        CountDownLatch ready = new CountDownLatch(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<TreeCatTestServer.Reply> replies = new ArrayList<>();
        try {
            List<Future<TreeCatTestServer.Reply>> futures = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    ready.await();
                    return server.send("POST", "/v1/warehouse/namespaces/proto/tables", body, "Idempotency-Key", key);
                }));
            }
            for (Future<TreeCatTestServer.Reply> future : futures) {
                replies.add(future.get());
            }
        } finally {
            pool.shutdown();
        }
        // Without the key, all but one would be 409: with it, every client gets the one creation's answer.
        Set<String> locations = new HashSet<>();
        for (TreeCatTestServer.Reply reply : replies) {
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            locations.add(reply.json().get("metadata-location").asText());
        }
        assertThat(locations).hasSize(1);
        assertThat(directory.resolve("warehouse/warehouse/proto/once/metadata"))
                .isDirectoryContaining("glob:**.metadata.json");
        try (Stream<Path> files = Files.list(directory.resolve("warehouse/warehouse/proto/once/metadata"))) {
            assertThat(files.count())
                    .as("one metadata file: the create ran once")
                    .isEqualTo(1);
        }
    }
}
