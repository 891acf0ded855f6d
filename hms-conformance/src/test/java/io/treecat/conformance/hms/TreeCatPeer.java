package io.treecat.conformance.hms;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The side under test: the packaged server, {@code java -jar treecat-server.jar server}, as users run it, with a fresh
 * RocksDB and warehouse in a run directory. The tests talk to it only over Thrift on loopback, as to Hive, so they
 * hold whatever the HMS module's insides become.
 */
final class TreeCatPeer implements MetastorePeer {
    /** The packaged server; failsafe sets it to {@code catalog-server/target/treecat-server.jar}. */
    static final String JAR_PROPERTY = "treecat.server.jar";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** The server's HMS catalog, {@code hms.default-catalog}'s default. */
    private static final String CATALOG = "warehouse";

    private final ServerProcess process;

    private TreeCatPeer(ServerProcess process) {
        this.process = requireNonNull(process, "process is null");
    }

    /**
     * Starts the server under {@code runDirectory} without waiting for it, so that it comes up while Hive's schema is
     * initialized; {@link #awaitServing()} waits.
     */
    static TreeCatPeer launch(Path runDirectory) throws IOException {
        Path jar = Path.of(System.getProperty(JAR_PROPERTY, "../catalog-server/target/treecat-server.jar"))
                .toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "TreeCat is not packaged: " + jar + " is missing. Run the tests through the reactor "
                            + "(./mvnw -B verify), or package it first: ./mvnw -B -DskipTests package -pl catalog-server -am");
        }
        Path home = Files.createDirectories(runDirectory.resolve("treecat")).toAbsolutePath();
        int hmsPort = ServerProcess.freePort();
        // C1 only: a test's server lives seconds, and C2's compiles cost more CPU than they win back.
        List<String> command = new ArrayList<>(
                List.of(ServerProcess.javaBinary(), "-Xmx512m", "-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(
                "-Ddw.server.applicationConnectors[0].port=0",
                "-Ddw.server.applicationConnectors[0].bindHost=127.0.0.1",
                "-Ddw.server.adminConnectors[0].port=0",
                "-Ddw.server.adminConnectors[0].bindHost=127.0.0.1",
                "-Ddw.grpc.port=0",
                "-Ddw.grpc.host=127.0.0.1",
                "-Ddw.hms.port=" + hmsPort,
                "-Ddw.hms.host=127.0.0.1",
                "-Ddw.storage.data-dir=" + home.resolve("data"),
                "-Ddw.warehouse.location=" + home.resolve("warehouse"),
                "-Ddw.logging.level=WARN",
                "-jar",
                jar.toString(),
                "server"));
        // Small caches for a small table; nothing is in flight at the end, so no 30 s drain on stop.
        Map<String, String> environment = Map.of(
                "TREECAT_ROCKSDB_BLOCK_CACHE_SIZE", "32MiB",
                "TREECAT_ROCKSDB_WRITE_BUFFER_SIZE", "8MiB",
                "TREECAT_SHUTDOWN_GRACE_PERIOD", "2 seconds");
        return new TreeCatPeer(
                ServerProcess.launch("TreeCat", command, environment, home, hmsPort, home.resolve("server.log")));
    }

    /** Where TreeCat puts what has no location of its own: the HMS catalog's directory in its warehouse. */
    static List<Path> warehouseRoots(Path runDirectory) {
        return List.of(runDirectory
                .resolve("treecat")
                .resolve("warehouse")
                .resolve(CATALOG)
                .toAbsolutePath());
    }

    /** Returns once the Thrift port accepts connections (Dropwizard opens its connectors last, so the server serves). */
    TreeCatPeer awaitServing() throws InterruptedException {
        process.awaitServing(START_TIMEOUT);
        return this;
    }

    @Override
    public String name() {
        return process.name();
    }

    @Override
    public int port() {
        return process.port();
    }

    @Override
    public Path log() {
        return process.log();
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
