package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What Jetty refuses before Jersey sees a request answers JSON (docs/iceberg-rest.md, "Errors Jetty
 * answers"): Iceberg's ErrorResponse under {@code /v1}, the native shape elsewhere, never HTML, and
 * the server serves the next request. The requests are written on a raw socket, as a client's bytes
 * reach the server: Java's HTTP client refuses to send most of them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestJettyErrors {
    /** Stands for 20,000 characters in a request: over Jetty's URI and header limits. */
    private static final String LONG = "{LONG}";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        // No graceful drain at stop: a connection this class left half-spoken (an oversized header, a lying
        // length) can hold Jetty's graceful shutdown until its idle timeout, as long as the 30 s grace
        // period, and the stop then fails the class (seen once in CI). What is tested here is the answers.
        server = new TreeCatTestServer(directory, ConfigOverride.config("server.shutdownGracePeriod", "0 seconds"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private record Raw(int status, String contentType, String body) {}

    /** Sends {@code head} (request line and headers, without the blank line) and reads the whole answer. */
    private Raw send(String head) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((head.replace(LONG, "a".repeat(20_000)) + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            String response = bytes.toString(StandardCharsets.UTF_8);
            int split = response.indexOf("\r\n\r\n");
            String[] lines = response.substring(0, split).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            String contentType = "";
            for (String line : lines) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
                    contentType = line.substring("content-type:".length()).trim();
                }
            }
            return new Raw(status, contentType, response.substring(split + 4));
        }
    }

    private void assertServesNext() {
        TreeCatTestServer.Reply config = server.get("/v1/config");
        assertThat(config.status()).isEqualTo(200);
        assertThat(config.json().get("overrides").get("prefix").asText()).isEqualTo("warehouse");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "GET /v1/x/namespaces/%2E%2E/tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/x/namespaces/%2e/tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/x/namespaces//tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/x/namespaces/..;/tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/x/namespaces/%zz/tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/x/namespaces/a%00b/tables HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/config?q={LONG} HTTP/1.1\r\nHost: 127.0.0.1",
                "GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {LONG}",
                "GET /v1/config HTTP/1.1\r\nHost: a b",
                "POST /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc",
                "POST /v1/warehouse/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2",
                "FOO /v1/warehouse/namespaces HTTP/1.1\r\nHost: 127.0.0.1",
            })
    void malformedRequestsAnswerIcebergJson(String head) throws IOException {
        Raw raw = send(head);

        assertThat(raw.status()).isBetween(400, 499);
        assertThat(raw.contentType()).startsWith("application/json");
        assertThat(raw.body()).doesNotContain("<");
        ErrorResponse error = ErrorResponseParser.fromJson(raw.body());
        assertThat(error.code()).isEqualTo(raw.status());
        assertThat(error.type()).endsWith("Exception");
        assertThat(error.message()).isNotBlank();
        assertServesNext();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"/v1/x/namespaces/%2E%2E/tables", "/v1/x/namespaces//tables", "/v1/x/namespaces/%zz/tables"})
    void ambiguousAndBadlyEncodedPathsAreBadRequests(String path) throws IOException {
        Raw raw = send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1");

        assertThat(raw.status()).isEqualTo(400);
        ErrorResponse error = ErrorResponseParser.fromJson(raw.body());
        assertThat(error.type()).isEqualTo("BadRequestException");
        assertThat(error.message()).containsAnyOf("Ambiguous URI", "Bad Request");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/warehouse/namespaces/%2E%2E/tables|Ambiguous URI path segment: GET /v1/warehouse/namespaces/%2E%2E/tables",
                "/v1/warehouse/namespaces//tables|Ambiguous URI empty segment: GET /v1/warehouse/namespaces//tables",
                "/v1/warehouse/namespaces/..;/tables|Ambiguous URI path parameter: GET /v1/warehouse/namespaces/..;/tables",
            })
    void ambiguousPathsAreQuotedInTheMessage(String row) throws IOException {
        String[] parts = row.split("\\|");
        Raw raw = send("GET " + parts[0] + " HTTP/1.1\r\nHost: 127.0.0.1");

        assertThat(raw.status()).isEqualTo(400);
        assertThat(ErrorResponseParser.fromJson(raw.body()).message()).isEqualTo(parts[1]);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {LONG}|431|RequestTooLargeException|Request Header Fields Too Large: GET /v1/config",
                "FOO /v1/warehouse/namespaces HTTP/1.1\r\nHost: 127.0.0.1|405|MethodNotAllowedException|Method Not Allowed: FOO /v1/warehouse/namespaces",
                "POST /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc|400|BadRequestException|Invalid Content-Length Value: POST /v1/config",
            })
    void theMessageSaysWhatAndWhere(String row) throws IOException {
        String[] parts = row.split("\\|");
        Raw raw = send(parts[0]);

        assertThat(raw.status()).isEqualTo(Integer.parseInt(parts[1]));
        ErrorResponse error = ErrorResponseParser.fromJson(raw.body());
        assertThat(error.type()).isEqualTo(parts[2]);
        assertThat(error.message()).isEqualTo(parts[3]);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "FOO /treecat/v1/objects HTTP/1.1\r\nHost: 127.0.0.1|405|METHOD_NOT_ALLOWED",
                "GET /treecat/v1/%2E%2E/objects HTTP/1.1\r\nHost: 127.0.0.1|400|BAD_REQUEST",
                "GET /treecat/v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {LONG}|431|REQUEST_HEADER_FIELDS_TOO_LARGE",
            })
    void nativePathsAnswerTheNativeShape(String row) throws IOException {
        String[] parts = row.split("\\|");
        Raw raw = send(parts[0]);

        assertThat(raw.status()).isEqualTo(Integer.parseInt(parts[1]));
        assertThat(raw.contentType()).startsWith("application/json");
        JsonNode error = TreeCatTestServer.JSON.readTree(raw.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo(parts[2]);
        assertThat(error.get("code").asInt()).isEqualTo(raw.status());
        assertThat(error.get("context").isObject()).isTrue();
        assertThat(error.get("message").asText()).contains("/treecat/v1/");
        assertServesNext();
    }
}
