package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyIceberg with {@code credential=<client id>:<secret>} against a server with {@code auth.enabled}
 * ({@code src/test/python/pyiceberg_auth.py}): it gets a token from {@code /v1/oauth/tokens}, creates, appends and
 * scans; without a credential it is refused (401), and with a wrong secret too. The principal is made while auth is
 * off, then the server restarts with auth on, as docs/security.md's "Turning it on" says. Runs after {@code package}
 * (failsafe), in the venv {@link PythonProcesses} makes.
 */
class PyIcebergAuthIT {
    @TempDir
    Path directory;

    @Test
    void pyicebergAuthenticatesWithAClientCredential() throws Exception {
        String credential;
        try (TreeCatTestServer open = new TreeCatTestServer(directory.resolve("server"))) {
            TreeCatTestServer.Reply created = open.post("/treecat/v1/principals", "{\"name\": \"pyiceberg\"}");
            assertThat(created.status()).isEqualTo(201);
            credential = created.json().get("credential").asText();
        }
        try (TreeCatTestServer server = new TreeCatTestServer(
                directory.resolve("server"),
                ConfigOverride.config("auth.enabled", "true"),
                // Authentication is what this test is about: the principal may do everything.
                ConfigOverride.config("auth.admin-principals", "pyiceberg"))) {
            Path python = PythonProcesses.python(directory);
            PythonProcesses.Run run = PythonProcesses.run(
                    List.of(
                            python.toString(),
                            PythonProcesses.script("pyiceberg_auth.py").toString(),
                            "http://127.0.0.1:" + server.port()),
                    directory,
                    300,
                    Map.of("TREECAT_CREDENTIAL", credential));
            assertThat(run.exitCode())
                    .as("pyiceberg_auth.py failed:%n%s%n%s", run.out(), run.err())
                    .isZero();
            assertThat(run.out()).contains("PYICEBERG AUTH OK");
            assertThat(run.out() + run.err()).doesNotContain(credential.split(":", 2)[1]);
        }
    }
}
