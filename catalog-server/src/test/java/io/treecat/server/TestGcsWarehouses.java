package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog whose warehouse is on GCS ({@code gs://}), end to end through the real server and Iceberg's own REST
 * client, against fake-gcs-server on loopback: the server writes the metadata files into the bucket through
 * iceberg-gcp's GCSFileIO, and a bucket that does not exist is 503 with nothing committed. The emulator takes no
 * authentication, so the catalog sets Iceberg's {@code gcs.no-auth}. A store that cannot be reached is not sent a
 * write: Google's client retries a refused connection for about 50 s (its default retry settings, for which Iceberg
 * has no property) before the server can answer, and the 404 of a missing bucket takes the same path (a
 * {@code com.google.cloud} exception from the FileIO) at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestGcsWarehouses {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));

    @TempDir
    static Path directory;

    private FakeGcsServer gcs;
    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        gcs = FakeGcsServer.start();
        gcs.createBucket("lake");
        List<ConfigOverride> overrides = new ArrayList<>();
        overrides.addAll(catalog("glake", "gs://lake/warehouse", gcs.endpoint()));
        overrides.addAll(catalog("gmissing", "gs://missing-bucket/warehouse", gcs.endpoint()));
        overrides.addAll(catalog("gdown", "gs://lake/down", "http://127.0.0.1:" + FreePorts.next()));
        server = new TreeCatTestServer(directory, overrides.toArray(ConfigOverride[]::new));
    }

    private static List<ConfigOverride> catalog(String name, String location, String endpoint) {
        String prefix = "warehouse.catalogs." + name + ".";
        return List.of(
                ConfigOverride.config(prefix + "location", location),
                ConfigOverride.config(prefix + "properties.gcs\\.service\\.host", endpoint),
                ConfigOverride.config(prefix + "properties.gcs\\.project-id", FakeGcsServer.PROJECT),
                ConfigOverride.config(prefix + "properties.gcs\\.no-auth", "true"));
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (gcs != null) {
            gcs.close();
        }
    }

    private RESTCatalog client(String warehouse) {
        Map<String, String> properties = new HashMap<>();
        properties.put("uri", "http://127.0.0.1:" + server.port());
        properties.put("warehouse", warehouse);
        properties.put("io-impl", "org.apache.iceberg.gcp.gcs.GCSFileIO");
        properties.put("gcs.service.host", gcs.endpoint());
        properties.put("gcs.project-id", FakeGcsServer.PROJECT);
        properties.put("gcs.no-auth", "true");
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

    @Test
    void tablesLiveInTheBucketThroughTheServersGcsFileIO() throws Exception {
        try (RESTCatalog catalog = client("glake")) {
            Namespace ns = Namespace.of("sales");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "orders");
            Table table = catalog.createTable(id, SCHEMA);
            assertThat(table.location()).isEqualTo("gs://lake/warehouse/sales/orders");
            table.newAppend().appendFile(file(table, "a")).commit();
            table.newAppend().appendFile(file(table, "b")).commit();

            Table loaded = catalog.loadTable(id);
            assertThat(loaded.snapshots()).hasSize(2);
            assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).hasSize(1);
            assertThat(((HasTableOperations) loaded).operations().current().metadataFileLocation())
                    .startsWith("gs://lake/warehouse/sales/orders/metadata/00002-");
            // The server wrote the three metadata files into the bucket; the client its manifests and lists.
            assertThat(gcs.keys("lake").stream()
                            .filter(key -> key.startsWith("warehouse/sales/orders/metadata/")
                                    && key.endsWith(".metadata.json")))
                    .hasSize(3)
                    .allMatch(key -> key.matches("warehouse/sales/orders/metadata/0000[0-2]-.*\\.metadata\\.json"));
            assertThat(gcs.keys("lake")).anyMatch(key -> key.startsWith("warehouse/sales/orders/metadata/snap-"));

            assertThat(catalog.dropTable(id, false)).isTrue();
            assertThat(catalog.tableExists(id)).isFalse();
        }
    }

    @Test
    void aBucketThatDoesNotExistIs503AndCommitsNothing() throws Exception {
        try (RESTCatalog catalog = client("gmissing")) {
            Namespace ns = Namespace.of("ns");
            catalog.createNamespace(ns);
            long vid = newestVid();
            assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(ns, "t"), SCHEMA))
                    .isInstanceOf(ServiceUnavailableException.class)
                    .hasMessageContaining("The catalog's object store failed");
            assertThat(newestVid()).isEqualTo(vid);
            assertThat(catalog.tableExists(TableIdentifier.of(ns, "t"))).isFalse();
        }
    }

    @Test
    void aStoreThatFailsIs503OnTheWireAndCommitsNothing() throws Exception {
        assertThat(server.post("/v1/gmissing/namespaces", "{\"namespace\": [\"raw\"]}")
                        .status())
                .isEqualTo(200);
        long vid = newestVid();
        TreeCatTestServer.Reply raw = server.post(
                "/v1/gmissing/namespaces/raw/tables",
                "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1,"
                        + " \"name\": \"id\", \"required\": true, \"type\": \"long\"}]}}");
        assertThat(raw.status()).isEqualTo(503);
        assertThat(raw.error().get("type").asText()).isEqualTo("ServiceUnavailableException");
        assertThat(raw.error().get("message").asText())
                .startsWith("The catalog's object store failed")
                // The store's own error: the emulator's answer to the upload into a bucket that is not there.
                .contains("404 Not Found")
                .contains("catalog=gmissing");
        assertThat(newestVid()).isEqualTo(vid);
        assertThat(server.get("/v1/gmissing/namespaces/raw/tables/t").status()).isEqualTo(404);
    }

    @Test
    void aStoreThatIsDownStopsNeitherTheServerNorWhatNeedsNoStore() throws Exception {
        // gdown's endpoint has nothing listening: the server started with it in its configuration (the SDK client is
        // built on first use), and a namespace makes no directory on an object store.
        assertThat(server.post("/v1/gdown/namespaces", "{\"namespace\": [\"ns\"]}")
                        .status())
                .isEqualTo(200);
        assertThat(server.get("/v1/gdown/namespaces/ns").status()).isEqualTo(200);
    }

    @Test
    void aDropWithPurgeDeletesTheTablesObjectsFromTheBucket() throws Exception {
        try (RESTCatalog catalog = client("glake")) {
            Namespace ns = Namespace.of("purged");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "clicks");
            Table table = catalog.createTable(id, SCHEMA);
            try (var out = table.io()
                    .newOutputFile(table.location() + "/data/a.parquet")
                    .create()) {
                out.write(new byte[100]);
            }
            table.newAppend().appendFile(file(table, "a")).commit();
            String prefix = "warehouse/purged/clicks/";
            assertThat(gcs.keys("lake").stream().filter(key -> key.startsWith(prefix)))
                    .hasSizeGreaterThanOrEqualTo(5); // a data file, a manifest, a list, 2 metadata files

            assertThat(catalog.dropTable(id, true)).isTrue();

            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (gcs.keys("lake").stream().anyMatch(key -> key.startsWith(prefix)) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(gcs.keys("lake")).noneMatch(key -> key.startsWith(prefix));
        }
    }

    private long newestVid() {
        return server.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }
}
