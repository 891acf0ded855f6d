package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyIceberg with {@code token=<an external issuer's access token>} against a server with {@code auth.enabled} and
 * one {@code auth.oidc} issuer (navikt's mock-oauth2-server on loopback; {@code src/test/python/pyiceberg_oidc.py}):
 * it creates, appends and scans, the commit log names the issuer's principal, and a token for another audience is
 * refused. Runs after {@code package} (failsafe), in the venv {@link PythonProcesses} makes.
 */
class PyIcebergOidcIT {
    @TempDir
    Path directory;

    @Test
    void pyicebergAuthenticatesWithAnIssuersToken() throws Exception {
        MockOAuth2Server idp = new MockOAuth2Server();
        idp.start();
        try (TreeCatTestServer server = new TreeCatTestServer(
                directory.resolve("server"),
                TestOidcAuth.oidc(
                        directory.resolve("oidc.yml"), idp.issuerUrl("default").toString(), "1 second"),
                ConfigOverride.config("auth.enabled", "true"),
                // The job creates a namespace and a table: with grants in force it needs them (here, all of them).
                ConfigOverride.config("auth.admin-principals", "idp:pyiceberg-job"))) {
            String token = idp.issueToken("default", "pyiceberg-job", TestOidcAuth.AUDIENCE, Map.of(), 3600)
                    .serialize();
            String foreign = idp.issueToken("default", "pyiceberg-job", "another-api", Map.of(), 3600)
                    .serialize();
            Path python = PythonProcesses.python(directory);
            PythonProcesses.Run run = PythonProcesses.run(
                    List.of(
                            python.toString(),
                            PythonProcesses.script("pyiceberg_oidc.py").toString(),
                            "http://127.0.0.1:" + server.port()),
                    directory,
                    300,
                    Map.of("TREECAT_TOKEN", token, "TREECAT_FOREIGN_TOKEN", foreign));
            assertThat(run.exitCode())
                    .as("pyiceberg_oidc.py failed:%n%s%n%s", run.out(), run.err())
                    .isZero();
            assertThat(run.out()).contains("PYICEBERG OIDC OK");

            JsonNode log = server.send(
                            "GET", "/treecat/v1/commits?limit=5&order=newest", null, "Authorization", "Bearer " + token)
                    .json();
            assertThat(log.get("commits").findValuesAsText("principal"))
                    .as(log.toString())
                    .contains("idp:pyiceberg-job");
        } finally {
            idp.shutdown();
        }
    }
}
