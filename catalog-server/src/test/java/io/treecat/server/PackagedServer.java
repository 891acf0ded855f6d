package io.treecat.server;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged server ({@code target/treecat-server.jar}, as {@code bin/treecat server} runs it) in a
 * JVM of its own, on loopback, with its data directory and warehouse under a directory that outlives
 * it: a test can kill it with SIGKILL ({@link #kill}) and start another on the same data. For tests
 * that run after {@code package} (failsafe).
 */
final class PackagedServer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final int port;
    private final int adminPort;
    private final int grpcPort;
    private final int hmsPort;
    private final Path log;

    private PackagedServer(Process process, int port, int adminPort, int grpcPort, int hmsPort, Path log) {
        this.process = requireNonNull(process, "process is null");
        this.port = port;
        this.adminPort = adminPort;
        this.grpcPort = grpcPort;
        this.hmsPort = hmsPort;
        this.log = requireNonNull(log, "log is null");
    }

    /** Starts a server on the data and warehouse under {@code home} and returns once REST answers. */
    static PackagedServer start(Path home, String logName) throws IOException, InterruptedException {
        return start(home, logName, List.of());
    }

    /**
     * As {@link #start(Path, String)}, with more {@code -D} options for the server's JVM (configuration
     * overrides such as {@code -Ddw.http.read-timeout=2 seconds}); each listener gets a free port of its
     * own, so a test can reach the admin, gRPC and HMS ports too.
     */
    static PackagedServer start(Path home, String logName, List<String> options)
            throws IOException, InterruptedException {
        Path jar = Path.of("target/treecat-server.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No server jar at " + jar + ": this test runs after package (failsafe)");
        }
        Files.createDirectories(home);
        int port = FreePorts.next();
        int adminPort = FreePorts.next();
        int grpcPort = FreePorts.next();
        int hmsPort = FreePorts.next();
        Path log = home.resolve(logName);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:+UseParallelGC",
                // C1 only: a test's server lives seconds, and C2's compiles cost more CPU than they win back;
                // without them a packaged server starts on 3.4 s of CPU instead of 6.5 on this 2-core box.
                "-XX:TieredStopAtLevel=1",
                "-Ddw.server.applicationConnectors[0].port=" + port,
                "-Ddw.server.applicationConnectors[0].bindHost=127.0.0.1",
                "-Ddw.server.adminConnectors[0].port=" + adminPort,
                "-Ddw.server.adminConnectors[0].bindHost=127.0.0.1",
                "-Ddw.grpc.port=" + grpcPort,
                "-Ddw.grpc.host=127.0.0.1",
                "-Ddw.hms.port=" + hmsPort,
                "-Ddw.hms.host=127.0.0.1",
                "-Ddw.storage.data-dir=" + home.resolve("data"),
                "-Ddw.warehouse.location=" + home.resolve("warehouse"),
                "-Ddw.logging.level=WARN"));
        command.addAll(options);
        command.addAll(List.of("-jar", jar.toString(), "server"));
        Process process = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PackagedServer server = new PackagedServer(process, port, adminPort, grpcPort, hmsPort, log);
        try {
            server.awaitServing();
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.kill();
            throw e;
        }
        return server;
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    int adminPort() {
        return adminPort;
    }

    int grpcPort() {
        return grpcPort;
    }

    int hmsPort() {
        return hmsPort;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Sends a signal by name ({@code STOP} freezes the process, {@code CONT} resumes it). */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL ({@code kill -9}): no shutdown hook runs, nothing is flushed or closed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("server " + process.pid() + " survived SIGKILL");
        }
    }

    /** SIGTERM (a clean stop: requests drained, RocksDB closed), SIGKILL if that hangs. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill();
        }
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void awaitServing() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest config = HttpRequest.newBuilder(uri().resolve("/v1/config"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "server exited with " + process.exitValue() + " before serving:\n" + logTail());
            }
            try {
                if (http.send(config, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("server did not serve within " + START_TIMEOUT + ":\n" + logTail());
            }
            Thread.sleep(200);
        }
    }
}
