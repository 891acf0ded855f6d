package io.treecat.e2e.trino;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A TreeCat server as users run it: a separate process started by the real launcher, {@code bin/treecat server},
 * on the packaged {@code catalog-server/target/treecat-server.jar} ({@code TREECAT_NO_BUILD=1}: the reactor has
 * just built it). Every listener is on a free loopback port; RocksDB and the warehouse are in the run directory.
 */
final class TreeCatServer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path log;
    private final int httpPort;
    private final int hmsPort;
    private final Path warehouse;

    private TreeCatServer(Process process, Path log, int httpPort, int hmsPort, Path warehouse) {
        this.process = requireNonNull(process, "process is null");
        this.log = requireNonNull(log, "log is null");
        this.httpPort = httpPort;
        this.hmsPort = hmsPort;
        this.warehouse = requireNonNull(warehouse, "warehouse is null");
    }

    /** Starts the server in {@code directory} (its data, warehouse and log) and returns once REST and Thrift answer. */
    static TreeCatServer start(Path directory) throws IOException, InterruptedException {
        return start(directory, Map.of(), "");
    }

    /**
     * Starts the server as {@link #start(Path)} does, with {@code settings} added to its environment (the embedded
     * default's {@code TREECAT_*} overrides: {@code TREECAT_AUTH_ENABLED}, …) and {@code oidcIssuers}, YAML replacing
     * the embedded default's empty {@code auth.oidc} list (empty for none), in a configuration file: a list cannot be
     * set by an environment variable. Starting again on the same directory keeps the data (principals, tables).
     */
    static TreeCatServer start(Path directory, Map<String, String> settings, String oidcIssuers)
            throws IOException, InterruptedException {
        Path root = projectRoot();
        Path jar = root.resolve("catalog-server/target/treecat-server.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "TreeCat is not packaged: " + jar + " is missing. Run the tests through the reactor "
                            + "(./mvnw -B verify, or -pl trino-e2e -am), which packages catalog-server before this module");
        }
        Path data = directory.resolve("treecat-data");
        Path warehouse = directory.resolve("warehouse");
        Path log = directory.resolve("treecat.log");
        int httpPort = Ports.free();
        int hmsPort = Ports.free();

        Map<String, String> environment = new HashMap<>();
        environment.put("TREECAT_NO_BUILD", "1");
        // The launcher runs `java` from the PATH: make it the JDK running these tests (the project's Java 17+), not
        // whichever java comes first on the machine.
        environment.put(
                "PATH",
                Path.of(System.getProperty("java.home"), "bin") + ":"
                        + System.getenv().getOrDefault("PATH", ""));
        // C1 only: a test's server lives seconds, and C2's compiles cost more CPU than they win back.
        environment.put("TREECAT_JAVA_OPTS", "-Xmx512m -XX:+UseParallelGC -XX:TieredStopAtLevel=1");
        environment.put("TREECAT_DATA_DIR", data.toString());
        environment.put("TREECAT_WAREHOUSE", warehouse.toString());
        environment.put("TREECAT_ROCKSDB_BLOCK_CACHE_SIZE", "32MiB");
        environment.put("TREECAT_ROCKSDB_WRITE_BUFFER_SIZE", "8MiB");
        environment.put("TREECAT_HTTP_HOST", "127.0.0.1");
        environment.put("TREECAT_HTTP_PORT", String.valueOf(httpPort));
        environment.put("TREECAT_ADMIN_HOST", "127.0.0.1");
        environment.put("TREECAT_ADMIN_PORT", String.valueOf(Ports.free()));
        environment.put("TREECAT_GRPC_HOST", "127.0.0.1");
        environment.put("TREECAT_GRPC_PORT", String.valueOf(Ports.free()));
        environment.put("TREECAT_HMS_HOST", "127.0.0.1");
        environment.put("TREECAT_HMS_PORT", String.valueOf(hmsPort));
        // Nothing is in flight when the tests stop it: don't wait the default 30 s for requests to drain.
        environment.put("TREECAT_SHUTDOWN_GRACE_PERIOD", "2 seconds");
        environment.putAll(settings);

        List<String> command =
                new ArrayList<>(List.of(root.resolve("bin/treecat").toString(), "server"));
        if (!oidcIssuers.isEmpty()) {
            command.add(configWithIssuers(root, directory, oidcIssuers).toString());
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        TreeCatServer server =
                new TreeCatServer(Processes.killOnExit(builder.start()), log, httpPort, hmsPort, warehouse);
        try {
            server.awaitServing();
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The Iceberg REST catalog's {@code uri}: clients append {@code /v1/...}. */
    URI restUri() {
        return URI.create("http://127.0.0.1:" + httpPort);
    }

    /** The Hive Metastore Thrift address, as Trino's {@code hive.metastore.uri} takes it. */
    URI thriftUri() {
        return URI.create("thrift://127.0.0.1:" + hmsPort);
    }

    Path warehouse() {
        return warehouse;
    }

    Path log() {
        return log;
    }

    private void awaitServing() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest config = HttpRequest.newBuilder(restUri().resolve("/v1/config"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("TreeCat exited with " + process.exitValue()
                        + " before serving; its log, " + log + ":\n" + Logs.tail(log));
            }
            if (answers(http, config) && acceptsConnections(hmsPort)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "TreeCat did not serve within " + START_TIMEOUT + "; its log, " + log + ":\n" + Logs.tail(log));
            }
            Thread.sleep(200);
        }
    }

    /** The embedded default configuration with {@code oidcIssuers} in place of its empty {@code auth.oidc} list. */
    private static Path configWithIssuers(Path root, Path directory, String oidcIssuers) throws IOException {
        String defaults = Files.readString(
                root.resolve("catalog-server/src/main/resources/treecat-default.yml"), StandardCharsets.UTF_8);
        String emptyList = "\n  oidc: []\n";
        if (!defaults.contains(emptyList)) {
            throw new IllegalStateException("treecat-default.yml has no empty auth.oidc list");
        }
        Path file = directory.resolve("treecat.yml");
        Files.writeString(
                file, defaults.replace(emptyList, "\n" + oidcIssuers.stripTrailing() + "\n"), StandardCharsets.UTF_8);
        return file;
    }

    /** 200, or 401 from a server with auth on: either way its REST port serves. */
    private static boolean answers(HttpClient http, HttpRequest request) throws InterruptedException {
        try {
            int status =
                    http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status == 200 || status == 401;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean acceptsConnections(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The checkout holding {@code bin/treecat}: the tests run in {@code trino-e2e}, one level below it. */
    private static Path projectRoot() {
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            if (Files.isExecutable(directory.resolve("bin/treecat"))) {
                return directory;
            }
        }
        throw new IllegalStateException(
                "bin/treecat not found above " + Path.of("").toAbsolutePath());
    }

    /** SIGTERM, which TreeCat handles by draining requests and closing RocksDB; SIGKILL if that hangs. */
    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(40));
    }
}
