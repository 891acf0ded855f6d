package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auth.admin-token-file}: a real server whose admin port answers its probes' paths to anyone and everything
 * else (metrics, tasks) only with the file's token, with auth off as with auth on; the token appears in no answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestAdminPortToken {
    private static final String TOKEN = "c2VjcmV0LWFkbWluLXRva2VuLWZvci10aGUtdGVzdA==";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() throws Exception {
        Path tokenFile = directory.resolve("admin.token");
        Files.writeString(tokenFile, TOKEN + "\n");
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        server = new TreeCatTestServer(directory, ConfigOverride.config("auth.admin-token-file", tokenFile.toString()));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> admin(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.adminPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theProbesPathsNeedNoToken() throws Exception {
        assertThat(admin("GET", "/ping").statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/healthcheck").statusCode()).isEqualTo(200);
    }

    @Test
    void metricsAndTasksNeedTheToken() throws Exception {
        for (String[] call : new String[][] {
            {"GET", "/metrics"}, {"GET", "/metrics/prometheus"}, {"GET", "/threads"}, {"POST", "/tasks/gc-run"},
            {"POST", "/tasks/log-level"}, {"POST", "/ping"}, {"GET", "/ping/../metrics"}, {"GET", "/healthcheck/x"}
        }) {
            HttpResponse<String> refused = admin(call[0], call[1]);
            assertThat(refused.statusCode()).as(String.join(" ", call)).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"treecat-admin\"");
            assertThat(refused.body()).contains("auth.admin-token-file");
        }
        HttpResponse<String> metrics = admin("GET", "/metrics/prometheus", "Authorization", "Bearer " + TOKEN);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("treecat_");
        assertThat(admin("GET", "/metrics", "Authorization", "bearer " + TOKEN).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aWrongOrDoubledTokenIsRefusedWithoutEchoingIt() throws Exception {
        for (String[] headers : new String[][] {
            {"Authorization", "Bearer " + TOKEN + "x"},
            {"Authorization", "Bearer " + TOKEN.substring(1)},
            {"Authorization", "Basic " + TOKEN},
            {"Authorization", "Bearer"},
            {"Authorization", "Bearer " + TOKEN, "Authorization", "Bearer " + TOKEN}
        }) {
            HttpResponse<String> refused = admin("GET", "/metrics", headers);
            assertThat(refused.statusCode()).as(headers[1]).isEqualTo(401);
            assertThat(refused.body()).doesNotContain(TOKEN.substring(4, 20));
        }
    }

    @Test
    void anApplicationTokenIsNotTheAdminToken() throws Exception {
        // The application port is untouched by the admin token (auth is off here: its routes stay open).
        assertThat(server.get("/v1/config").status()).isEqualTo(200);
        assertThat(admin("GET", "/metrics", "Authorization", "Bearer some.jwt.token")
                        .statusCode())
                .isEqualTo(401);
    }

    @Test
    void aTooShortOrUnreadableTokenFileStopsTheStart(@TempDir Path other) throws Exception {
        Path shortToken = other.resolve("short.token");
        Files.writeString(shortToken, "tooshort");
        assertThatThrownBy(() -> new TreeCatTestServer(
                                other.resolve("a"),
                                ConfigOverride.config("auth.admin-token-file", shortToken.toString()))
                        .close())
                .hasStackTraceContaining("auth.admin-token-file must hold a token of 32 to 4096 characters")
                .hasStackTraceContaining("it holds 8");
        assertThatThrownBy(() -> new TreeCatTestServer(
                                other.resolve("b"),
                                ConfigOverride.config(
                                        "auth.admin-token-file",
                                        other.resolve("absent").toString()))
                        .close())
                .hasStackTraceContaining("Cannot read auth.admin-token-file: NoSuchFileException");
    }
}
