package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The experimental Iceberg REST events endpoint ({@code iceberg.events-endpoint: true}) on a real
 * server, the changes made with Iceberg's own REST client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergEvents {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory, ConfigOverride.config("iceberg.events-endpoint", "true"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RESTCatalog client(String warehouse) {
        return server.icebergClient("treecat", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse));
    }

    private JsonNode events(String catalog, String body) {
        Reply reply = server.post("/v1/" + catalog + "/events", body);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private static List<String> types(JsonNode page) {
        List<String> types = new ArrayList<>();
        page.get("events")
                .forEach(event ->
                        types.add(event.get("operation").get("operation-type").asText()));
        return types;
    }

    @Test
    void namespaceTableAndViewChangesAreEventsInCommitOrderAndPage() throws Exception {
        Namespace shop = Namespace.of("shop");
        TableIdentifier orders = TableIdentifier.of(shop, "orders");
        TableIdentifier renamed = TableIdentifier.of(shop, "orders2");
        String uuid;
        try (RESTCatalog lake = client("evented")) {
            lake.createNamespace(shop);
            lake.setProperties(shop, new java.util.HashMap<>(Map.of("owner", "ann")));
            Table table = lake.createTable(orders, SCHEMA);
            uuid = table.uuid().toString();
            table.newAppend()
                    .appendFile(DataFiles.builder(table.spec())
                            .withPath(table.location() + "/data/f1.parquet")
                            .withFileSizeInBytes(100)
                            .withRecordCount(10)
                            .build())
                    .commit();
            lake.renameTable(orders, renamed);
            lake.dropTable(renamed);
            lake.dropNamespace(shop);
        }
        JsonNode all = events("evented", "{}");
        assertThat(types(all))
                .containsExactly(
                        "create-namespace",
                        "update-namespace-properties",
                        "create-table",
                        "update-table",
                        "rename-table",
                        "drop-table",
                        "drop-namespace");
        JsonNode created = all.get("events").get(2);
        assertThat(created.get("operation")
                        .get("identifier")
                        .get("namespace")
                        .get(0)
                        .asText())
                .isEqualTo("shop");
        assertThat(created.get("operation").get("identifier").get("name").asText())
                .isEqualTo("orders");
        assertThat(created.get("operation").get("table-uuid").asText()).isEqualTo(uuid);
        assertThat(created.get("request-event-count").asInt()).isEqualTo(1);
        assertThat(created.get("timestamp-ms").asLong()).isPositive();
        JsonNode rename = all.get("events").get(4).get("operation");
        assertThat(rename.get("source").get("name").asText()).isEqualTo("orders");
        assertThat(rename.get("destination").get("name").asText()).isEqualTo("orders2");
        assertThat(rename.get("table-uuid").asText()).isEqualTo(uuid);

        // Two at a time, following the token, the same events; then an empty page whose token waits for more.
        List<String> paged = new ArrayList<>();
        String token = null;
        for (int i = 0; i < 10; i++) {
            JsonNode page = events(
                    "evented",
                    token == null
                            ? "{\"page-size\": 2}"
                            : "{\"page-size\": 2, \"continuation-token\": \"" + token + "\"}");
            token = page.get("continuation-token").asText();
            if (page.get("events").isEmpty()) {
                break;
            }
            assertThat(page.get("events").size()).isLessThanOrEqualTo(2);
            paged.addAll(types(page));
        }
        assertThat(paged).isEqualTo(types(all));
        try (RESTCatalog lake = client("evented")) {
            lake.createNamespace(Namespace.of("later"));
        }
        JsonNode later = events("evented", "{\"continuation-token\": \"" + token + "\"}");
        assertThat(types(later)).containsExactly("create-namespace");

        JsonNode tablesOnly = events("evented", "{\"operation-types\": [\"create-table\", \"drop-table\"]}");
        assertThat(types(tablesOnly)).containsExactly("create-table", "drop-table");
        // Another catalog's changes are not this one's events.
        assertThat(types(events("elsewhere", "{}"))).isEmpty();
    }

    @Test
    void badRequestsAre400() {
        expectBad("{\"page-size\": 0}", "page-size");
        expectBad("{\"operation-types\": [\"bogus\"]}", "operation-types");
        expectBad("{\"continuation-token\": \"nope\"}", "continuation-token");
        expectBad("{\"catalog-objects-by-name\": []}", "catalog-objects-by-name");
        expectBad("[1]", "JSON object");
        Reply past = server.post("/v1/evented@1/events", "{}");
        assertThat(past.status()).as(past.body()).isIn(400, 403);
    }

    private void expectBad(String body, String named) {
        Reply reply = server.post("/v1/evented/events", body);
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.error().get("type").asText()).isEqualTo("BadRequestException");
        assertThat(reply.error().get("message").asText()).contains(named);
    }
}
