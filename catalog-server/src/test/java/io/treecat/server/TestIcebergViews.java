package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.requests.CreateViewRequestParser;
import org.apache.iceberg.rest.requests.ImmutableCreateViewRequest;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.view.ImmutableSQLViewRepresentation;
import org.apache.iceberg.view.ImmutableViewVersion;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Iceberg views through Iceberg's own REST client (its ViewCatalog API) and raw HTTP, against a real TreeCat server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergViews {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    private static final Schema COUNT_SCHEMA = new Schema(Types.NestedField.required(1, "n", Types.LongType.get()));

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

    private static View createView(RESTCatalog catalog, TableIdentifier identifier, String sql) {
        return catalog.buildView(identifier)
                .withSchema(SCHEMA)
                .withDefaultNamespace(identifier.namespace())
                .withQuery("spark", sql)
                .create();
    }

    @Test
    void createLoadReplaceRenameDrop() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("shop");
            catalog.createNamespace(ns);
            TableIdentifier identifier = TableIdentifier.of(ns, "big_orders");
            View view = catalog.buildView(identifier)
                    .withSchema(SCHEMA)
                    .withDefaultNamespace(ns)
                    .withQuery("spark", "select id, name from shop.orders where total > 100")
                    .withQuery("trino", "SELECT id, name FROM shop.orders WHERE total > 100")
                    .withProperty("owner", "ann")
                    .create();
            String firstMetadata = ((BaseView) view).operations().current().metadataFileLocation();
            assertThat(firstMetadata)
                    .startsWith("file:")
                    .contains("/warehouse/warehouse/shop/big_orders/metadata/00000-");
            assertThat(catalog.viewExists(identifier)).isTrue();
            assertThat(catalog.listViews(ns)).containsExactly(identifier);

            // The tree holds the view next to tables, with its metadata location.
            TreeCatTestServer.Reply object =
                    server.get("/treecat/v1/objects?path=" + TreeCatTestServer.encode("/warehouse/shop/big_orders"));
            assertThat(object.json().get("value").get("obj_type").asText()).isEqualTo("view");
            assertThat(object.json().get("value").get("metadata_location").asText())
                    .isEqualTo(firstMetadata);

            View loaded = catalog.loadView(identifier);
            assertThat(loaded.sqlFor("spark").sql()).isEqualTo("select id, name from shop.orders where total > 100");
            assertThat(loaded.sqlFor("trino").sql()).isEqualTo("SELECT id, name FROM shop.orders WHERE total > 100");
            assertThat(loaded.properties()).containsEntry("owner", "ann");
            assertThat(loaded.schema().asStruct()).isEqualTo(SCHEMA.asStruct());

            loaded.replaceVersion()
                    .withQuery("spark", "select count(*) as n from shop.orders")
                    .withQuery("trino", "SELECT count(*) AS n FROM shop.orders")
                    .withSchema(COUNT_SCHEMA)
                    .withDefaultNamespace(ns)
                    .commit();
            loaded.updateProperties().set("team", "bi").remove("owner").commit();
            View replaced = catalog.loadView(identifier);
            assertThat(replaced.currentVersion().versionId()).isEqualTo(2);
            assertThat(replaced.versions()).hasSize(2);
            assertThat(replaced.sqlFor("spark").sql()).isEqualTo("select count(*) as n from shop.orders");
            assertThat(replaced.schema().asStruct()).isEqualTo(COUNT_SCHEMA.asStruct());
            assertThat(replaced.properties()).containsEntry("team", "bi").doesNotContainKey("owner");
            assertThat(((BaseView) replaced).operations().current().metadataFileLocation())
                    .contains("/metadata/00002-");

            // Rename to another namespace: the files stay, the tree object moves.
            Namespace reports = Namespace.of("reports");
            catalog.createNamespace(reports);
            TableIdentifier renamed = TableIdentifier.of(reports, "order_count");
            catalog.renameView(identifier, renamed);
            assertThat(catalog.viewExists(identifier)).isFalse();
            assertThat(catalog.loadView(renamed).sqlFor("spark").sql())
                    .isEqualTo("select count(*) as n from shop.orders");
            assertThatThrownBy(() -> catalog.renameView(identifier, renamed))
                    .isInstanceOf(NoSuchViewException.class)
                    .hasMessageContaining("View does not exist: shop.big_orders");
            assertThatThrownBy(() -> catalog.renameView(renamed, TableIdentifier.of("nowhere", "v")))
                    .isInstanceOf(NoSuchNamespaceException.class)
                    .hasMessageContaining("Namespace does not exist: nowhere");

            // Register a second view from the renamed one's current metadata file.
            String metadata = ((BaseView) catalog.loadView(renamed))
                    .operations()
                    .current()
                    .metadataFileLocation();
            View registered = catalog.registerView(TableIdentifier.of(reports, "again"), metadata);
            assertThat(registered.uuid()).isEqualTo(catalog.loadView(renamed).uuid());
            assertThatThrownBy(() -> catalog.registerView(renamed, metadata))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageStartingWith("View already exists: reports.order_count");

            assertThat(catalog.dropView(renamed)).isTrue();
            assertThat(catalog.dropView(renamed)).isFalse();
            assertThatThrownBy(() -> catalog.loadView(renamed)).isInstanceOf(NoSuchViewException.class);
            assertThat(catalog.listViews(reports)).containsExactly(TableIdentifier.of(reports, "again"));
            assertThat(directory.resolve("warehouse/warehouse/shop/big_orders/metadata"))
                    .isDirectoryContaining("glob:**00002-*.metadata.json");
        }
    }

    @Test
    void tablesAndViewsShareOneLevel() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("mixed");
            catalog.createNamespace(ns);
            TableIdentifier table = TableIdentifier.of(ns, "t");
            TableIdentifier view = TableIdentifier.of(ns, "v");
            catalog.createTable(table, SCHEMA);
            createView(catalog, view, "select * from mixed.t");

            assertThat(catalog.listTables(ns)).containsExactly(table);
            assertThat(catalog.listViews(ns)).containsExactly(view);
            assertThat(catalog.tableExists(view)).isFalse();
            assertThat(catalog.viewExists(table)).isFalse();
            assertThatThrownBy(() -> catalog.loadTable(view))
                    .isInstanceOf(NoSuchTableException.class)
                    .hasMessageStartingWith("Table does not exist");
            assertThatThrownBy(() -> catalog.loadView(table))
                    .isInstanceOf(NoSuchViewException.class)
                    .hasMessageStartingWith("View does not exist");
            assertThatThrownBy(() -> catalog.createTable(view, SCHEMA))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageStartingWith("View with same name already exists: mixed.v");
            assertThatThrownBy(() -> createView(catalog, table, "select 1"))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageStartingWith("Table with same name already exists: mixed.t");
            assertThatThrownBy(() -> catalog.renameTable(table, view))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageContaining("Cannot rename mixed.t to mixed.v. View already exists");
            assertThatThrownBy(() -> catalog.renameView(view, table))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessageContaining("Cannot rename mixed.v to mixed.t. Table already exists");
            assertThat(catalog.dropTable(view)).isFalse();
            assertThat(catalog.viewExists(view)).isTrue();
            assertThatThrownBy(() -> catalog.dropNamespace(ns)).hasMessageContaining("is not empty");

            // The raw routes agree: a view is not a table and a table is not a view.
            assertError(server.get("/v1/warehouse/namespaces/mixed/tables/v"), 404, "NoSuchTableException");
            assertError(server.get("/v1/warehouse/namespaces/mixed/views/t"), 404, "NoSuchViewException");
            assertError(server.delete("/v1/warehouse/namespaces/mixed/views/t"), 404, "NoSuchViewException");
            assertThat(catalog.tableExists(table)).isTrue();
        }
    }

    /** Names with a slash, a percent sign, non-ASCII letters, a dot or a space are data, for views as for tables. */
    @Test
    void oddNamesRoundTrip() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("odd.ns/ü");
            catalog.createNamespace(ns);
            for (String name : List.of("a/b", "100%", "ünï-cødé ✓", "dotted.name", "with space")) {
                TableIdentifier table = TableIdentifier.of(ns, "t " + name);
                TableIdentifier view = TableIdentifier.of(ns, "v " + name);
                catalog.createTable(table, SCHEMA);
                createView(catalog, view, "select * from t");
                assertThat(catalog.loadTable(table).schema().asStruct())
                        .as(name)
                        .isEqualTo(SCHEMA.asStruct());
                assertThat(catalog.loadView(view).sqlFor("spark").sql())
                        .as(name)
                        .isEqualTo("select * from t");
                assertThat(catalog.tableExists(view)).as(name).isFalse();
            }
            assertThat(catalog.listTables(ns)).hasSize(5);
            assertThat(catalog.listViews(ns)).hasSize(5).contains(TableIdentifier.of(ns, "v a/b"));
            assertThat(catalog.dropView(TableIdentifier.of(ns, "v 100%"))).isTrue();
            assertThat(catalog.listViews(ns)).hasSize(4);
        }
    }

    @Test
    void badViewInputGetsIcebergErrorModel() throws Exception {
        try (RESTCatalog catalog = client()) {
            catalog.createNamespace(Namespace.of("bad"));
            createView(catalog, TableIdentifier.of("bad", "v"), "select 1");
            catalog.createTable(TableIdentifier.of("bad", "t"), SCHEMA);
        }
        String views = "/v1/warehouse/namespaces/bad/views";
        assertError(server.post(views, "{not json"), 400, "BadRequestException");
        assertError(server.post(views, ""), 400, "BadRequestException");
        assertError(server.post(views, "{\"name\": \"x\"}"), 400, null);
        assertError(server.post(views, createViewBody("")), 400, null);
        assertError(server.post(views, createViewBody("v")), 409, "AlreadyExistsException");
        assertError(server.post(views, createViewBody("t")), 409, "AlreadyExistsException");
        assertError(
                server.post("/v1/warehouse/namespaces/nowhere/views", createViewBody("x")),
                404,
                "NoSuchNamespaceException");
        assertThat(server.post(views, createViewBody("made by hand"))
                        .json()
                        .get("metadata-location")
                        .asText())
                .startsWith("file:");
        // An empty name is refused for tables as for views, and a name with an encoded slash is one level, not two.
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/bad/tables",
                        "{\"name\": \"\", \"schema\": {\"type\": \"struct\", \"fields\": []}}"),
                400,
                null);
        assertError(server.get("/v1/warehouse/namespaces/bad/views/made%2Fby"), 404, "NoSuchViewException");
        assertThat(server.get("/v1/warehouse/namespaces/bad/views/made+by+hand").status())
                .isEqualTo(200);
        assertThat(server.get("/v1/warehouse/namespaces/bad/views/made%20by%20hand")
                        .status())
                .isEqualTo(200);
        // Encoded odd names that do not exist: the 404 of the kind asked for, never an HTML page or a 500.
        for (String name : List.of("a%2Fb", "100%25", "%C3%BC%E2%9C%93", "a.b", "...", "sp%20ace", "plus+sign")) {
            assertError(server.get("/v1/warehouse/namespaces/bad/tables/" + name), 404, "NoSuchTableException");
            assertError(server.get("/v1/warehouse/namespaces/bad/views/" + name), 404, "NoSuchViewException");
            assertError(server.delete("/v1/warehouse/namespaces/bad/views/" + name), 404, "NoSuchViewException");
        }
        assertError(
                server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"bad\", \"v\"]}"),
                409,
                "AlreadyExistsException");
        // "." and ".." could be created but never addressed again (HTTP normalizes them away): refused.
        assertError(server.post(views, createViewBody("..")), 400, "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/bad/tables",
                        "{\"name\": \".\", \"schema\": {\"type\": \"struct\", \"fields\": []}}"),
                400,
                "BadRequestException");
        assertError(
                server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"bad\", \"..\"]}"),
                400,
                "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/views/rename",
                        "{\"source\": {\"namespace\": [\"bad\"], \"name\": \"v\"}, \"destination\": {\"namespace\": [\"bad\"], \"name\": \".\"}}"),
                400,
                "BadRequestException");

        String view = views + "/v";
        assertError(
                server.post(view, "{\"requirements\": [], \"updates\": [{\"action\": \"frobnicate\"}]}"),
                400,
                "BadRequestException");
        assertError(
                server.post(view, "{\"requirements\": [{\"type\": \"assert-nothing\"}], \"updates\": []}"),
                400,
                "BadRequestException");
        // A table update sent to a view, and a table requirement: the client's mistake, never a 500.
        assertError(
                server.post(
                        view,
                        "{\"requirements\": [], \"updates\": [{\"action\": \"set-default-sort-order\", \"sort-order-id\": 0}]}"),
                400,
                "BadRequestException");
        assertError(
                server.post(
                        view,
                        "{\"requirements\": [{\"type\": \"assert-current-schema-id\", \"current-schema-id\": 0}], \"updates\": []}"),
                400,
                "ValidationException");
        assertError(
                server.post(
                        view,
                        "{\"requirements\": [{\"type\": \"assert-view-uuid\", \"uuid\": \"00000000-0000-0000-0000-000000000000\"}],"
                                + " \"updates\": [{\"action\": \"set-properties\", \"updates\": {\"k\": \"v\"}}]}"),
                409,
                "CommitFailedException");
        assertError(
                server.post(
                        view,
                        "{\"requirements\": [], \"updates\": [{\"action\": \"set-current-view-version\", \"view-version-id\": 42}]}"),
                400,
                null);
        // ...and a view update sent to a table.
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/bad/tables/t",
                        "{\"requirements\": [], \"updates\": [{\"action\": \"set-current-view-version\", \"view-version-id\": -1}]}"),
                400,
                "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/bad/tables/t",
                        "{\"requirements\": [{\"type\": \"assert-view-uuid\", \"uuid\": \"00000000-0000-0000-0000-000000000000\"}], \"updates\": []}"),
                400,
                "ValidationException");

        assertError(
                server.post("/v1/warehouse/views/rename", "{\"source\": {\"namespace\": [\"bad\"], \"name\": \"v\"}}"),
                400,
                null);
        assertError(server.post("/v1/warehouse/views/rename", "[1, 2]"), 400, "BadRequestException");
        assertError(
                server.post(
                        "/v1/warehouse/namespaces/bad/register-view",
                        "{\"name\": \"r\", \"metadata-location\": \"file:/nowhere/x.json\"}"),
                400,
                null);
        assertError(server.post("/v1/warehouse/namespaces/bad/register-view", "{\"name\": \"r\"}"), 400, null);
        assertError(server.send("PUT", view, "{}"), 405, "MethodNotAllowedException");
        assertThat(server.send("HEAD", "/v1/warehouse/namespaces/bad/views/v", null, new String[0])
                        .status())
                .isEqualTo(204);
        assertThat(server.send("HEAD", "/v1/warehouse/namespaces/bad/views/t", null, new String[0])
                        .status())
                .isEqualTo(404);

        // Nothing above changed the view.
        try (RESTCatalog catalog = client()) {
            View unchanged = catalog.loadView(TableIdentifier.of("bad", "v"));
            assertThat(unchanged.currentVersion().versionId()).isEqualTo(1);
            assertThat(unchanged.properties()).doesNotContainKey("k");
        }
    }

    private static String createViewBody(String name) {
        return CreateViewRequestParser.toJson(ImmutableCreateViewRequest.builder()
                .name(name)
                .schema(SCHEMA)
                .viewVersion(ImmutableViewVersion.builder()
                        .versionId(1)
                        .schemaId(0)
                        .timestampMillis(1L)
                        .defaultNamespace(Namespace.of("bad"))
                        .addRepresentations(ImmutableSQLViewRepresentation.builder()
                                .dialect("spark")
                                .sql("select 1")
                                .build())
                        .build())
                .build());
    }

    /** Iceberg's ErrorModel with the status; {@code type} checked when given; always JSON and never a 500. */
    static void assertError(TreeCatTestServer.Reply reply, int status, String type) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        assertThat(reply.contentType()).as(reply.body()).startsWith("application/json");
        assertThat(reply.error().get("code").asInt()).isEqualTo(status);
        assertThat(reply.error().get("message").asText()).isNotBlank();
        if (type != null) {
            assertThat(reply.error().get("type").asText()).as(reply.body()).isEqualTo(type);
        }
    }
}
