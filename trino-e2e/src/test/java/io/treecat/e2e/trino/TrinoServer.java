package io.treecat.e2e.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A single-node Trino server (coordinator and worker in one JVM) as a separate process, on the parts of the
 * distribution {@link TrinoDistribution} unpacked.
 *
 * <p>It runs {@code io.trino.server.TrinoServer} directly with the JVM options of Trino's recommended
 * {@code jvm.config}, rather than through {@code bin/launcher}, so the tests own the one process they stop and its
 * output goes to one log file. Trino 476 needs Java 24 or newer while the project builds on 17:
 * {@link #findJavaHome()} picks the JDK.
 */
final class TrinoServer implements AutoCloseable {
    static final int MINIMUM_JAVA = 24;
    private static final Path DEFAULT_JAVA_HOME = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
    private static final Path JVM_DIRECTORY = Path.of("/usr/lib/jvm");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
    private static final Pattern JAVA_VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)", Pattern.MULTILINE);

    private final Process process;
    private final Path log;
    private final int httpPort;

    private TrinoServer(Process process, Path log, int httpPort) {
        this.process = requireNonNull(process, "process is null");
        this.log = requireNonNull(log, "log is null");
        this.httpPort = httpPort;
    }

    /**
     * Writes the node's configuration under {@code directory/etc} (one {@code <name>.properties} per catalog) and starts
     * it; returns once the server has finished starting, which includes loading every catalog.
     */
    static TrinoServer start(Path trinoHome, Path javaHome, Path directory, Map<String, Map<String, String>> catalogs)
            throws IOException, InterruptedException {
        if (!Files.isDirectory(trinoHome.resolve("lib")) || !Files.isDirectory(trinoHome.resolve("plugin"))) {
            throw new IllegalStateException(
                    "No Trino distribution at " + trinoHome + " (TrinoDistribution unpacks it)");
        }
        int httpPort = Ports.free();
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Path catalogDirectory = Files.createDirectories(etc.resolve("catalog"));
        write(
                etc.resolve("config.properties"),
                Map.of(
                        "coordinator", "true",
                        "node-scheduler.include-coordinator", "true",
                        "http-server.http.port", String.valueOf(httpPort),
                        "discovery.uri", "http://127.0.0.1:" + httpPort,
                        "http-server.log.enabled", "false",
                        // One small node on a shared 2-core machine: fewer threads than Trino sizes for a server.
                        "task.concurrency", "2",
                        "task.max-worker-threads", "8"));
        write(etc.resolve("log.properties"), Map.of("io.trino", "INFO"));
        for (Map.Entry<String, Map<String, String>> catalog : catalogs.entrySet()) {
            write(catalogDirectory.resolve(catalog.getKey() + ".properties"), catalog.getValue());
        }

        List<String> command = new ArrayList<>(List.of(
                javaHome.resolve("bin/java").toString(),
                "-Xmx2G",
                // The queries are tiny: C1 alone starts the server sooner on a small machine than C1 plus C2 would.
                "-XX:TieredStopAtLevel=1",
                // From Trino's recommended jvm.config.
                "-XX:+UseG1GC",
                "-XX:G1HeapRegionSize=32M",
                "-XX:+ExplicitGCInvokesConcurrent",
                "-XX:+ExitOnOutOfMemoryError",
                "-XX:-OmitStackTraceInFastThrow",
                "-XX:ReservedCodeCacheSize=256M",
                "-XX:PerMethodRecompilationCutoff=10000",
                "-XX:PerBytecodeRecompilationCutoff=10000",
                "-XX:+UnlockDiagnosticVMOptions",
                "-XX:G1NumCollectionsKeepPinned=10000000",
                "-XX:+EnableDynamicAgentLoading",
                "-Djdk.attach.allowAttachSelf=true",
                "-Djdk.nio.maxCachedBufferSize=2000000",
                "-Dfile.encoding=UTF-8",
                // node.properties, which bin/launcher would turn into these system properties.
                "-Dnode.environment=treecat_e2e",
                "-Dnode.id=" + UUID.randomUUID(),
                "-Dnode.data-dir=" + Files.createDirectories(directory.resolve("data")),
                "-Dnode.internal-address=127.0.0.1",
                "-Dconfig=" + etc.resolve("config.properties"),
                "-Dlog.levels-file=" + etc.resolve("log.properties"),
                "-Dcatalog.config-dir=" + catalogDirectory,
                "-Dplugin.dir=" + trinoHome.resolve("plugin"),
                "-cp",
                trinoHome.resolve("lib") + "/*",
                "io.trino.server.TrinoServer"));
        Path log = directory.resolve("trino.log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        withoutMachineCloudCredentials(builder.environment(), directory);
        Process process = builder.start();
        TrinoServer server = new TrinoServer(Processes.killOnExit(process), log, httpPort);
        try {
            server.awaitStarted();
            server.awaitActiveNode();
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Keeps the AWS SDK's default credential chain in Trino empty: no key from the environment, no profile file, no
     * instance metadata. Trino then reaches an object store only with what its catalog files give it (or a REST catalog
     * vends), so a test that gives it no key proves it used none, whatever the machine has.
     */
    static void withoutMachineCloudCredentials(Map<String, String> environment, Path directory) {
        environment.keySet().removeIf(name -> name.startsWith("AWS_") && !name.equals("AWS_CA_BUNDLE"));
        environment.put("AWS_EC2_METADATA_DISABLED", "true");
        environment.put(
                "AWS_SHARED_CREDENTIALS_FILE",
                directory.resolve("no-aws-credentials").toString());
        environment.put("AWS_CONFIG_FILE", directory.resolve("no-aws-config").toString());
    }

    /** The JDBC URL of this server; tests add the catalog and schema to their SQL. */
    String jdbcUrl() {
        return "jdbc:trino://127.0.0.1:" + httpPort;
    }

    Path log() {
        return log;
    }

    /**
     * The JDK Trino runs on: the {@code trino.java.home} system property (the Maven property of the same name) if
     * set, else Temurin 25 where the CI machines have it, else the newest JDK {@value #MINIMUM_JAVA}+ under
     * {@code /usr/lib/jvm}. None is a failure, not a skip: CI must run these tests.
     */
    static Path findJavaHome() {
        return findJavaHome(System.getProperty("trino.java.home", ""), DEFAULT_JAVA_HOME, JVM_DIRECTORY);
    }

    static Path findJavaHome(String configuredHome, Path defaultHome, Path jvmDirectory) {
        String configured = configuredHome.trim();
        if (!configured.isEmpty()) {
            Path home = Path.of(configured);
            OptionalInt version = javaVersion(home);
            if (version.isEmpty() || version.getAsInt() < MINIMUM_JAVA) {
                throw new IllegalStateException("trino.java.home=" + configured + " is not a JDK " + MINIMUM_JAVA
                        + " or newer (its release file says "
                        + (version.isPresent() ? "Java " + version.getAsInt() : "nothing") + ")");
            }
            return home;
        }
        if (javaVersion(defaultHome).orElse(0) >= MINIMUM_JAVA) {
            return defaultHome;
        }
        List<Path> candidates = new ArrayList<>();
        if (Files.isDirectory(jvmDirectory)) {
            try (DirectoryStream<Path> homes = Files.newDirectoryStream(jvmDirectory)) {
                homes.forEach(candidates::add);
            } catch (IOException e) {
                throw new IllegalStateException("Cannot list " + jvmDirectory, e);
            }
        }
        return candidates.stream()
                .filter(home -> javaVersion(home).orElse(0) >= MINIMUM_JAVA)
                .max(Comparator.comparingInt(home -> javaVersion(home).orElse(0)))
                .orElseThrow(() -> new IllegalStateException("Trino 476 needs a JDK " + MINIMUM_JAVA
                        + " or newer and none was found "
                        + "(looked at " + defaultHome + " and every JDK in " + jvmDirectory
                        + "). Install one (CI machines have "
                        + "Temurin 25 at " + DEFAULT_JAVA_HOME + ") or name it with -Dtrino.java.home=/path/to/jdk"));
    }

    /** The feature release a JDK's {@code release} file names, or empty if it is not a JDK with a java launcher. */
    private static OptionalInt javaVersion(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
            return OptionalInt.empty();
        }
        try {
            Matcher matcher = JAVA_VERSION.matcher(Files.readString(release, StandardCharsets.UTF_8));
            return matcher.find() ? OptionalInt.of(Integer.parseInt(matcher.group(1))) : OptionalInt.empty();
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    /** {@code GET /v1/info} answers {@code "starting": false} once every catalog is loaded and the node is active. */
    private void awaitStarted() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest info = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v1/info"))
                .timeout(Duration.ofSeconds(5))
                .build();
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Trino exited with " + process.exitValue()
                        + " while starting; its log, " + log + ":\n" + Logs.tail(log));
            }
            try {
                HttpResponse<String> response = http.send(info, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    JsonNode body = json.readTree(response.body());
                    if (!body.path("starting").asBoolean(true)) {
                        return;
                    }
                }
            } catch (IOException e) {
                // Not listening yet.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Trino did not start within " + START_TIMEOUT + "; its log, " + log + ":\n" + Logs.tail(log));
            }
            Thread.sleep(500);
        }
    }

    /**
     * {@code /v1/info} says "started" before the coordinator's node manager has seen its own announcement (it polls
     * discovery every few seconds); a query scheduled in between fails with "nodes is empty". So wait until the node
     * lists itself as active, by a query through the same JDBC driver the tests use.
     */
    private void awaitActiveNode() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Trino exited with " + process.exitValue()
                        + " while starting; its log, " + log + ":\n" + Logs.tail(log));
            }
            try (Connection connection = DriverManager.getConnection(jdbcUrl(), "treecat-e2e", null);
                    Statement statement = connection.createStatement();
                    ResultSet nodes = statement.executeQuery(
                            "SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'")) {
                if (nodes.next() && nodes.getLong(1) > 0) {
                    return;
                }
            } catch (SQLException e) {
                last = e; // "nodes is empty" or not yet accepting queries: the node is not active yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("Trino's node did not become active within " + START_TIMEOUT + " (last: " + last
                + "); its log, " + log + ":\n" + Logs.tail(log));
    }

    private static void write(Path file, Map<String, String> values) throws IOException {
        Properties properties = new Properties();
        properties.putAll(values);
        try (var out = Files.newOutputStream(file)) {
            properties.store(out, "written by trino-e2e");
        }
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(30));
    }
}
