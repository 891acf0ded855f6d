package io.treecat.server;

import static io.treecat.server.RawHttp.concat;
import static io.treecat.server.RawHttp.head;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request whose body does not arrive as it says (docs/robustness.md, "Request bodies that stall or
 * are malformed"): a body that stops arriving is 408 after {@code http.read-timeout}, a bad chunk
 * size or a body that is not the gzip its {@code Content-Encoding} says is 400, a content coding the
 * server does not decode is 415, each as the API's JSON error; the store is unchanged and the server
 * serves the next request. Written on raw sockets: Java's HTTP client sends none of these.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestRequestFraming {
    /** Both APIs: the native commit and the Iceberg namespace create. */
    private static final String NATIVE = "/treecat/v1/commit";

    private static final String ICEBERG = "/v1/warehouse/namespaces";
    private static final String NATIVE_BODY = "{\"writes\": [{\"op\": \"add\", \"path\": \"/framed\", \"value\": {}}]}";
    private static final String ICEBERG_BODY = "{\"namespace\": [\"framed\"]}";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;
    private StoreState before;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory, ConfigOverride.config("http.read-timeout", "1 second"));
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
        assertThat(server.get("/v1/config").status()).isEqualTo(200);
    }

    private static String body(String path) {
        return path.equals(NATIVE) ? NATIVE_BODY : ICEBERG_BODY;
    }

    private static JsonNode error(RawHttp.Answer answer) {
        assertThat(answer.header("Content-Type")).startsWith("application/json");
        return new TreeCatTestServer.Reply(
                        answer.status(), answer.header("Content-Type"), answer.body(), java.util.Map.of())
                .error();
    }

    /** The error of each API: the native type and context, or Iceberg's exception name with the context in the message. */
    private static void assertError(
            RawHttp.Answer answer, String path, int status, String nativeType, String icebergType, String message) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(status);
        JsonNode error = error(answer);
        assertThat(error.get("code").asInt()).isEqualTo(status);
        if (path.equals(NATIVE)) {
            assertThat(error.get("type").asText()).isEqualTo(nativeType);
            assertThat(error.get("message").asText()).isEqualTo(message);
        } else {
            assertThat(error.get("type").asText()).isEqualTo(icebergType);
            assertThat(error.get("message").asText()).startsWith(message);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {NATIVE, ICEBERG})
    void aBodyThatStopsArrivingIs408AfterTheReadTimeout(String path) throws IOException {
        byte[] body = body(path).getBytes(StandardCharsets.UTF_8);
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head("POST", path, "Content-Type: application/json", "Content-Length: " + body.length),
                        java.util.Arrays.copyOf(body, body.length / 2)),
                20_000);

        assertError(
                answer, path, 408, "REQUEST_TIMEOUT", "RequestTimeoutException", "The request body stopped arriving");
        assertThat(error(answer).toString()).contains("http.read-timeout").contains("1000");
        // Well before Jetty's own 30-second idle timeout.
        assertThat(answer.millis()).isBetween(900L, 10_000L);
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @ValueSource(strings = {NATIVE, ICEBERG})
    void aChunkedBodyThatStopsArrivingIs408Too(String path) throws IOException {
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head("POST", path, "Content-Type: application/json", "Transfer-Encoding: chunked"),
                        "5\r\n{\"wri\r\n".getBytes(StandardCharsets.ISO_8859_1)),
                20_000);

        assertError(
                answer, path, 408, "REQUEST_TIMEOUT", "RequestTimeoutException", "The request body stopped arriving");
        assertUnchangedAndServing();
    }

    @Test
    void aSlowBodyThatKeepsMovingIsRead() throws IOException {
        byte[] body = NATIVE_BODY.getBytes(StandardCharsets.UTF_8);
        int third = body.length / 3;
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                20_000,
                600,
                head("POST", NATIVE, "Content-Type: application/json", "Content-Length: " + body.length),
                java.util.Arrays.copyOfRange(body, 0, third),
                java.util.Arrays.copyOfRange(body, third, 2 * third),
                java.util.Arrays.copyOfRange(body, 2 * third, body.length));

        // 1.8 s in all, never 1 s without a byte: the timeout is on a stall, not on the whole body.
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(server.get("/treecat/v1/objects?path=%2Fframed").status()).isEqualTo(200);
        server.post(NATIVE, "{\"writes\": [{\"op\": \"remove\", \"path\": \"/framed\"}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {NATIVE, ICEBERG})
    void aBadChunkSizeIs400(String path) throws IOException {
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head("POST", path, "Content-Type: application/json", "Transfer-Encoding: chunked"),
                        ("zz\r\n" + body(path) + "\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)),
                20_000);

        assertError(
                answer,
                path,
                400,
                "INVALID_REQUEST",
                "BadRequestException",
                "The request body is malformed or ended early");
        assertThat(answer.millis()).isLessThan(5_000L);
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @ValueSource(strings = {NATIVE, ICEBERG})
    void aBodyThatIsNotTheGzipItSaysIs400(String path) throws IOException {
        byte[] gzip = gzip(body(path));
        // A gzip header, then the deflate stream broken.
        byte[] broken = java.util.Arrays.copyOf(gzip, gzip.length);
        for (int i = 10; i < broken.length - 8; i++) {
            broken[i] = (byte) 0xff;
        }
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head(
                                "POST",
                                path,
                                "Content-Type: application/json",
                                "Content-Encoding: gzip",
                                "Content-Length: " + broken.length),
                        broken),
                20_000);

        assertError(answer, path, 400, "INVALID_REQUEST", "BadRequestException", "The request body is not valid gzip");
        assertUnchangedAndServing();
    }

    @Test
    void aGzipBodyIsInflated() throws IOException {
        byte[] gzip = gzip(ICEBERG_BODY);
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head(
                                "POST",
                                ICEBERG,
                                "Content-Type: application/json",
                                "Content-Encoding: gzip",
                                "Content-Length: " + gzip.length),
                        gzip),
                20_000);

        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(server.delete(ICEBERG + "/framed").status()).isEqualTo(204);
    }

    @ParameterizedTest
    @ValueSource(strings = {NATIVE, ICEBERG})
    void aContentCodingTheServerDoesNotDecodeIs415(String path) throws IOException {
        byte[] body = body(path).getBytes(StandardCharsets.UTF_8);
        RawHttp.Answer answer = RawHttp.send(
                server.port(),
                concat(
                        head(
                                "POST",
                                path,
                                "Content-Type: application/json",
                                "Content-Encoding: br",
                                "Content-Length: " + body.length),
                        body),
                20_000);

        assertError(
                answer,
                path,
                415,
                "UNSUPPORTED_CONTENT_ENCODING",
                "UnsupportedMediaTypeException",
                "The request body's Content-Encoding is not supported (send gzip or none)");
        assertThat(error(answer).toString()).contains("br");
        assertUnchangedAndServing();
    }

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }
}
