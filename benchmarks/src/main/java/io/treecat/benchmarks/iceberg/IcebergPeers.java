package io.treecat.benchmarks.iceberg;

import io.treecat.benchmarks.ServerProcess;
import io.treecat.benchmarks.peers.NessiePeer;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTUtil;

/**
 * The Iceberg catalogs an experiment compares, started on one store and stopped together: TreeCat's REST catalog (the
 * packaged server), Iceberg's reference REST server (JDBC on sqlite, in its own JVM), Iceberg's {@link JdbcCatalog}
 * on sqlite in this JVM, and, on S3 only, Project Nessie. Every client is Iceberg's own, with the same FileIO for
 * data and manifests, and reports its commits' attempts to {@link CommitAttempts}.
 */
final class IcebergPeers implements AutoCloseable {
    static final String TREECAT = "TreeCat REST";
    static final String REFERENCE = "reference REST";
    static final String JDBC = "JdbcCatalog";
    static final String NESSIE = "Nessie";

    /** One catalog: its client, its server process (none for the JDBC catalog), its commit stopwatch (REST only). */
    record Peer(String name, Catalog catalog, ServerProcess server, TimedRestClient.Stopwatch stopwatch) {}

    private final S3Store s3;
    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<Peer> peers = new ArrayList<>();
    private final List<String> missing = new ArrayList<>();
    private int treecatGrpcPort;

    private IcebergPeers(S3Store s3) {
        this.s3 = s3;
    }

    /**
     * Starts the peers on the local disk ({@code latency} null) or on S3Proxy behind a latency proxy. Nessie runs on
     * S3 only, and only where its jar and a JDK 21+ are; a peer that cannot run here is left out and named by
     * {@link #missing()}.
     */
    static IcebergPeers start(Path work, Duration latency) throws Exception {
        IcebergPeers started = new IcebergPeers(latency == null ? null : S3Store.start(latency));
        try {
            started.startAll(work);
            return started;
        } catch (Exception | Error e) {
            started.close();
            throw e;
        }
    }

    private void startAll(Path work) throws Exception {
        // Every simulated writer would be a process with its own worker pool: the default pool, one thread per core
        // for the whole JVM, would queue all writers behind each other.
        if (System.getProperty("iceberg.worker.num-threads") == null) {
            System.setProperty("iceberg.worker.num-threads", "64");
        }
        treecatGrpcPort = ServerProcess.freePort();
        List<String> jvm = new ArrayList<>(ServerProcess.serverJvmOptions());
        jvm.add("-Ddw.grpc.port=" + treecatGrpcPort);
        Map<String, String> environment = Map.of();
        String prefix = null;
        if (s3 != null) {
            jvm.addAll(s3.serverJvmOptions());
            environment = s3.serverEnvironment();
            prefix = S3Store.CATALOG;
        }
        ServerProcess treecat = ServerProcess.startTreeCat(
                ServerProcess.treecatJar(), work.resolve("treecat"), jvm, environment, ServerProcess.freePort(), 0);
        servers.add(treecat);
        peers.add(restPeer(TREECAT, treecat, "http://127.0.0.1:" + treecat.port(), prefix));

        ServerProcess reference = startReference(work.resolve("reference"), s3);
        servers.add(reference);
        peers.add(restPeer(REFERENCE, reference, "http://127.0.0.1:" + reference.port(), null));

        peers.add(new Peer(JDBC, jdbc(work.resolve("jdbc")), null, null));

        if (s3 == null) {
            missing.add(NESSIE + " (it refuses a file: warehouse; it runs in the S3 variant)");
        } else {
            Optional<String> unavailable = NessiePeer.unavailable();
            if (unavailable.isPresent()) {
                missing.add(NESSIE + " (" + unavailable.get() + ")");
            } else {
                ServerProcess nessie = NessiePeer.start(
                        work.resolve("nessie"),
                        new NessiePeer.Store(s3.serverEndpoint(), S3Store.BUCKET, s3.accessKey(), s3.secretKey()));
                servers.add(nessie);
                peers.add(restPeer(NESSIE, nessie, NessiePeer.catalogUri(nessie), null));
            }
        }
    }

    List<Peer> peers() {
        return List.copyOf(peers);
    }

    /** The peers that could not run here, each with the reason. */
    List<String> missing() {
        return List.copyOf(missing);
    }

    /** TreeCat's native gRPC port, on the same server as its REST catalog. */
    int treecatGrpcPort() {
        return treecatGrpcPort;
    }

    /** The FileIO properties of every client: {@link LocalFileIO}, or {@code S3FileIO} at the store's proxy. */
    private Map<String, String> fileIo() {
        return s3 != null ? s3.clientProperties() : Map.of(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    }

    private Peer restPeer(String name, ServerProcess server, String uri, String prefix) {
        TimedRestClient.Stopwatch stopwatch = new TimedRestClient.Stopwatch();
        RESTCatalog catalog = new RESTCatalog(properties -> new TimedRestClient(
                HTTPClient.builder(properties)
                        .uri(properties.get(CatalogProperties.URI))
                        .withHeaders(RESTUtil.configHeaders(properties))
                        .build(),
                stopwatch));
        Map<String, String> properties = new HashMap<>(fileIo());
        properties.put(CatalogProperties.URI, uri);
        if (prefix != null) {
            properties.put(CatalogProperties.WAREHOUSE_LOCATION, prefix);
        }
        // Every simulated writer would have its own HTTP connections: Iceberg's default pool of 100 shared by
        // hundreds of commits in flight would measure the pool.
        properties.put("rest.client.max-connections", "4000");
        properties.put("rest.client.connections-per-route", "4000");
        properties.put("metrics-reporter-impl", CommitAttempts.class.getName());
        catalog.initialize(name.replace(' ', '_'), properties);
        return new Peer(name, catalog, server, stopwatch);
    }

    private Catalog jdbc(Path directory) throws IOException {
        Files.createDirectories(directory.resolve("warehouse"));
        JdbcCatalog catalog = new JdbcCatalog();
        Map<String, String> properties = new HashMap<>(fileIo());
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + directory.resolve("catalog.db"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION,
                s3 != null
                        ? s3.jdbcWarehouse()
                        : directory.resolve("warehouse").toUri().toString());
        // sqlite allows one writer at a time; wait for the lock rather than fail at once.
        properties.put("jdbc.busy_timeout", "10000");
        properties.put("metrics-reporter-impl", CommitAttempts.class.getName());
        catalog.initialize("JdbcCatalog", properties);
        return catalog;
    }

    /**
     * Iceberg's reference server in its own JVM ({@code RESTCatalogServer}'s catalog, bound to loopback): this
     * benchmark's jar plus {@code benchmarks/target/reference-rest-peer} (the fixtures, Hadoop), configured by
     * environment as {@code RESTCatalogServer} is: sqlite in a file, and a {@code file:} warehouse with {@code
     * HadoopFileIO}, or the S3 store ({@code s3}, null for the local disk) with {@code S3FileIO}.
     */
    static ServerProcess startReference(Path directory, S3Store s3) throws IOException, InterruptedException {
        Path lib = Path.of(System.getProperty("reference.lib", "benchmarks/target/reference-rest-peer"))
                .toAbsolutePath();
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException("No reference server class path at " + lib
                    + ": build it with ./mvnw -B -q -DskipTests -pl benchmarks -am package (benchmarks/run.sh does)");
        }
        Path home = Files.createDirectories(directory).toAbsolutePath();
        Path ownJar = Path.of(IcebergPeers.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .toAbsolutePath();
        int port = ServerProcess.freePort();
        List<String> command = new ArrayList<>();
        command.add(ServerProcess.javaBinary());
        command.addAll(ServerProcess.serverJvmOptions());
        command.addAll(S3Store.checksumJvmOptions());
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.addAll(List.of(
                "-cp",
                ownJar + File.pathSeparator + lib + File.separator + "*",
                "org.apache.iceberg.rest.LoopbackRESTCatalogServer"));
        Map<String, String> environment = new HashMap<>();
        environment.put("CATALOG_URI", "jdbc:sqlite:" + home.resolve("catalog.db"));
        environment.put("CATALOG_REST_PORT", Integer.toString(port));
        if (s3 == null) {
            environment.put(
                    "CATALOG_WAREHOUSE",
                    Files.createDirectories(home.resolve("warehouse")).toUri().toString());
            environment.put("CATALOG_IO__IMPL", "org.apache.iceberg.hadoop.HadoopFileIO");
        } else {
            // RESTCatalogServer's names: CATALOG_A__B_C is the property a-b.c.
            environment.put("CATALOG_WAREHOUSE", "s3://" + S3Store.BUCKET + "/reference");
            environment.put("CATALOG_IO__IMPL", "org.apache.iceberg.aws.s3.S3FileIO");
            environment.put("CATALOG_S3_ENDPOINT", s3.serverEndpoint());
            environment.put("CATALOG_S3_PATH__STYLE__ACCESS", "true");
            environment.put("CATALOG_S3_ACCESS__KEY__ID", s3.accessKey());
            environment.put("CATALOG_S3_SECRET__ACCESS__KEY", s3.secretKey());
            environment.put("CATALOG_CLIENT_REGION", "us-east-1");
            environment.put("CATALOG_HTTP__CLIENT_TYPE", "apache");
        }
        return ServerProcess.start(
                REFERENCE, command, environment, home, port, Optional::empty, home.resolve("server.log"), 60);
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (Peer peer : peers) {
            try {
                if (peer.catalog() instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            } catch (Exception e) {
                failure = failure == null ? e : failure;
            }
        }
        for (ServerProcess server : servers) {
            try {
                server.close();
            } catch (Exception e) {
                failure = failure == null ? e : failure;
            }
        }
        if (s3 != null) {
            try {
                s3.close();
            } catch (Exception e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
