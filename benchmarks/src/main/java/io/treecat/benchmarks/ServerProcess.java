package io.treecat.benchmarks;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A server in its own JVM, started by a benchmark (TreeCat, or a peer such as Hive's metastore): its output goes to a log file in its
 * run directory, it is killed when closed or when the driver exits, and {@link #startedMillis()} says
 * how long it took from launch to answering on its port.
 */
public final class ServerProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;
    private final int port;
    private final long startedMillis;

    private ServerProcess(String name, Process process, Path log, int port, long startedMillis) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.port = port;
        this.startedMillis = startedMillis;
    }

    /** A driven server's JVM options: {@code -Dserver.xmx} (default {@code -Xmx1g}) and {@code -Dserver.jvm-args}. */
    public static List<String> serverJvmOptions() {
        return serverJvmOptions("-Xmx1g");
    }

    /** {@link #serverJvmOptions()} with another default heap, for a server that holds a large table. */
    public static List<String> serverJvmOptions(String defaultHeap) {
        List<String> jvm = new ArrayList<>(List.of(System.getProperty("server.xmx", defaultHeap)));
        String extra = System.getProperty("server.jvm-args", "").trim();
        if (!extra.isEmpty()) {
            jvm.addAll(Arrays.asList(extra.split("\\s+")));
        }
        return jvm;
    }

    /** The java binary this driver runs on, so both servers and the driver share one JDK. */
    public static String javaBinary() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** A free loopback port for a server that cannot bind port 0 and tell us (the Hive peer). */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Runs a JVM to completion (the schema tool); its output goes to {@code log}. */
    public static void runToCompletion(
            List<String> command, Map<String, String> environment, Path directory, Path log, long timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(
                    "Timed out after " + timeoutSeconds + " s: " + String.join(" ", command) + " (log: " + log + ")");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(
                    "Exit " + process.exitValue() + ": " + String.join(" ", command) + "\n" + tail(log));
        }
    }

    /**
     * Launches a server JVM and waits until it answers on its port. {@code portFromLog}, when the port is
     * not known in advance, reads it from the log (TreeCat prints it); otherwise {@code fixedPort} is used.
     */
    public static ServerProcess start(
            String name,
            List<String> command,
            Map<String, String> environment,
            Path directory,
            int fixedPort,
            Supplier<Optional<Integer>> portFromLog,
            Path log,
            long timeoutSeconds)
            throws IOException, InterruptedException {
        requireNonNull(name, "name is null");
        long begin = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        long deadline = begin + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        int port = fixedPort;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        name + " exited with " + process.exitValue() + " before serving\n" + tail(log));
            }
            if (port <= 0 && portFromLog != null) {
                port = portFromLog.get().orElse(-1);
            }
            if (port > 0 && answers(port)) {
                return new ServerProcess(
                        name, process, log, port, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
            }
            Thread.sleep(100);
        }
        process.destroyForcibly();
        throw new IllegalStateException(name + " did not serve within " + timeoutSeconds + " s\n" + tail(log));
    }

    /** Where {@code ./mvnw -B -q -DskipTests -pl catalog-server -am package} leaves the server jar; {@code -Dtreecat.server.jar} overrides. */
    public static Path treecatJar() {
        return Path.of(System.getProperty("treecat.server.jar", "catalog-server/target/treecat-server.jar"));
    }

    /**
     * The one way a benchmark starts TreeCat: the packaged server ({@code java -jar treecat-server.jar
     * server}, the same wiring as {@code bin/treecat}) in its own JVM on loopback, with a fresh data
     * directory and warehouse under {@code directory}. Listeners given port 0 bind a port of their own.
     * Waits until the REST port answers, or the HMS port when {@code restPort} is 0; Dropwizard opens
     * its connectors after every other listener has started, so either means the server serves.
     * {@code jvmOptions} follow the defaults, so a {@code -Ddw.…} among them overrides one (a fixed admin port, say).
     */
    public static ServerProcess startTreeCat(
            Path jar, Path directory, List<String> jvmOptions, int restPort, int hmsPort)
            throws IOException, InterruptedException {
        return startTreeCat(jar, directory, jvmOptions, Map.of(), restPort, hmsPort);
    }

    /**
     * {@link #startTreeCat(Path, Path, List, int, int)} with extra environment variables for the server process: the
     * ones a catalog's static store credentials name ({@code warehouse.catalogs.<name>.credentials.*-env}).
     */
    public static ServerProcess startTreeCat(
            Path jar,
            Path directory,
            List<String> jvmOptions,
            Map<String, String> environment,
            int restPort,
            int hmsPort)
            throws IOException, InterruptedException {
        return startTreeCat(jar, directory, jvmOptions, environment, restPort, hmsPort, null);
    }

    /**
     * {@link #startTreeCat(Path, Path, List, Map, int, int)} with a configuration file ({@code server <file>}), null
     * for the embedded default: settings an environment variable cannot give, such as {@code auth.oidc}'s list.
     */
    public static ServerProcess startTreeCat(
            Path jar,
            Path directory,
            List<String> jvmOptions,
            Map<String, String> environment,
            int restPort,
            int hmsPort,
            Path config)
            throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException(
                    "No server jar at " + jar.toAbsolutePath()
                            + ": build it with ./mvnw -B -q -DskipTests -pl catalog-server -am package, or set -Dtreecat.server.jar");
        }
        Path home = Files.createDirectories(directory).toAbsolutePath();
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(List.of(
                "-Ddw.server.applicationConnectors[0].port=" + restPort,
                "-Ddw.server.applicationConnectors[0].bindHost=127.0.0.1",
                "-Ddw.server.adminConnectors[0].port=0",
                "-Ddw.server.adminConnectors[0].bindHost=127.0.0.1",
                "-Ddw.grpc.port=0",
                "-Ddw.grpc.host=127.0.0.1",
                "-Ddw.hms.port=" + hmsPort,
                "-Ddw.hms.host=127.0.0.1",
                "-Ddw.storage.data-dir=" + home.resolve("data"),
                "-Ddw.warehouse.location=" + home.resolve("warehouse"),
                "-Ddw.logging.level=WARN"));
        // After the defaults: the JVM keeps the last -D of a name, so an option here overrides one of them.
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "server"));
        if (config != null) {
            command.add(config.toAbsolutePath().toString());
        }
        int waitFor = restPort > 0 ? restPort : hmsPort;
        // A node of a replicated group serves only once its group has elected a leader, all of them starting at once.
        return start("TreeCat", command, environment, home, waitFor, null, home.resolve("server.log"), 120);
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The last lines of a log, for error messages. */
    public static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", new ArrayList<>(lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public long startedMillis() {
        return startedMillis;
    }

    public Path log() {
        return log;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * CPU time the server process has used so far (user + system, all its threads; Linux reads it from
     * /proc in clock ticks of 10 ms). On a shared machine this is steadier than wall time: waiting for
     * a core does not count.
     */
    public long cpuNanos() {
        return process.toHandle()
                .info()
                .totalCpuDuration()
                .map(java.time.Duration::toNanos)
                .orElse(-1L);
    }

    /** Kills the process with SIGKILL, as a crash would, and waits for it to end. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
