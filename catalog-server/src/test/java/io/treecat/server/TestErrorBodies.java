package io.treecat.server;

import static io.treecat.server.RawHttp.concat;
import static io.treecat.server.RawHttp.head;
import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of failing request, on both APIs and before either sees it (Jetty's own refusals),
 * answers a JSON error whose body names no server path (the data directory, the warehouse), no Java
 * exception class and no stack frame (docs/robustness.md, "Error bodies"). Sent on raw sockets, so the
 * framing failures (a stalled body, a bad chunk size, bad gzip) are among them; the server answers
 * health and the next request afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestErrorBodies {
    /** A Java class name of an exception or error ({@code java.io.IOException}, {@code org.rocksdb.RocksDBException}). */
    private static final Pattern QUALIFIED_EXCEPTION =
            Pattern.compile("\\b[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+\\.[A-Z]\\w*(Exception|Error)\\b");
    /** A stack frame ({@code at io.treecat.X.y(X.java:12)}). */
    private static final Pattern STACK_FRAME = Pattern.compile("\\bat [a-z][\\w$]*(\\.[\\w$]+)+\\(");

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(
                directory,
                ConfigOverride.config("http.read-timeout", "1 second"),
                ConfigOverride.config("http.max-request-size", "64KiB"));
        assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"ns\"]}")
                        .status())
                .isEqualTo(200);
        assertThat(server.post(
                                "/v1/warehouse/namespaces/ns/tables",
                                "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"fields\": [{\"id\": 1, \"name\": \"a\","
                                        + " \"type\": \"string\", \"required\": false}]}}")
                        .status())
                .isEqualTo(200);
        assertThat(server.post(
                                "/treecat/v1/commit",
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"/free\", \"value\": {}}]}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static byte[] json(String method, String path, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return concat(
                head(
                        method,
                        path,
                        "Content-Type: application/json",
                        "Content-Length: " + bytes.length,
                        "Connection: close"),
                bytes);
    }

    private static byte[] bare(String method, String path, String... headers) {
        List<String> all = new ArrayList<>(List.of(headers));
        all.add("Connection: close");
        return head(method, path, all.toArray(String[]::new));
    }

    private static String nested(int depth) {
        return "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
    }

    /** One request of each kind that fails, with the status it must get. */
    private record Failing(String what, byte[] request, int status) {}

    private static List<Failing> failing() {
        String table = "/v1/warehouse/namespaces/ns/tables/t";
        return List.of(
                // native API: the catalog's errors
                new Failing("query syntax", bare("GET", "/treecat/v1/query?q=%2F%5Bobj_id"), 400),
                new Failing("bad continuation", bare("GET", "/treecat/v1/query?q=%2F*&pageToken=zzzz"), 400),
                new Failing("missing object", bare("GET", "/treecat/v1/objects?path=%2Fnope"), 404),
                new Failing("unknown vid", bare("GET", "/treecat/v1/objects?path=%2Ffree&vid=999"), 404),
                new Failing("unknown snapshot", bare("GET", "/treecat/v1/objects?path=%2Ffree&snapshot=nope"), 404),
                new Failing("unknown transaction", bare("GET", "/treecat/v1/transactions/nope/objects?path=%2F"), 400),
                new Failing(
                        "object exists",
                        json(
                                "POST",
                                "/treecat/v1/commit",
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"/free\", \"value\": {}}]}"),
                        409),
                new Failing(
                        "missing parent",
                        json(
                                "POST",
                                "/treecat/v1/commit",
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"/a/b\", \"value\": {}}]}"),
                        404),
                new Failing(
                        "bad path",
                        json(
                                "POST",
                                "/treecat/v1/commit",
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"x\", \"value\": {}}]}"),
                        400),
                new Failing(
                        "lake validator",
                        json(
                                "POST",
                                "/treecat/v1/commit",
                                "{\"writes\": [{\"op\": \"update\", \"path\": \"/warehouse/ns/t\", \"value\": {\"obj_type\": \"table\"}}]}"),
                        400),
                // native API: the request's errors
                new Failing("not JSON", json("POST", "/treecat/v1/commit", "{\"writes\": ["), 400),
                new Failing(
                        "too deep", json("POST", "/treecat/v1/commit", "{\"writes\": [" + nested(5_000) + "]}"), 400),
                new Failing("wrong type", json("POST", "/treecat/v1/transactions", "{\"vid\": 1.5}"), 400),
                new Failing(
                        "bad load line",
                        json(
                                "POST",
                                "/treecat/v1/load",
                                "{\"path\": \"/l\", \"kind\": \"leaf\", \"value\": " + nested(2_000) + "}"),
                        400),
                new Failing(
                        "too large",
                        concat(
                                head(
                                        "POST",
                                        "/treecat/v1/commit",
                                        "Content-Type: application/json",
                                        "Content-Length: 1000000",
                                        "Connection: close"),
                                "{".getBytes(StandardCharsets.UTF_8)),
                        413),
                new Failing("no such endpoint", bare("GET", "/treecat/v1/nope"), 404),
                new Failing("wrong method", bare("PUT", "/treecat/v1/commit", "Content-Length: 0"), 405),
                // Iceberg REST
                new Failing("no such namespace", bare("GET", "/v1/warehouse/namespaces/nope"), 404),
                new Failing("no such table", bare("GET", "/v1/warehouse/namespaces/ns/tables/nope"), 404),
                new Failing(
                        "namespace exists", json("POST", "/v1/warehouse/namespaces", "{\"namespace\": [\"ns\"]}"), 409),
                new Failing(
                        "table exists",
                        json(
                                "POST",
                                "/v1/warehouse/namespaces/ns/tables",
                                "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"fields\": []}}"),
                        409),
                new Failing(
                        "requirement failed",
                        json(
                                "POST",
                                table,
                                "{\"requirements\": [{\"type\": \"assert-table-uuid\", \"uuid\": \"00000000-0000-0000-0000-000000000000\"}],"
                                        + " \"updates\": []}"),
                        409),
                new Failing("commit body a string", json("POST", table, "\"x\""), 400),
                new Failing("commit body too deep", json("POST", table, "{\"updates\": [" + nested(5_000) + "]}"), 400),
                new Failing(
                        "unknown update",
                        json("POST", table, "{\"requirements\": [], \"updates\": [{\"action\": \"explode\"}]}"),
                        400),
                new Failing(
                        "bad transform",
                        json(
                                "POST",
                                table + "/plan",
                                "{\"filter\": {\"type\": \"eq\", \"term\": {\"type\": \"transform\", \"transform\": \"truncate[-1]\","
                                        + " \"term\": \"a\"}, \"value\": \"x\"}}"),
                        400),
                new Failing(
                        "bad plan task", json("POST", table + "/tasks", "{\"plan-task\": \"eyJ2aWQiOiJ4In0\"}"), 404),
                new Failing(
                        "name the file system cannot take",
                        json("POST", "/v1/warehouse/namespaces", "{\"namespace\": [\"s\\ud800\"]}"),
                        400),
                new Failing(
                        "location of another scheme",
                        json(
                                "POST",
                                "/v1/warehouse/namespaces/ns/tables",
                                "{\"name\": \"s3\", \"location\": \"s3://bucket/t\", \"schema\": {\"type\": \"struct\", \"fields\": []}}"),
                        400),
                new Failing("malformed metrics report", json("POST", table + "/metrics", "{\"report-type\": 1}"), 400),
                new Failing("no such route", bare("GET", "/v1/warehouse/nope"), 404),
                // the body's framing, either API
                new Failing(
                        "stalled body",
                        concat(
                                head("POST", table, "Content-Type: application/json", "Content-Length: 100"),
                                "{\"upd".getBytes(StandardCharsets.UTF_8)),
                        408),
                new Failing(
                        "bad chunk size",
                        concat(
                                head(
                                        "POST",
                                        "/treecat/v1/commit",
                                        "Content-Type: application/json",
                                        "Transfer-Encoding: chunked"),
                                "zz\r\n{}\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)),
                        400),
                new Failing(
                        "bad gzip",
                        concat(
                                head(
                                        "POST",
                                        "/v1/warehouse/namespaces",
                                        "Content-Type: application/json",
                                        "Content-Encoding: gzip",
                                        "Content-Length: 14",
                                        "Connection: close"),
                                new byte[] {0x1f, (byte) 0x8b, 8, 0, 'g', 'a', 'r', 'b', 'a', 'g', 'e', '!', '!', '!'}),
                        400),
                new Failing(
                        "unknown content coding",
                        concat(
                                head(
                                        "POST",
                                        "/v1/warehouse/namespaces",
                                        "Content-Type: application/json",
                                        "Content-Encoding: br",
                                        "Content-Length: 2",
                                        "Connection: close"),
                                "{}".getBytes(StandardCharsets.UTF_8)),
                        415),
                // what Jetty refuses before either API
                new Failing("ambiguous path", bare("GET", "/v1/warehouse/namespaces/%2e%2e/tables"), 400),
                new Failing("bad percent-encoding", bare("GET", "/v1/warehouse/namespaces/%zz"), 400),
                new Failing("header too large", bare("GET", "/v1/config", "X-Big: " + "a".repeat(20_000)), 431));
    }

    @Test
    void noErrorBodyNamesAServerPathAnExceptionOrAStackFrame() throws IOException {
        String dataDirectory = directory.resolve("data").toAbsolutePath().toString();
        String warehouse = directory.resolve("warehouse").toAbsolutePath().toString();
        List<String> bodies = new ArrayList<>();
        for (Failing failing : failing()) {
            RawHttp.Answer answer = RawHttp.send(server.port(), failing.request(), 20_000);

            assertThat(answer.status())
                    .as(failing.what() + ": " + answer.body())
                    .isEqualTo(failing.status());
            assertThat(answer.header("Content-Type")).as(failing.what()).startsWith("application/json");
            assertThat(answer.body())
                    .as(failing.what())
                    .startsWith("{\"error\":")
                    .doesNotContain(dataDirectory)
                    .doesNotContain(warehouse)
                    .doesNotContain(directory.toString())
                    .doesNotContainPattern(QUALIFIED_EXCEPTION)
                    .doesNotContainPattern(STACK_FRAME)
                    .doesNotContain("\tat ");
            bodies.add(answer.body());
        }
        assertThat(bodies).hasSize(failing().size());
        assertThat(server.admin("/healthcheck").status()).isEqualTo(200);
        assertThat(server.get("/v1/warehouse/namespaces/ns/tables/t").status()).isEqualTo(200);
    }
}
