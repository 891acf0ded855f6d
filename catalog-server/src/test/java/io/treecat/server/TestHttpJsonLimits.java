package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code http.json.*} limits on every JSON endpoint (docs/configuration.md, docs/robustness.md):
 * a body over one is 400 naming the limit's key and value, on the native API (write sets,
 * transaction bodies, bulk-load lines) and on the Iceberg routes alike, the store is unchanged and
 * the server serves the next request. Before, a write set nested 5,000 deep and a load line deeper than
 * about 1,024 answered 500. The server runs with the default depth (256) and small length limits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestHttpJsonLimits {
    private static final String TABLE = "/v1/warehouse/namespaces/limits/tables/t";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;
    private StoreState before;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(
                directory,
                ConfigOverride.config("http.json.max-string-length", "1000"),
                ConfigOverride.config("http.json.max-name-length", "50"),
                ConfigOverride.config("http.json.max-number-length", "20"));
        assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"limits\"]}")
                        .status())
                .isEqualTo(200);
        assertThat(server.post(
                                "/v1/warehouse/namespaces/limits/tables",
                                "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"fields\": [{\"id\": 1, \"name\": \"a\","
                                        + " \"type\": \"int\", \"required\": false}]}}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @BeforeEach
    void remember() {
        before = StoreState.of(server, directory.resolve("warehouse"));
    }

    private void assertUnchangedAndServing() {
        assertThat(StoreState.of(server, directory.resolve("warehouse"))).isEqualTo(before);
        assertThat(server.get(TABLE).status()).isEqualTo(200);
    }

    private static String nested(int depth) {
        return "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
    }

    private static String writeSet(String value) {
        return "{\"writes\": [{\"op\": \"add\", \"path\": \"/deep\", \"value\": " + value + "}]}";
    }

    private static void assertNative(TreeCatTestServer.Reply reply, String type, String message, String key, int max) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        JsonNode error = reply.error();
        assertThat(error.get("type").asText()).as(reply.body()).isEqualTo(type);
        assertThat(error.get("message").asText()).as(reply.body()).isEqualTo(message);
        assertThat(error.get("context").get("limit").asText()).isEqualTo(key);
        assertThat(error.get("context").get("max").asText()).isEqualTo(String.valueOf(max));
    }

    private static void assertIceberg(TreeCatTestServer.Reply reply, String message, String key, int max) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.error().get("type").asText()).as(reply.body()).isEqualTo("BadRequestException");
        assertThat(reply.error().get("message").asText())
                .as(reply.body())
                .isEqualTo(message + " {limit=" + key + ", max=" + max + "}");
    }

    // ---- depth

    @Test
    void aWriteSetNested5000DeepIs400NotAStackOverflow() {
        assertNative(
                server.post("/treecat/v1/commit", writeSet(nested(5_000))),
                "INVALID_REQUEST",
                "JSON nesting is deeper than the limit",
                "http.json.max-depth",
                256);
        assertNative(
                server.post("/treecat/v1/commit", writeSet(nested(300))),
                "INVALID_REQUEST",
                "JSON nesting is deeper than the limit",
                "http.json.max-depth",
                256);
        assertUnchangedAndServing();
    }

    @Test
    void aWriteSetUpToTheLimitCommits() {
        // writes, [, {, value: 4 levels before the value's own.
        TreeCatTestServer.Reply reply = server.post("/treecat/v1/commit", writeSet(nested(252)));

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(server.get("/treecat/v1/objects?path=%2Fdeep").status()).isEqualTo(200);
        assertThat(server.post("/treecat/v1/commit", "{\"writes\": [{\"op\": \"remove\", \"path\": \"/deep\"}]}")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aLoadLineDeeperThanTheLimitIs400NamingTheLine() {
        String lines = "{\"path\": \"/ok\", \"kind\": \"leaf\", \"value\": {}}\n"
                + "{\"path\": \"/deep\", \"kind\": \"leaf\", \"value\": " + nested(2_000) + "}\n";
        TreeCatTestServer.Reply reply = server.postStreamed(
                "/treecat/v1/load", () -> new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)));

        assertNative(
                reply,
                "INVALID_LOAD_RECORD",
                "Invalid record at line 2: JSON nesting is deeper than the limit",
                "http.json.max-depth",
                256);
        assertThat(reply.error().get("context").get("committedRecords").asText())
                .isEqualTo("0");
        assertUnchangedAndServing();
    }

    @Test
    void icebergRequestsDeeperThanTheLimitAre400() {
        String deepProperties =
                "{\"namespace\": [\"deep\"], \"properties\": {\"a\": " + "[".repeat(300) + "]".repeat(300) + "}}";
        assertIceberg(
                server.post("/v1/warehouse/namespaces", deepProperties),
                "JSON nesting is deeper than the limit",
                "http.json.max-depth",
                256);
        String deepCommit = "{\"requirements\": [], \"updates\": [" + "[".repeat(5_000) + "]".repeat(5_000) + "]}";
        assertIceberg(
                server.post(TABLE, deepCommit), "JSON nesting is deeper than the limit", "http.json.max-depth", 256);
        String deepFilter =
                "{\"filter\": " + "{\"type\": \"not\", \"child\": ".repeat(300) + "true" + "}".repeat(300) + "}";
        assertIceberg(
                server.post(TABLE + "/plan", deepFilter),
                "JSON nesting is deeper than the limit",
                "http.json.max-depth",
                256);
        assertUnchangedAndServing();
    }

    // ---- lengths

    @Test
    void stringsNamesAndNumbersOverTheirLimitsAre400OnTheNativeApi() {
        assertNative(
                server.post("/treecat/v1/transactions", "{\"mode\": \"" + "r".repeat(1_001) + "\"}"),
                "INVALID_REQUEST",
                "A JSON string is longer than the limit",
                "http.json.max-string-length",
                1000);
        assertNative(
                server.post("/treecat/v1/commit", writeSet("{\"s\": \"" + "x".repeat(1_001) + "\"}")),
                "INVALID_REQUEST",
                "A JSON string is longer than the limit",
                "http.json.max-string-length",
                1000);
        assertNative(
                server.post("/treecat/v1/commit", writeSet("{\"" + "n".repeat(51) + "\": 1}")),
                "INVALID_REQUEST",
                "A JSON field name is longer than the limit",
                "http.json.max-name-length",
                50);
        assertNative(
                server.post("/treecat/v1/commit", writeSet("{\"n\": " + "9".repeat(21) + "}")),
                "INVALID_REQUEST",
                "A JSON number is longer than the limit",
                "http.json.max-number-length",
                20);
        assertNative(
                server.post("/treecat/v1/transactions", "{\"vid\": " + "1".repeat(21) + "}"),
                "INVALID_REQUEST",
                "A JSON number is longer than the limit",
                "http.json.max-number-length",
                20);
        assertUnchangedAndServing();
    }

    @Test
    void stringsNamesAndNumbersOverTheirLimitsAre400OnTheIcebergRoutes() {
        assertIceberg(
                server.post(
                        "/v1/warehouse/namespaces/limits/properties",
                        "{\"updates\": {\"a\": \"" + "x".repeat(1_001) + "\"}}"),
                "A JSON string is longer than the limit",
                "http.json.max-string-length",
                1000);
        assertIceberg(
                server.post(
                        "/v1/warehouse/namespaces/limits/properties",
                        "{\"updates\": {\"" + "k".repeat(51) + "\": \"v\"}}"),
                "A JSON field name is longer than the limit",
                "http.json.max-name-length",
                50);
        assertIceberg(
                server.post(
                        TABLE,
                        "{\"requirements\": [{\"type\": \"assert-current-schema-id\", \"current-schema-id\": "
                                + "1".repeat(21) + "}], \"updates\": []}"),
                "A JSON number is longer than the limit",
                "http.json.max-number-length",
                20);
        JsonNode properties =
                server.get("/v1/warehouse/namespaces/limits").json().get("properties");
        assertThat(properties.has("a")).isFalse();
        assertThat(properties.has("k".repeat(51))).isFalse();
        assertUnchangedAndServing();
    }
}
