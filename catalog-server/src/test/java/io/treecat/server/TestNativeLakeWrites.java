package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native API still writes any path, but a write that would leave a lake object Iceberg REST or
 * the Hive Metastore cannot read is refused with the field named, and changes nothing.
 */
class TestNativeLakeWrites {
    @TempDir
    static Path directory;

    private static TreeCatTestServer server;
    private static RESTCatalog iceberg;
    private static final TableIdentifier EVENTS = TableIdentifier.of("sales", "events");

    @BeforeAll
    static void start() throws Exception {
        server = new TreeCatTestServer(directory);
        iceberg = server.icebergClient();
        iceberg.createNamespace(Namespace.of("sales"));
        iceberg.createTable(EVENTS, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    }

    @AfterAll
    static void stop() throws Exception {
        iceberg.close();
        server.close();
    }

    @Test
    void aNativeWriteThatBreaksATableIsRefusedAndTheTableStillLoads() {
        long vid = server.get("/treecat/v1/objects?path=" + encode("/warehouse/sales/events"))
                .json()
                .get("version")
                .asLong();

        Reply refused = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/warehouse/sales/events\","
                        + " \"value\": {\"obj_type\": \"table\", \"metadata_location\": 17}}]}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.error().get("type").asText()).isEqualTo("INVALID_VALUE");
        assertThat(refused.error().get("message").asText())
                .isEqualTo(
                        "Invalid table object: field 'metadata_location' must be a string, not int32 at /warehouse/sales/events");
        assertThat(refused.error().get("context").get("field").asText()).isEqualTo("metadata_location");
        assertThat(server.get("/treecat/v1/objects?path=" + encode("/warehouse/sales/events"))
                        .json()
                        .get("version")
                        .asLong())
                .isEqualTo(vid);
        assertThat(iceberg.loadTable(EVENTS).schema().columns()).hasSize(1);
    }

    @Test
    void aNativeTableWithoutAPointerIsRefusedButFreeFormObjectsAreNot() {
        Reply refused = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/warehouse/sales/bare\", \"value\": {\"obj_type\": \"table\"}}]}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.error().get("context").get("field").asText()).isEqualTo("metadata_location");
        assertThat(iceberg.tableExists(TableIdentifier.of("sales", "bare"))).isFalse();

        Reply note = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/warehouse/sales/readme\", \"value\": {\"text\": \"owned by the sales team\"}}]}");
        assertThat(note.status()).isEqualTo(200);
        assertThat(iceberg.listTables(Namespace.of("sales"))).containsExactly(EVENTS);
    }
}
