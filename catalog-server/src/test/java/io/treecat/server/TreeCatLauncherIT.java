package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the real launcher, {@code bin/treecat}, as a user does. Runs after {@code package} (failsafe)
 * because the launcher runs the packaged jar; {@code TREECAT_NO_BUILD=1} keeps it from rebuilding.
 */
class TreeCatLauncherIT {
    @TempDir
    Path directory;

    private static Path launcher() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("bin/treecat"))) {
                return dir.resolve("bin/treecat");
            }
        }
        throw new IllegalStateException(
                "bin/treecat not found above " + Path.of("").toAbsolutePath());
    }

    private record Run(int exitCode, String out, String err) {}

    private Process start(Map<String, String> environment, String... arguments) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(launcher().toString()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectOutput(directory.resolve("out.txt").toFile())
                .redirectError(directory.resolve("err.txt").toFile());
        builder.environment().put("TREECAT_NO_BUILD", "1");
        builder.environment().putAll(environment);
        return builder.start();
    }

    private Run run(String... arguments) throws Exception {
        Process process = start(Map.of(), arguments);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(
                process.exitValue(),
                Files.readString(directory.resolve("out.txt")),
                Files.readString(directory.resolve("err.txt")));
    }

    @Test
    void helpListsTheCommands() throws Exception {
        Run help = run("help");
        assertThat(help.exitCode()).isEqualTo(0);
        assertThat(help.out())
                .contains(
                        "{server,check-config,demo,query,get,commit,catalog,snapshot,clone,load,export,log,watch,principals,roles,grants,who-can,replication}");
    }

    @Test
    void checkConfigAcceptsAGoodFileAndNamesABadKey() throws Exception {
        Path good = directory.resolve("good.yml");
        Files.writeString(good, "storage:\n  data-dir: /tmp/treecat\ngrpc:\n  port: 50052\n");
        Run ok = run("check-config", good.toString());
        assertThat(ok.exitCode()).isEqualTo(0);
        assertThat(ok.out()).contains("OK: " + good + " is valid");

        Path bad = directory.resolve("bad.yml");
        Files.writeString(bad, "storage:\n  data-dri: /tmp/treecat\n");
        Run failed = run("check-config", bad.toString());
        assertThat(failed.exitCode()).isEqualTo(1);
        assertThat(failed.err()).contains("Unrecognized field at: storage.data-dri");
    }

    @Test
    void withNoArgumentsServesOnTheEmbeddedDefaultsAndShutsDownCleanly() throws Exception {
        int port = FreePorts.next();
        int adminPort = FreePorts.next();
        // No hosts: auth is off on the embedded defaults, so every listener binds loopback by itself.
        Process server = start(Map.of(
                "TREECAT_HTTP_PORT",
                String.valueOf(port),
                "TREECAT_ADMIN_PORT",
                String.valueOf(adminPort),
                "TREECAT_GRPC_PORT",
                String.valueOf(FreePorts.next()),
                "TREECAT_HMS_PORT",
                String.valueOf(FreePorts.next())));
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> committed = awaitServing(
                    http,
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/treecat/v1/commit"))
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"writes\": [{\"op\": \"add\", \"path\": \"/it\", \"value\": {\"ok\": true}}]}"))
                            .build());
            assertThat(committed.statusCode()).isEqualTo(200);
            HttpResponse<String> health = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
        } finally {
            server.destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.isDirectory(directory.resolve("data"))).isTrue();
        assertThat(Files.isDirectory(directory.resolve("warehouse"))).isTrue();
        assertThat(Files.readString(directory.resolve("out.txt"), StandardCharsets.UTF_8))
                .contains("Closed the catalog at " + directory.resolve("data"))
                // Auth is off on the embedded defaults, and the server says so loudly.
                .contains("AUTHENTICATION IS OFF (auth.enabled: false): anyone who can reach a TreeCat port can read,"
                        + " change and drop every table");
    }

    private static HttpResponse<String> awaitServing(HttpClient http, HttpRequest request) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (true) {
            try {
                return http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                if (Instant.now().isAfter(deadline)) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }
}
