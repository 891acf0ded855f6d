package io.treecat.benchmarks.iceberg;

import io.treecat.benchmarks.ServerProcess;
import io.treecat.lakehouse.storage.DelayedFileIO;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.StreamSupport;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * Iceberg commits against one table: TreeCat's REST catalog (a server in its own JVM on loopback)
 * versus Iceberg's {@link JdbcCatalog} on sqlite (in this JVM), with the same client code, the same
 * FileIO ({@link LocalFileIO}) and local directories.
 *
 * <ul>
 *   <li>{@code latency N}: one client, N one-file {@code FastAppend} commits in a row on one table
 *       (after 20 on the same table), the two catalogs alternating in 3 rounds; p50/p99 of
 *       {@code commit()}.</li>
 *   <li>{@code openloop SECONDS RATE...}: the open-loop workload of the commit-conflict study: at
 *       each rate, Poisson arrivals of one-file {@code FastAppend} transactions (load the table,
 *       append, commit) against one fresh table for SECONDS; each retries on
 *       {@code CommitFailedException} with Iceberg's default policy (4 retries, 100 ms–60 s
 *       backoff). Reports offered and achieved commits/s, success rate and latency.</li>
 * </ul>
 *
 * <p>{@code -Dstore.latency.ms=N} gives every store request of both catalogs a fixed latency of N ms
 * ({@link DelayedFileIO}): the TreeCat server's warehouse FileIO, the REST client's FileIO and the
 * JDBC catalog's FileIO.
 *
 * <p>{@code -Dstore=s3} puts both catalogs on a real S3-compatible store instead ({@link S3Store}: S3Proxy in this
 * JVM, behind a {@link io.treecat.benchmarks.LatencyProxy} that gives every S3 request {@code -Dstore.latency.ms}, 0
 * by default): the TreeCat server's catalog {@code bench} has its warehouse at {@code s3://bench/treecat}
 * ({@code warehouse.catalogs.bench}, keys from its environment), the JDBC catalog at {@code s3://bench/jdbc}, and both
 * clients use {@code S3FileIO} at the proxy. The open-loop table then also reports the S3 requests per committed
 * append (everyone's: the server's plus the clients', retries and losers' included), and after it each step's
 * requests by side and method.
 *
 * <p>Before measuring, each catalog gets an untimed concurrent warm-up (4 threads × 20 appends,
 * {@code -Dwarmup.commits}), and before open-loop steps an untimed open-loop one ({@code -Dwarmup.seconds}
 * at {@code -Dwarmup.rate}). TreeCat tables set {@code treecat.rebase-appends=true} (server-side rebase); the same property
 * is set on the JDBC tables, where it means nothing.
 */
public final class IcebergCommitBenchmark {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final Namespace NS = Namespace.of("bench");

    private IcebergCommitBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println(
                    "usage: [-Dstore=local|s3] [-Dstore.latency.ms=N] IcebergCommitBenchmark latency N | openloop SECONDS RATE...");
            System.exit(2);
        }
        // Likewise each writer would have its own Iceberg worker pool (manifest writes, commit reports): the default
        // pool, one thread per core for the whole JVM, would queue all simulated writers behind each other.
        if (System.getProperty("iceberg.worker.num-threads") == null) {
            System.setProperty("iceberg.worker.num-threads", "64");
        }
        Path work = Files.createTempDirectory("iceberg-commit-bench");
        String store = System.getProperty("store", "local");
        if (!store.equals("local") && !store.equals("s3")) {
            throw new IllegalArgumentException("Unknown -Dstore=" + store + ": local or s3");
        }
        // A null resource is skipped at close: the local store needs none.
        try (S3Store s3 = store.equals("s3") ? S3Store.start(Duration.ofMillis(storeLatencyMillis())) : null;
                ServerProcess server = startTreeCat(ServerProcess.treecatJar(), work.resolve("treecat"), s3)) {
            if (s3 != null) {
                System.out.printf(
                        Locale.ROOT,
                        "Store: S3Proxy behind a latency proxy, %d ms per S3 request, endpoint %s%n",
                        storeLatencyMillis(),
                        s3.endpoint());
            }
            Map<String, String> fileIo = s3 != null ? s3.clientProperties() : fileIo();
            List<Peer> peers = new ArrayList<>(List.of(
                    new Peer(
                            "TreeCat REST (rebase)",
                            treecat("http://127.0.0.1:" + server.port(), s3 != null ? S3Store.CATALOG : null, fileIo),
                            server),
                    new Peer(
                            "Iceberg JdbcCatalog (sqlite)",
                            jdbc(work.resolve("jdbc"), s3 != null ? s3.jdbcWarehouse() : null, fileIo),
                            null)));
            // -Dpeers=treecat or -Dpeers=jdbc runs one side alone (to profile it); the comparison needs both.
            String only = System.getProperty("peers", "").toLowerCase(Locale.ROOT);
            peers.removeIf(peer ->
                    !only.isEmpty() && !peer.name().toLowerCase(Locale.ROOT).contains(only));
            for (Peer peer : peers) {
                ((SupportsNamespaces) peer.catalog()).createNamespace(NS);
                warmUp(peer);
                if (args[0].equals("openloop")) {
                    warmUpOpenLoop(peer);
                }
            }
            switch (args[0]) {
                case "latency" -> latency(peers, Integer.parseInt(args[1]));
                case "openloop" ->
                    openLoop(
                            peers,
                            s3,
                            Integer.parseInt(args[1]),
                            Arrays.stream(args, 2, args.length)
                                    .mapToDouble(Double::parseDouble)
                                    .toArray());
                default -> throw new IllegalArgumentException("Unknown mode: " + args[0]);
            }
        }
    }

    /** {@code server}: the TreeCat server process behind the catalog, null for the JDBC catalog (it has none). */
    private record Peer(String name, Catalog catalog, ServerProcess server) {}

    /** The store latency of this run ({@code -Dstore.latency.ms}), null for none (the FileIOs as they were). */
    private static final String STORE_LATENCY_MS = System.getProperty("store.latency.ms");

    private static long storeLatencyMillis() {
        return STORE_LATENCY_MS == null ? 0 : Long.parseLong(STORE_LATENCY_MS);
    }

    /**
     * The FileIO properties of both catalogs' clients on the local store: {@link LocalFileIO}, or, with a store
     * latency, {@link DelayedFileIO} over it. On S3 they are {@link S3Store#clientProperties()}.
     */
    private static Map<String, String> fileIo() {
        if (STORE_LATENCY_MS == null) {
            return Map.of(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return Map.of(
                CatalogProperties.FILE_IO_IMPL,
                DelayedFileIO.class.getName(),
                DelayedFileIO.DELAY_MS,
                STORE_LATENCY_MS,
                DelayedFileIO.DELEGATE_IMPL,
                LocalFileIO.class.getName());
    }

    /** {@code warehouse}: the REST prefix of the catalog to use, null for the server's default one. */
    private static Catalog treecat(String uri, String warehouse, Map<String, String> fileIo) {
        RESTCatalog catalog = new RESTCatalog();
        Map<String, String> properties = new HashMap<>(fileIo);
        properties.put(CatalogProperties.URI, uri);
        if (warehouse != null) {
            properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        }
        // Every simulated writer would be a process with its own HTTP connections: one pool of Iceberg's default
        // 100 shared by hundreds of commits in flight (at store latency) measures the pool, not the catalog.
        properties.put("rest.client.max-connections", "4000");
        properties.put("rest.client.connections-per-route", "4000");
        // -Dsnapshot-loading-mode=refs: Iceberg's REST client loads only the snapshots a branch or tag references
        // (RESTCatalogProperties.SNAPSHOT_LOADING_MODE), as a user on a table with a long history may set it.
        String loading = System.getProperty("snapshot-loading-mode");
        if (loading != null) {
            properties.put("snapshot-loading-mode", loading);
        }
        catalog.initialize("treecat", properties);
        return catalog;
    }

    /** The catalog's database is always local (sqlite); {@code warehouse}, null for a local directory beside it. */
    private static Catalog jdbc(Path directory, String warehouse, Map<String, String> fileIo) throws IOException {
        Files.createDirectories(directory.resolve("warehouse"));
        JdbcCatalog catalog = new JdbcCatalog();
        Map<String, String> properties = new HashMap<>(fileIo);
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + directory.resolve("catalog.db"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION,
                warehouse != null
                        ? warehouse
                        : directory.resolve("warehouse").toUri().toString());
        // sqlite allows one writer at a time; wait for the lock rather than fail at once.
        properties.put("jdbc.busy_timeout", "10000");
        catalog.initialize("jdbc", properties);
        return catalog;
    }

    private static Table createTable(Catalog catalog, String name) {
        return catalog.createTable(
                TableIdentifier.of(NS, name), SCHEMA, SPEC, new HashMap<>(Map.of("treecat.rebase-appends", "true")));
    }

    private static final AtomicLong FILES = new AtomicLong();

    private static DataFile file(Table table) {
        long n = FILES.incrementAndGet();
        String day = "2026-01-" + String.format("%02d", 1 + n % 28);
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/f-" + n + ".parquet")
                .withFileSizeInBytes(1024)
                .withRecordCount(100)
                .withPartitionPath("day=" + day)
                .build();
    }

    /**
     * Untimed: concurrent appends to a scratch table until both JVMs have loaded and compiled the
     * commit path (including, for TreeCat, the rebase path), so that no step measures class loading.
     */
    private static void warmUp(Peer peer) throws Exception {
        int threads = 4;
        int commits = Integer.getInteger("warmup.commits", 20);
        Table created = createTable(peer.catalog(), "warmup");
        TableIdentifier id = TableIdentifier.of(NS, "warmup");
        created.newFastAppend().appendFile(file(created)).commit();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < commits; i++) {
                    try {
                        Table table = peer.catalog().loadTable(id);
                        table.newFastAppend().appendFile(file(table)).commit();
                    } catch (RuntimeException e) {
                        // a commit that ran out of retries still warmed the path up
                    }
                }
                return null;
            }));
        }
        try {
            for (java.util.concurrent.Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        peer.catalog().dropTable(id, false);
    }

    /**
     * Untimed, before the open-loop steps: the same open-loop workload on a scratch table for {@code
     * -Dwarmup.seconds} (20) at {@code -Dwarmup.rate} commits/s (25), so that the chains' and the
     * retries' paths are compiled too. Without it the JIT compiler took about a third of the server's
     * CPU during the first measured steps (JFR's {@code jdk.ThreadCPULoad}), which then measured the
     * compiler as much as the catalog.
     */
    private static void warmUpOpenLoop(Peer peer) throws Exception {
        int seconds = Integer.getInteger("warmup.seconds", 20);
        if (seconds > 0) {
            double rate = Double.parseDouble(System.getProperty("warmup.rate", "25"));
            openLoopStep(peer, "warmup_open", rate, seconds, null);
            peer.catalog().dropTable(TableIdentifier.of(NS, "warmup_open"), false);
        }
    }

    // ---- latency

    private static void latency(List<Peer> peers, int commits) {
        System.out.printf(Locale.ROOT, "| catalog | commits | p50 ms | p99 ms | mean ms |%n|---|---|---|---|---|%n");
        // Interleave the peers in rounds so that both see the same machine load.
        int rounds = 3;
        Map<String, List<Long>> samples = new HashMap<>();
        Map<String, Table> tables = new HashMap<>();
        for (Peer peer : peers) {
            Table table = createTable(peer.catalog(), "latency");
            for (int i = 0; i < 20; i++) {
                table.newFastAppend().appendFile(file(table)).commit();
            }
            tables.put(peer.name(), table);
            samples.put(peer.name(), new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (Peer peer : peers) {
                Table table = tables.get(peer.name());
                for (int i = 0; i < commits / rounds; i++) {
                    DataFile file = file(table);
                    long start = System.nanoTime();
                    table.newFastAppend().appendFile(file).commit();
                    samples.get(peer.name()).add(System.nanoTime() - start);
                }
            }
        }
        for (Peer peer : peers) {
            long[] nanos = samples.get(peer.name()).stream()
                    .mapToLong(Long::longValue)
                    .sorted()
                    .toArray();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.2f | %.2f | %.2f |%n",
                    peer.name(),
                    nanos.length,
                    ms(percentile(nanos, 0.50)),
                    ms(percentile(nanos, 0.99)),
                    ms((long) Arrays.stream(nanos).average().orElse(0)));
        }
    }

    // ---- open loop

    /** {@code s3}: the store whose requests are counted, null on the local store (where they are not). */
    private static void openLoop(List<Peer> peers, S3Store s3, int seconds, double[] rates) throws Exception {
        List<String> breakdown = new ArrayList<>();
        System.out.printf(
                Locale.ROOT,
                "| catalog | offered /s | committed | failed | success %% | achieved /s | p50 ms | p99 ms | rebased"
                        + " | metadata files | store requests / commit | CPU ms / commit: server, driver |%n"
                        + "|---|---|---|---|---|---|---|---|---|---|---|---|%n");
        for (double rate : rates) {
            for (Peer peer : peers) {
                S3Store.Requests before = s3 != null ? s3.requests() : null;
                String table = ("t" + rate).replace('.', '_') + "_"
                        + Math.abs(peer.name().hashCode() % 1000);
                OpenLoopResult result = openLoopStep(peer, table, rate, seconds, s3);
                // Counted when the step's commits have finished, before the checks' own reads; includes the step's
                // table create and first append.
                S3Store.Requests requests =
                        before != null ? result.storeRequests().minus(before) : null;
                if (requests != null) {
                    breakdown.add(String.format(
                            Locale.ROOT,
                            "%s at %.0f/s: server %s, clients %s",
                            peer.name(),
                            rate,
                            requests.server(),
                            requests.clients()));
                }
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.0f | %d | %d | %.1f | %.1f | %.0f | %.0f | %s | %d | %s | %s, %.1f |%n",
                        peer.name(),
                        rate,
                        result.committed(),
                        result.failed(),
                        100.0 * result.committed() / Math.max(1, result.committed() + result.failed()),
                        result.achieved(),
                        ms(result.p50()),
                        ms(result.p99()),
                        result.rebased() < 0 ? "n/a" : String.valueOf(result.rebased()),
                        result.metadataFiles(),
                        requests == null ? "n/a" : perCommit(requests, result.committed()),
                        Double.isNaN(result.serverCpuMillisPerCommit())
                                ? "n/a"
                                : String.format(Locale.ROOT, "%.1f", result.serverCpuMillisPerCommit()),
                        result.driverCpuMillisPerCommit());
            }
        }
        if (!breakdown.isEmpty()) {
            System.out.printf("%nS3 requests of each step, by side and method:%n");
            breakdown.forEach(System.out::println);
        }
    }

    /** "12.3 (4.1 + 8.2)": all S3 requests per committed append, then the server's and the clients' shares. */
    private static String perCommit(S3Store.Requests requests, int committed) {
        double per = Math.max(1, committed);
        return String.format(
                Locale.ROOT,
                "%.1f (%.1f + %.1f)",
                (requests.serverTotal() + requests.clientsTotal()) / per,
                requests.serverTotal() / per,
                requests.clientsTotal() / per);
    }

    /** {@code storeRequests}: the store's request counts when the step's commits had all finished, null if not counted. */
    private record OpenLoopResult(
            int committed,
            int failed,
            double achieved,
            long p50,
            long p99,
            long rebased,
            long metadataFiles,
            S3Store.Requests storeRequests,
            double serverCpuMillisPerCommit,
            double driverCpuMillisPerCommit) {}

    /**
     * The metadata files in a table's metadata directory: one per commit, or per chain. On an object store they are
     * listed through the table's FileIO ({@code S3FileIO} lists a prefix), on local disk read from the directory.
     */
    private static long metadataFiles(Table table) throws IOException {
        if (table.io() instanceof SupportsPrefixOperations prefixes) {
            return StreamSupport.stream(
                            prefixes.listPrefix(table.location() + "/metadata/").spliterator(), false)
                    .filter(file -> file.location().endsWith(".metadata.json"))
                    .count();
        }
        Path metadata = Path.of(java.net.URI.create(table.location())).resolve("metadata");
        try (java.util.stream.Stream<Path> files = Files.list(metadata)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".metadata.json"))
                    .count();
        }
    }

    private static OpenLoopResult openLoopStep(Peer peer, String name, double rate, int seconds, S3Store s3)
            throws Exception {
        Table created = createTable(peer.catalog(), name);
        TableIdentifier id = TableIdentifier.of(NS, name);
        created.newFastAppend().appendFile(file(created)).commit();

        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Random random = new Random(42);
        long start = System.nanoTime();
        long serverCpuBefore = peer.server() != null ? peer.server().cpuNanos() : 0;
        long driverCpuBefore = driverCpuNanos();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long next = start;
        int arrivals = 0;
        while (true) {
            next += (long) (-Math.log(1 - random.nextDouble()) / rate * 1e9);
            if (next >= end) {
                break;
            }
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            arrivals++;
            long arrival = next;
            pool.execute(() -> {
                try {
                    Table table = peer.catalog().loadTable(id);
                    table.newFastAppend().appendFile(file(table)).commit();
                    latencies.add(System.nanoTime() - arrival);
                    committed.incrementAndGet();
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    errors.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Commits still running after 10 minutes");
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        double serverCpuMillis = peer.server() != null ? (peer.server().cpuNanos() - serverCpuBefore) / 1e6 : 0;
        double driverCpuMillis = (driverCpuNanos() - driverCpuBefore) / 1e6;
        S3Store.Requests requestsAfter = s3 != null ? s3.requests() : null;
        long[] nanos = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long rebased = -1;
        Table result = peer.catalog().loadTable(id);
        if (peer.catalog() instanceof RESTCatalog) {
            rebased = 0;
            for (Snapshot snapshot : result.snapshots()) {
                if (snapshot.summary().containsKey("treecat.rebased-from")) {
                    rebased++;
                }
            }
        }
        // The failures first: when the check below fails, they say why (a commit that landed but whose client gave up).
        if (!errors.isEmpty()) {
            Map<String, Integer> kinds = new java.util.TreeMap<>();
            // Grouped with the numbers and ids masked: JDBC's "Cannot commit ...: metadata location
            // .../00013-<uuid>..."
            // names a different file every time.
            errors.forEach(error -> {
                String kind = error.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>")
                        .replaceAll("[0-9]{2,}", "N");
                kinds.merge(kind.length() > 160 ? kind.substring(0, 160) : kind, 1, Integer::sum);
            });
            System.err.printf("%s at %.0f/s: %d of %d failed: %s%n", peer.name(), rate, failed.get(), arrivals, kinds);
        }
        long total = Long.parseLong(result.currentSnapshot().summary().get("total-data-files"));
        if (total != committed.get() + 1) {
            throw new IllegalStateException(
                    peer.name() + ": " + committed.get() + " commits acknowledged but the table holds " + (total - 1));
        }
        // Achieved: commits over the time from the first arrival to the last completion.
        return new OpenLoopResult(
                committed.get(),
                failed.get(),
                committed.get() / elapsed,
                percentile(nanos, 0.50),
                percentile(nanos, 0.99),
                rebased,
                metadataFiles(result),
                requestsAfter,
                peer.server() != null ? serverCpuMillis / Math.max(1, committed.get()) : Double.NaN,
                driverCpuMillis / Math.max(1, committed.get()));
    }

    /**
     * CPU time this JVM has used so far: the simulated clients (and, with {@code -Dstore=s3}, S3Proxy and the latency
     * proxies, which run here too).
     */
    private static long driverCpuNanos() {
        return ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(java.time.Duration::toNanos)
                .orElse(-1L);
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** A TreeCat server in its own JVM ({@link ServerProcess#startTreeCat}); its REST port is chosen here, the others by the server. */
    private static ServerProcess startTreeCat(Path jar, Path directory, S3Store s3) throws Exception {
        List<String> jvm = new ArrayList<>(List.of(System.getProperty("treecat.server.xmx", "-Xmx1g")));
        if (s3 != null) {
            // The catalog "bench" on the store, its latency paid at the proxy.
            jvm.addAll(s3.serverJvmOptions());
        } else if (STORE_LATENCY_MS != null) {
            // The server's warehouse FileIO gets the same latency per request (DelayedFileIO.wrapIfAsked).
            jvm.add("-D" + DelayedFileIO.SERVER_PROPERTY + "=" + STORE_LATENCY_MS);
        }
        // Extra server JVM options, space-separated: a profiler, say
        // (-Dtreecat.server.jvm-args=-XX:StartFlightRecording=…).
        String extra = System.getProperty("treecat.server.jvm-args", "").trim();
        if (!extra.isEmpty()) {
            jvm.addAll(Arrays.asList(extra.split("\\s+")));
        }
        return ServerProcess.startTreeCat(
                jar, directory, jvm, s3 != null ? s3.serverEnvironment() : Map.of(), ServerProcess.freePort(), 0);
    }
}
