package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.server.TreeCatTestServer.Reply;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg's own REST client on a read-only prefix ({@code <catalog>@<vid>},
 * {@code <catalog>@snapshot=<name>}): the whole catalog as it was at that version, every write
 * refused, the live catalog untouched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergReadPoints {
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

    private RESTCatalog client(String warehouse) {
        return client(warehouse, Map.of());
    }

    private RESTCatalog client(String warehouse, Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>(extra);
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        return server.icebergClient("treecat", properties);
    }

    private static DataFile file(Table table, String name, String day) {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .withPartitionPath("day=" + day)
                .build();
    }

    /** The newest vid, as the native API answers it with a read. */
    private long currentVid(String catalog) {
        Reply reply = server.get("/treecat/v1/objects?path=" + encode("/" + catalog));
        assertThat(reply.status()).isEqualTo(200);
        return reply.json().get("vid").asLong();
    }

    @Test
    void aPastVidOrNamedSnapshotServesTheOldCatalogAndRefusesWrites() throws Exception {
        Namespace shop = Namespace.of("shop");
        TableIdentifier orders = TableIdentifier.of(shop, "orders");
        TableIdentifier returns = TableIdentifier.of(shop, "returns");
        TableIdentifier daily = TableIdentifier.of(shop, "daily");
        TableIdentifier weekly = TableIdentifier.of(shop, "weekly");
        try (RESTCatalog live = client("history")) {
            live.createNamespace(shop);
            Table table = live.createTable(orders, SCHEMA, SPEC);
            table.newAppend().appendFile(file(table, "f1", "2025-01-01")).commit();
            live.buildView(daily)
                    .withSchema(SCHEMA)
                    .withDefaultNamespace(shop)
                    .withQuery("spark", "select * from orders")
                    .create();
            long oldSnapshot = live.loadTable(orders).currentSnapshot().snapshotId();
            long vid = currentVid("history");
            assertThat(server.post("/treecat/v1/snapshots", "{\"name\": \"history-v1\"}")
                            .status())
                    .isEqualTo(201);
            // A name that a path must percent-encode: the client's warehouse carries it encoded.
            assertThat(server.post("/treecat/v1/snapshots", "{\"name\": \"history v1 (nightly)\"}")
                            .status())
                    .isEqualTo(201);

            // Later changes, none of which the past prefixes may show.
            Table later = live.loadTable(orders);
            later.newAppend().appendFile(file(later, "f2", "2025-01-02")).commit();
            live.createTable(returns, SCHEMA);
            live.createNamespace(Namespace.of("later"));
            live.buildView(weekly)
                    .withSchema(SCHEMA)
                    .withDefaultNamespace(shop)
                    .withQuery("spark", "select 1")
                    .create();
            long newSnapshot = live.loadTable(orders).currentSnapshot().snapshotId();
            assertThat(newSnapshot).isNotEqualTo(oldSnapshot);

            // The live prefix's config answers the newest vid; a past prefix's, the vid it pins.
            assertThat(server.get("/v1/config?warehouse=history")
                            .json()
                            .get("overrides")
                            .get("treecat.vid")
                            .asLong())
                    .isEqualTo(currentVid("history"))
                    .isGreaterThan(vid);
            for (String prefix : List.of(
                    "history@" + vid, "history@snapshot=history-v1", "history@snapshot=history%20v1%20%28nightly%29")) {
                Reply config = server.get("/v1/config?warehouse=" + encode(prefix));
                assertThat(config.json().get("overrides").get("prefix").asText())
                        .isEqualTo(prefix);
                assertThat(config.json().get("overrides").get("treecat.vid").asLong())
                        .as(prefix)
                        .isEqualTo(vid);
                try (RESTCatalog past = client(prefix)) {
                    assertThat(past.listNamespaces()).as(prefix).containsExactly(shop);
                    assertThat(past.namespaceExists(Namespace.of("later"))).isFalse();
                    assertThat(past.loadNamespaceMetadata(shop)).containsKey("location");
                    assertThat(past.listTables(shop)).containsExactly(orders);
                    assertThat(past.tableExists(returns)).isFalse();
                    assertThat(past.listViews(shop)).containsExactly(daily);
                    assertThat(past.viewExists(weekly)).isFalse();
                    assertThat(past.loadView(daily).sqlFor("spark").sql()).isEqualTo("select * from orders");
                    Table old = past.loadTable(orders);
                    assertThat(old.currentSnapshot().snapshotId()).isEqualTo(oldSnapshot);
                    assertThat(old.snapshots()).hasSize(1);

                    try (RESTCatalog planned = client(
                                    prefix,
                                    Map.of(
                                            RESTCatalogProperties.SCAN_PLANNING_MODE,
                                            RESTCatalogProperties.ScanPlanningMode.SERVER.modeName()));
                            CloseableIterable<FileScanTask> tasks =
                                    planned.loadTable(orders).newScan().planFiles()) {
                        // Planned on the server at the prefix's version: only the file appended before it.
                        assertThat(tasks)
                                .extracting(task -> task.file().location())
                                .singleElement()
                                .asString()
                                .endsWith("/f1.parquet");
                    }

                    assertThatThrownBy(() -> past.createNamespace(Namespace.of("x")))
                            .isInstanceOf(ForbiddenException.class)
                            .hasMessageContaining("REST prefix " + URLDecoder.decode(prefix, StandardCharsets.UTF_8)
                                    + " is read-only");
                    assertThatThrownBy(() -> old.newAppend()
                                    .appendFile(file(old, "f3", "2025-01-03"))
                                    .commit())
                            .isInstanceOf(ForbiddenException.class)
                            .hasMessageContaining("read-only");
                    assertThatThrownBy(() -> past.dropTable(orders)).isInstanceOf(ForbiddenException.class);
                    assertThatThrownBy(() -> past.renameTable(orders, returns)).isInstanceOf(ForbiddenException.class);
                    assertThatThrownBy(() -> past.createTable(TableIdentifier.of(shop, "x"), SCHEMA))
                            .isInstanceOf(ForbiddenException.class);
                    assertThatThrownBy(() -> past.dropView(daily)).isInstanceOf(ForbiddenException.class);
                    assertThatThrownBy(() -> past.setProperties(shop, new HashMap<>(Map.of("k", "v"))))
                            .isInstanceOf(ForbiddenException.class);
                }
            }

            // The refused writes left the live catalog as it was.
            assertThat(live.listTables(shop)).containsExactlyInAnyOrder(orders, returns);
            assertThat(live.loadTable(orders).currentSnapshot().snapshotId()).isEqualTo(newSnapshot);
            assertThat(live.loadNamespaceMetadata(shop)).doesNotContainKey("k");
            assertThat(live.listViews(shop)).containsExactlyInAnyOrder(daily, weekly);
        }
    }

    @Test
    void unknownVidsSnapshotsAndMalformedPrefixesGetClearErrors() throws Exception {
        try (RESTCatalog live = client("errors")) {
            live.createNamespace(Namespace.of("ns"));
        }
        long vid = currentVid("errors");

        Reply beyond = server.get("/v1/config?warehouse=" + encode("errors@" + (vid + 1000)));
        assertThat(beyond.status()).isEqualTo(404);
        assertThat(beyond.error().get("message").asText()).contains("not committed");
        Reply noSnapshot = server.get("/v1/" + encode("errors@snapshot=nope") + "/namespaces");
        assertThat(noSnapshot.status()).isEqualTo(404);
        assertThat(noSnapshot.error().get("message").asText()).contains("No snapshot named nope");
        Reply malformed = server.get("/v1/" + encode("errors@yesterday") + "/namespaces");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.error().get("message").asText()).contains("Invalid REST prefix 'errors@yesterday'");
        Reply refused = server.post("/v1/" + encode("errors@" + vid) + "/namespaces", "{\"namespace\": [\"x\"]}");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.error().get("type").asText()).isEqualTo("ForbiddenException");
        assertThat(refused.error().get("message").asText()).contains("errors@" + vid + " is read-only");
        Reply malformedWrite = server.post("/v1/" + encode("errors@") + "/namespaces", "{\"namespace\": [\"x\"]}");
        assertThat(malformedWrite.status()).isEqualTo(400);
        // Nothing was created by the refused or malformed requests: no catalog "errors@…" either.
        assertThat(server.get("/treecat/v1/objects?path=" + encode("/errors/x")).status())
                .isEqualTo(404);
        assertThat(server.get("/treecat/v1/objects?path=" + encode("/errors@")).status())
                .isEqualTo(404);
        assertThat(server.get("/v1/" + encode("errors@" + vid) + "/namespaces")
                        .json()
                        .get("namespaces")
                        .toString())
                .isEqualTo("[[\"ns\"]]");
    }
}
