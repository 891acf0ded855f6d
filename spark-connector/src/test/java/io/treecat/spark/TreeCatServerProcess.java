package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The packaged TreeCat server ({@code catalog-server/target/treecat-server.jar}) run as a separate
 * process, the way {@code bin/treecat} runs it, on loopback ports of its own, with RocksDB and the
 * warehouse in a directory the test owns.
 *
 * <p>A separate process, not an in-JVM server: the Iceberg Spark runtime jar bundles its own copy of
 * Iceberg's classes, and Spark's dependency tree must never meet Dropwizard's on one classpath. The
 * build passes the jar's path as the system property {@code treecat.server.jar} (the reactor packages
 * catalog-server before this module).
 */
final class TreeCatServerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(40);

    private final Process process;
    private final Path directory;
    private final Path log;
    private final int httpPort;
    private final int adminPort;
    private final int hmsPort;

    private TreeCatServerProcess(Process process, Path directory, Path log, int httpPort, int adminPort, int hmsPort) {
        this.process = requireNonNull(process, "process is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.log = requireNonNull(log, "log is null");
        this.httpPort = httpPort;
        this.adminPort = adminPort;
        this.hmsPort = hmsPort;
    }

    /**
     * Starts a server whose data directory and warehouse are under {@code directory}, and returns once
     * its admin health check answers 200 (RocksDB open, every listener up).
     */
    static TreeCatServerProcess start(Path directory) throws IOException, InterruptedException {
        return start(directory, "", Map.of(), List.of());
    }

    /**
     * Starts a server as {@link #start(Path)} does, with more configuration: {@code warehouseCatalogs} is
     * YAML put under the embedded default's {@code warehouse:} key (its {@code catalogs:} block, indented
     * by two spaces; empty for none), {@code environment} is added to the server process's environment
     * only (where an object store's keys go), and {@code javaOptions} to its JVM's options.
     */
    static TreeCatServerProcess start(
            Path directory, String warehouseCatalogs, Map<String, String> environment, List<String> javaOptions)
            throws IOException, InterruptedException {
        return start(directory, warehouseCatalogs, "", environment, javaOptions);
    }

    /**
     * Starts a server as {@link #start(Path, String, Map, List)} does, with {@code oidcIssuers}: YAML replacing the
     * embedded default's empty {@code auth.oidc} list (the {@code oidc:} key and its entries, indented by two spaces;
     * empty for none). A list cannot be set by an environment variable, so it goes into a configuration file.
     */
    static TreeCatServerProcess start(
            Path directory,
            String warehouseCatalogs,
            String oidcIssuers,
            Map<String, String> environment,
            List<String> javaOptions)
            throws IOException, InterruptedException {
        Path jar = serverJar();
        Path log = directory.resolve("treecat-server.log");
        int httpPort = freePort();
        int adminPort = freePort();
        int grpcPort = freePort();
        int hmsPort = freePort();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // C1 only: a test's server lives seconds, and C2's compiles cost more CPU than they win back.
        List<String> command =
                new ArrayList<>(List.of(java.toString(), "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(javaOptions);
        command.addAll(List.of("-jar", jar.toString(), "server"));
        if (!warehouseCatalogs.isEmpty() || !oidcIssuers.isEmpty()) {
            command.add(
                    configWith(jar, directory, warehouseCatalogs, oidcIssuers).toString());
        }
        // The server's own environment overrides (docs/configuration.md); small RocksDB buffers, since
        // the machine is shared and the test writes little.
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> serverEnvironment = builder.environment();
        serverEnvironment.put("TREECAT_DATA_DIR", directory.resolve("data").toString());
        serverEnvironment.put(
                "TREECAT_WAREHOUSE", directory.resolve("warehouse").toString());
        serverEnvironment.put("TREECAT_ROCKSDB_BLOCK_CACHE_SIZE", "16MiB");
        serverEnvironment.put("TREECAT_ROCKSDB_WRITE_BUFFER_SIZE", "8MiB");
        serverEnvironment.put("TREECAT_HTTP_HOST", "127.0.0.1");
        serverEnvironment.put("TREECAT_HTTP_PORT", String.valueOf(httpPort));
        serverEnvironment.put("TREECAT_ADMIN_HOST", "127.0.0.1");
        serverEnvironment.put("TREECAT_ADMIN_PORT", String.valueOf(adminPort));
        serverEnvironment.put("TREECAT_GRPC_HOST", "127.0.0.1");
        serverEnvironment.put("TREECAT_GRPC_PORT", String.valueOf(grpcPort));
        serverEnvironment.put("TREECAT_HMS_HOST", "127.0.0.1");
        serverEnvironment.put("TREECAT_HMS_PORT", String.valueOf(hmsPort));
        serverEnvironment.put("TREECAT_SHUTDOWN_GRACE_PERIOD", "5 seconds");
        serverEnvironment.putAll(environment);
        TreeCatServerProcess server =
                new TreeCatServerProcess(builder.start(), directory, log, httpPort, adminPort, hmsPort);
        try {
            server.awaitHealthy();
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The Iceberg REST catalog's {@code uri}: the bare server address (clients append {@code /v1}). */
    String restUri() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** The admin connector's base address ({@code /healthcheck}, {@code /metrics}). */
    String adminUri() {
        return "http://127.0.0.1:" + adminPort;
    }

    /** The Hive Metastore Thrift address, for {@code hive.metastore.uris}. */
    String thriftUri() {
        return "thrift://127.0.0.1:" + hmsPort;
    }

    /** Where the server keeps table data and metadata files. */
    Path warehouse() {
        return directory.resolve("warehouse");
    }

    /** Everything the server printed so far (its log goes to a file in the test's directory). */
    String log() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** The CPU time the server process has used so far (zero where the platform does not tell). */
    Duration cpuTime() {
        return process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    private void awaitHealthy() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
                .timeout(Duration.ofSeconds(5))
                .build();
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        String last = "no answer";
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "TreeCat server exited with " + process.exitValue() + " before it was healthy:\n" + log());
            }
            try {
                HttpResponse<String> answer = http.send(health, HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    return;
                }
                last = answer.statusCode() + " " + answer.body();
            } catch (IOException e) {
                last = e.toString();
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new IllegalStateException(
                "TreeCat server not healthy after " + START_TIMEOUT + " (last: " + last + "):\n" + log());
    }

    /** SIGKILL ({@code kill -9}): nothing is flushed or closed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
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

    /** Stops the server as SIGTERM does (graceful: RocksDB is closed), forcibly if it hangs. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Path serverJar() {
        String configured = System.getProperty("treecat.server.jar");
        if (configured == null) {
            throw new IllegalStateException(
                    "System property treecat.server.jar is not set; run the tests through Maven (failsafe sets it)");
        }
        Path jar = Path.of(configured).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("TreeCat server jar " + jar
                    + " does not exist; package catalog-server first " + "(./mvnw -B verify -pl spark-connector -am)");
        }
        return jar;
    }

    /**
     * The server's embedded default configuration (every {@code TREECAT_*} override still applies) with
     * {@code catalogs} added under {@code warehouse:} and {@code oidcIssuers} in place of {@code auth.oidc}'s empty
     * list, written to {@code directory}: a file of its own would have to repeat every listener's setting.
     */
    private static Path configWith(Path jar, Path directory, String catalogs, String oidcIssuers) throws IOException {
        String defaults;
        try (JarFile archive = new JarFile(jar.toFile())) {
            JarEntry entry = archive.getJarEntry("treecat-default.yml");
            if (entry == null) {
                throw new IllegalStateException(jar + " has no treecat-default.yml");
            }
            try (InputStream in = archive.getInputStream(entry)) {
                defaults = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        String anchor = "\nwarehouse:\n";
        int at = defaults.indexOf(anchor);
        if (at < 0) {
            throw new IllegalStateException("treecat-default.yml has no top-level warehouse: key");
        }
        int insertAt = at + anchor.length();
        String config = catalogs.isEmpty()
                ? defaults
                : defaults.substring(0, insertAt) + catalogs.stripTrailing() + "\n" + defaults.substring(insertAt);
        if (!oidcIssuers.isEmpty()) {
            String emptyList = "\n  oidc: []\n";
            if (!config.contains(emptyList)) {
                throw new IllegalStateException("treecat-default.yml has no empty auth.oidc list");
            }
            config = config.replace(emptyList, "\n" + oidcIssuers.stripTrailing() + "\n");
        }
        Path file = directory.resolve("treecat.yml");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        return file;
    }

    /** Ports handed out by {@link #freePort} in this JVM. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /**
     * A port free now and never handed out before in this JVM: the kernel may offer a port again until
     * someone binds it, and a group's Raft ports are chosen before its servers start (and bind them).
     */
    static int freePort() throws IOException {
        while (true) {
            try (ServerSocket socket = new ServerSocket(0)) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }
}
