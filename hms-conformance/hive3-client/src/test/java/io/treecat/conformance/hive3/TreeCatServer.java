package io.treecat.conformance.hive3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged server ({@code java -jar treecat-server.jar server}) with a fresh RocksDB and warehouse under a run
 * directory, serving HMS Thrift on a free loopback port; killed when closed or when the test JVM exits. (The same way
 * hms-conformance's {@code TreeCatPeer} starts it; this module cannot share that class, it shares no class path.)
 */
final class TreeCatServer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final Path log;
    private final int port;
    private final Path warehouse;

    private TreeCatServer(Process process, Path log, int port, Path warehouse) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.warehouse = warehouse;
    }

    static TreeCatServer start(Path runDirectory) throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("treecat.server.jar", "../../catalog-server/target/treecat-server.jar"))
                .toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("TreeCat is not packaged: " + jar + " is missing. Run ./mvnw -B verify, or "
                    + "package it first: ./mvnw -B -DskipTests package -pl catalog-server -am");
        }
        Path home = Files.createDirectories(runDirectory).toAbsolutePath();
        Path warehouse = home.resolve("warehouse");
        int port = freePort();
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                // C1 only: a test's server lives seconds, and C2's compiles cost more CPU than they win back.
                "-XX:TieredStopAtLevel=1",
                "-Ddw.server.applicationConnectors[0].port=0",
                "-Ddw.server.applicationConnectors[0].bindHost=127.0.0.1",
                "-Ddw.server.adminConnectors[0].port=0",
                "-Ddw.server.adminConnectors[0].bindHost=127.0.0.1",
                "-Ddw.grpc.port=0",
                "-Ddw.grpc.host=127.0.0.1",
                "-Ddw.hms.port=" + port,
                "-Ddw.hms.host=127.0.0.1",
                "-Ddw.storage.data-dir=" + home.resolve("data"),
                "-Ddw.warehouse.location=" + warehouse,
                "-Ddw.logging.level=WARN",
                "-jar",
                jar.toString(),
                "server");
        Path log = home.resolve("server.log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("TREECAT_ROCKSDB_BLOCK_CACHE_SIZE", "32MiB");
        builder.environment().put("TREECAT_ROCKSDB_WRITE_BUFFER_SIZE", "8MiB");
        builder.environment().put("TREECAT_SHUTDOWN_GRACE_PERIOD", "2 seconds");
        Process process = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "kill-treecat-" + process.pid()));
        TreeCatServer server = new TreeCatServer(process, log, port, warehouse);
        server.awaitServing();
        return server;
    }

    private void awaitServing() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("TreeCat exited with " + process.exitValue() + "; its log:\n" + tail());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                return;
            } catch (IOException e) {
                // not yet
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException(
                        "TreeCat did not serve within " + START_TIMEOUT + "; its log:\n" + tail());
            }
            Thread.sleep(100);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port", e);
        }
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    String uri() {
        return "thrift://127.0.0.1:" + port;
    }

    Path warehouse() {
        return warehouse;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
