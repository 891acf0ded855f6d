package io.treecat.benchmarks.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.util.concurrent.MoreExecutors;
import io.treecat.benchmarks.ServerProcess;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;

/**
 * Issue 19's REST hot path, TreeCat against Iceberg's reference REST catalog server, side by side in one run: both
 * servers are started here, each in its own JVM on 127.0.0.1 with a fresh temporary directory, and driven by the same
 * clients on the same machine, alternating.
 *
 * <ul>
 *   <li><b>TreeCat</b>: the packaged server ({@link ServerProcess#startTreeCat}), its embedded default configuration,
 *       with no table property set: {@code iceberg.rebase-appends} is whatever the server's default is.
 *   <li><b>reference</b>: {@code org.apache.iceberg.rest.RESTCatalogServer}'s server (a {@code JdbcCatalog} on sqlite,
 *       {@code HadoopFileIO} on a {@code file://} warehouse), configured by its {@code CATALOG_*} environment, logging at
 *       WARN as TreeCat's server does here, and bound to loopback ({@link org.apache.iceberg.rest.LoopbackRESTCatalogServer}: the
 *       same adapter and servlet on the Jetty of this jar, with the jars {@code package} copies to {@code
 *       benchmarks/target/reference-rest-peer/}).
 * </ul>
 *
 * <p>The workloads; a to c alternate between the servers in {@code -Drounds} (3) rounds, each round starting with the
 * other server:
 *
 * <ol type="a">
 *   <li>Iceberg's Java {@link RESTCatalog}, one client: {@code -Dloads} (200) {@code loadTable} calls (the whole call:
 *       request and the client's parse; Iceberg 1.11's client sends {@code If-None-Match} on a repeated load, and both
 *       servers answer 304), then {@code -Dcommits} (50) one-file {@code FastAppend} appends to the same
 *       table, each timed as its commit request alone ({@link TimedRestClient}: the {@code POST
 *       .../tables/{table}} from call to parsed response, without the manifest and manifest list the client writes
 *       first).
 *   <li>PyIceberg (the pinned 0.12.0, in a venv under {@code benchmarks/target/pyiceberg-venv} made from PyPI on the
 *       first run): {@code benchmarks/src/main/python/rest_hot_path.py} in a fresh process per round and server,
 *       {@code -Dpython.loads} (100) {@code load_table} and {@code -Dpython.commits} (30) {@code append}s of one row,
 *       the commit request timed through the {@code requests} session (the {@code POST}, not the Parquet write).
 *       {@code -Dpython=false} leaves it out.
 *   <li>{@code loadTable} of a table with {@code -Dhistory.snapshots} (5,000) snapshots, {@code -Dhistory.loads} (30)
 *       per round, with the Java client and with PyIceberg. The table is built through each server alike: one-file
 *       merge appends made in client-side transactions of {@code -Dhistory.batch} (250), each transaction one commit
 *       request, so that every snapshot is a real one with its own manifest list. Beside a's and c's client loads, plain GETs
 *       without {@code If-None-Match} ({@code java.net.http}, read to the end) time each server's full answer.
 *   <li>After the rounds, open-loop Poisson appends from 8 Java clients (each its own {@link RESTCatalog}, arrivals
 *       dealt to them in turn) to one fresh table per step, at each of {@code -Drates} (25,50,100,150) commits/s for
 *       {@code -Dseconds} (20), after an untimed 10 s at 10/s ({@code -Dwarmup.seconds}): each arrival loads the table and commits a one-file {@code FastAppend}, retrying on
 *       409 with Iceberg's default policy. Each client is one writer, one commit at a time: an arrival dealt to a
 *       busy client waits in its queue, and its latency counts from its arrival; one still waiting {@code
 *       -Dmax-queue.seconds} (10) after its arrival is dropped and counted as failed, so that an overloaded step ends. Reported: the CPU time the server and this driver's clients used per acknowledged commit (from /proc: where a
 *       step's time went when the machine is shared), achieved commits/s (acknowledged commits over the time from the
 *       first arrival to the last completion), success %, latency from arrival to acknowledgement, and the 409s the
 *       clients retried. {@code -Drebase=true} adds a third side, TreeCat with the table property {@code
 *       treecat.rebase-appends=true} on its open-loop tables.
 * </ol>
 *
 * <p>Every figure prints p50 and p99 per server and the ratio TreeCat / reference; the last table holds all figures
 * with the goals (latencies ≤ 0.3× the reference's p50; ≥ 100 commits/s at ≥ 99 % success in d). From the
 * repository root, after {@code ./mvnw -B -q -DskipTests -pl catalog-server,benchmarks -am package}:
 *
 * <pre>
 * java -Xmx1g -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.iceberg.RestHotPathBenchmark
 * </pre>
 *
 * <p>{@code -Dserver.xmx} (-Xmx1g) and {@code -Dserver.jvm-args} (a profiler, a heap dump on OOM) go to both servers'
 * JVMs; {@code -Dkeep=true} keeps the work directory (the servers' logs and warehouses), which is deleted otherwise.
 */
public final class RestHotPathBenchmark {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final Namespace NS = Namespace.of("bench");
    private static final TableIdentifier HOT = TableIdentifier.of(NS, "hot");
    private static final TableIdentifier PY_HOT = TableIdentifier.of(NS, "py_hot");
    private static final TableIdentifier HISTORY = TableIdentifier.of(NS, "history");
    private static final String PYICEBERG = "pyiceberg[pyarrow]==0.12.0";
    private static final int OPEN_LOOP_CLIENTS = 8;
    private static final ExecutorService DIRECT = MoreExecutors.newDirectExecutorService();

    private RestHotPathBenchmark() {}

    /** One server under test, its measuring Java client, and every sample taken from it (nanoseconds, by figure). */
    private record Side(
            String name,
            ServerProcess server,
            RESTCatalog client,
            TimedRestClient.Stopwatch stopwatch,
            String tablesUri,
            Map<String, List<Long>> samples,
            Map<String, Long> responseBytes) {
        String uri() {
            return "http://127.0.0.1:" + server.port();
        }

        List<Long> samples(String figure) {
            return samples.computeIfAbsent(figure, f -> new ArrayList<>());
        }
    }

    /** One open-loop step's outcome. */
    private record OpenLoop(
            int offered,
            int committed,
            int failed,
            double achieved,
            long p50,
            long p99,
            long conflicts,
            double serverCpuMillisPerCommit,
            double driverCpuMillisPerCommit,
            String error) {
        double successPercent() {
            return 100.0 * committed / Math.max(1, committed + failed);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.getInteger("rounds", 3);
        int loads = Integer.getInteger("loads", 200);
        int commits = Integer.getInteger("commits", 50);
        int historySnapshots = Integer.getInteger("history.snapshots", 5000);
        int historyLoads = Integer.getInteger("history.loads", 30);
        boolean python = Boolean.parseBoolean(System.getProperty("python", "true"));
        int seconds = Integer.getInteger("seconds", 20);
        double[] rates = Arrays.stream(
                        System.getProperty("rates", "25,50,100,150").split(","))
                .mapToDouble(Double::parseDouble)
                .toArray();
        // Each simulated writer would be a process with its own worker pool: one pool of one thread per core for the
        // whole driver would queue the open-loop writers' manifest writes behind each other.
        // Iceberg logs every commit (and every retry, with its stack) at INFO and WARN: errors only, unless asked.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        if (System.getProperty("iceberg.worker.num-threads") == null) {
            System.setProperty("iceberg.worker.num-threads", "64");
        }
        Path work = Files.createTempDirectory("rest-hot-path-bench");
        Path venvPython = python ? pythonVenv() : null;
        System.out.printf(Locale.ROOT, "Work directory %s (deleted at the end unless -Dkeep=true)%n", work);

        try (ServerProcess treecatServer = ServerProcess.startTreeCat(
                        ServerProcess.treecatJar(),
                        work.resolve("treecat"),
                        ServerProcess.serverJvmOptions(),
                        ServerProcess.freePort(),
                        0);
                ServerProcess referenceServer = IcebergPeers.startReference(work.resolve("reference"), null)) {
            List<Side> sides = List.of(side("TreeCat", treecatServer), side("reference", referenceServer));
            for (Side side : sides) {
                long began = System.nanoTime();
                prepare(side, historySnapshots, Integer.getInteger("history.batch", 250));
                System.out.printf(
                        Locale.ROOT,
                        "%s: started in %d ms, tables made in %.1f s (history: %d snapshots)%n",
                        side.name(),
                        side.server().startedMillis(),
                        (System.nanoTime() - began) / 1e9,
                        historySnapshots);
                // Untimed: both JVMs (servers and this client) compile the paths before the first measured round.
                javaRound(side, loads, commits / 2, historyLoads / 3, false);
            }

            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < sides.size(); i++) {
                    Side side = sides.get((round + i) % sides.size());
                    javaRound(side, loads, commits, historyLoads, true);
                    if (venvPython != null) {
                        pythonRound(side, venvPython, work, historyLoads);
                    }
                }
                System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, rounds);
            }
            report(sides);

            Map<String, Map<Double, OpenLoop>> openLoop = openLoop(sides, Boolean.getBoolean("rebase"), seconds, rates);
            summary(sides, openLoop, rates);
            for (Side side : sides) {
                side.client().close();
            }
        }
        if (!Boolean.getBoolean("keep")) {
            // Both servers are stopped: their directories (the history tables' metadata, every step's manifests) go.
            try (java.util.stream.Stream<Path> paths = Files.walk(work)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    // ---- servers and clients

    private static Side side(String name, ServerProcess server) throws IOException, InterruptedException {
        TimedRestClient.Stopwatch stopwatch = new TimedRestClient.Stopwatch();
        return new Side(
                name,
                server,
                client(server, stopwatch),
                stopwatch,
                tablesUri("http://127.0.0.1:" + server.port()),
                new LinkedHashMap<>(),
                new java.util.concurrent.ConcurrentHashMap<>());
    }

    /** Iceberg's REST client with the commit stopwatch, {@link LocalFileIO} for data and manifests on either server. */
    private static RESTCatalog client(ServerProcess server, TimedRestClient.Stopwatch stopwatch) {
        RESTCatalog catalog = new RESTCatalog(properties -> new TimedRestClient(
                HTTPClient.builder(properties)
                        .uri(properties.get(CatalogProperties.URI))
                        .withHeaders(RESTUtil.configHeaders(properties))
                        .build(),
                stopwatch));
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "http://127.0.0.1:" + server.port());
        properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        // The open loop has hundreds of commits in flight at once; a pool of Iceberg's default 100 would measure
        // the pool.
        properties.put("rest.client.max-connections", "1000");
        properties.put("rest.client.connections-per-route", "1000");
        catalog.initialize("bench", properties);
        return catalog;
    }

    /**
     * The namespace and the tables, made the same way through both servers: {@code hot} and {@code py_hot} with 20
     * appends each, and {@code history} with {@code snapshots} snapshots.
     */
    private static void prepare(Side side, int snapshots, int batch) {
        RESTCatalog catalog = side.client();
        catalog.createNamespace(NS);
        for (TableIdentifier id : List.of(HOT, PY_HOT)) {
            Table table = catalog.createTable(id, SCHEMA, SPEC);
            for (int i = 0; i < 20; i++) {
                table.newFastAppend().appendFile(InsertsExperiment.file(table)).commit();
            }
        }
        Table history = catalog.createTable(HISTORY, SCHEMA, SPEC);
        int made = 0;
        while (made < snapshots) {
            Transaction transaction = history.newTransaction();
            int chunk = Math.min(batch, snapshots - made);
            for (int i = 0; i < chunk; i++) {
                // A merge append keeps the manifest lists short (Iceberg merges past 100 manifests). On a direct
                // executor: with the worker pool, each of an append's parallel steps waits in Iceberg's 10 ms polling
                // loop (Tasks.waitFor), and 5,000 appends took 4.5 minutes per server, mostly asleep.
                transaction
                        .newAppend()
                        .appendFile(InsertsExperiment.file(history))
                        .scanManifestsWith(DIRECT)
                        .commit();
            }
            transaction.commitTransaction();
            made += chunk;
        }
        // Counted as snapshots, not as the snapshot log: that keeps one entry per commit request.
        int count = 0;
        for (org.apache.iceberg.Snapshot ignored : catalog.loadTable(HISTORY).snapshots()) {
            count++;
        }
        if (count != snapshots) {
            throw new IllegalStateException(side.name() + ": the history table has " + count + " snapshots");
        }
    }

    // ---- a to c

    private static void javaRound(Side side, int loads, int commits, int historyLoads, boolean measured) {
        RESTCatalog catalog = side.client();
        List<Long> loadSamples = side.samples("java.load");
        for (int i = 0; i < loads; i++) {
            long start = System.nanoTime();
            catalog.loadTable(HOT);
            long took = System.nanoTime() - start;
            if (measured) {
                loadSamples.add(took);
            }
        }
        Table table = catalog.loadTable(HOT);
        List<Long> commitSamples = side.samples("java.commit");
        side.stopwatch().recordCommitsTo(measured ? commitSamples::add : nanos -> {});
        long conflictsBefore = side.stopwatch().conflicts();
        for (int i = 0; i < commits; i++) {
            table.newFastAppend().appendFile(InsertsExperiment.file(table)).commit();
        }
        side.stopwatch().recordCommitsTo(nanos -> {});
        if (side.stopwatch().conflicts() != conflictsBefore) {
            throw new IllegalStateException(side.name() + ": a single client's commit was answered 409");
        }
        List<Long> historySamples = side.samples("java.history-load");
        for (int i = 0; i < historyLoads; i++) {
            long start = System.nanoTime();
            catalog.loadTable(HISTORY);
            long took = System.nanoTime() - start;
            if (measured) {
                historySamples.add(took);
            }
        }
        // The same loads as plain GETs without If-None-Match: the server's full answer and its transfer, without a
        // client's parse (Iceberg's Java client sends If-None-Match on a repeated load; PyIceberg 0.12 does not).
        rawLoads(side, HOT, loads / 4, measured ? side.samples("http.load") : null);
        rawLoads(side, HISTORY, historyLoads, measured ? side.samples("http.history-load") : null);
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .build();

    /** {@code count} GETs of a table's REST path, each read to its end; samples to {@code sink} unless it is null. */
    private static void rawLoads(Side side, TableIdentifier table, int count, List<Long> sink) {
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(side.tablesUri() + table.name()))
                .GET()
                .build();
        for (int i = 0; i < count; i++) {
            try {
                long start = System.nanoTime();
                java.net.http.HttpResponse<byte[]> response =
                        HTTP.send(request, java.net.http.HttpResponse.BodyHandlers.ofByteArray());
                long took = System.nanoTime() - start;
                if (response.statusCode() != 200) {
                    throw new IllegalStateException(
                            side.name() + ": GET " + request.uri() + " answered " + response.statusCode());
                }
                side.responseBytes().put(table.name(), (long) response.body().length);
                if (sink != null) {
                    sink.add(took);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The URI under which a server's tables of namespace {@code bench} are, with the prefix its /v1/config names. */
    private static String tablesUri(String uri) throws IOException, InterruptedException {
        java.net.http.HttpResponse<String> response = HTTP.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(uri + "/v1/config"))
                        .GET()
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        JsonNode config = JsonUtil.mapper().readTree(response.body());
        String prefix = null;
        for (String section : List.of("defaults", "overrides")) {
            JsonNode value = config.path(section).path("prefix");
            if (value.isTextual()) {
                prefix = value.asText();
            }
        }
        return uri + "/v1/" + (prefix == null ? "" : prefix + "/") + "namespaces/" + NS + "/tables/";
    }

    /** The venv's python with the pinned PyIceberg, made (from PyPI, as catalog-server's ITs do) on the first run. */
    private static Path pythonVenv() throws IOException, InterruptedException {
        Path venv = Path.of(System.getProperty("python.venv", "benchmarks/target/pyiceberg-venv"))
                .toAbsolutePath();
        Path python = venv.resolve("bin/python");
        Path installed = venv.resolve("installed.txt");
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(PYICEBERG)) {
            return python;
        }
        Path log = Files.createTempFile("pyiceberg-venv", ".log");
        System.out.printf(Locale.ROOT, "Installing %s into %s (log %s)%n", PYICEBERG, venv, log);
        ServerProcess.runToCompletion(
                List.of("python3", "-m", "venv", "--clear", venv.toString()), Map.of(), Path.of("."), log, 120);
        ServerProcess.runToCompletion(
                List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "-q", PYICEBERG),
                Map.of(),
                Path.of("."),
                log,
                900);
        Files.writeString(installed, PYICEBERG);
        return python;
    }

    private static void pythonRound(Side side, Path python, Path work, int historyLoads)
            throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("python.script", "benchmarks/src/main/python/rest_hot_path.py"))
                .toAbsolutePath();
        Path out = Files.createTempFile(work, "python", ".json");
        Path err = Files.createTempFile(work, "python", ".err");
        Process process = new ProcessBuilder(
                        python.toString(),
                        script.toString(),
                        side.uri(),
                        NS + "." + PY_HOT.name(),
                        NS + "." + HISTORY.name(),
                        Integer.getInteger("python.warmup", 20).toString(),
                        Integer.getInteger("python.loads", 100).toString(),
                        Integer.getInteger("python.commits", 30).toString(),
                        Integer.toString(historyLoads))
                .directory(work.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("PyIceberg driver timed out against " + side.name());
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(
                    "PyIceberg driver failed against " + side.name() + ":\n" + ServerProcess.tail(err));
        }
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        JsonNode result = JsonUtil.mapper().readTree(lines.get(lines.size() - 1));
        for (String[] figure : new String[][] {
            {"loads", "python.load"}, {"commits", "python.commit"}, {"history_loads", "python.history-load"}
        }) {
            List<Long> samples = side.samples(figure[1]);
            result.get(figure[0]).forEach(node -> samples.add(node.asLong()));
        }
    }

    // ---- d

    private static Map<String, Map<Double, OpenLoop>> openLoop(
            List<Side> sides, boolean rebase, int seconds, double[] rates) throws Exception {
        Map<String, Map<Double, OpenLoop>> results = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        Map<String, List<RESTCatalog>> clients = new HashMap<>();
        Map<String, TimedRestClient.Stopwatch> stopwatches = new HashMap<>();
        Map<String, Map<String, String>> properties = new HashMap<>();
        Map<String, Side> servers = new HashMap<>();
        for (Side side : sides) {
            names.add(side.name());
            servers.put(side.name(), side);
            properties.put(side.name(), Map.of());
        }
        if (rebase) {
            String name = "TreeCat, rebase on";
            names.add(1, name);
            servers.put(name, sides.get(0));
            properties.put(name, Map.of("treecat.rebase-appends", "true"));
        }
        for (String name : names) {
            TimedRestClient.Stopwatch stopwatch = new TimedRestClient.Stopwatch();
            List<RESTCatalog> list = new ArrayList<>();
            for (int i = 0; i < OPEN_LOOP_CLIENTS; i++) {
                list.add(client(servers.get(name).server(), stopwatch));
            }
            clients.put(name, list);
            stopwatches.put(name, stopwatch);
            results.put(name, new TreeMap<>());
            // Untimed: the open-loop path (retries, and on TreeCat with rebase on, the rebase) compiled first.
            int warmup = Integer.getInteger("warmup.seconds", 10);
            if (warmup > 0) {
                openLoopStep(
                        name,
                        servers.get(name).server(),
                        list,
                        stopwatch,
                        properties.get(name),
                        "warmup_open_" + names.indexOf(name),
                        10,
                        warmup);
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%nd. open loop, %d clients (one commit at a time each), one table per step, %d s per step%n"
                        + "| server | offered /s | arrivals | committed | failed | success %% | achieved /s | p50 ms"
                        + " | p99 ms | 409s retried | CPU ms / commit: server, clients |%n|---|---|---|---|---|---|---|---|---|---|---|%n",
                OPEN_LOOP_CLIENTS,
                seconds);
        int step = 0;
        for (double rate : rates) {
            for (int i = 0; i < names.size(); i++) {
                // Alternate which side goes first at each rate.
                String name = names.get((step + i) % names.size());
                String table = String.format(Locale.ROOT, "open_%d_%d", (int) rate, i);
                OpenLoop result = openLoopStep(
                        name,
                        servers.get(name).server(),
                        clients.get(name),
                        stopwatches.get(name),
                        properties.get(name),
                        table,
                        rate,
                        seconds);
                results.get(name).put(rate, result);
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.0f | %d | %d | %d | %.1f | %.1f | %.0f | %.0f | %d | %.1f, %.1f |%n",
                        name,
                        rate,
                        result.offered(),
                        result.committed(),
                        result.failed(),
                        result.successPercent(),
                        result.achieved(),
                        ms(result.p50()),
                        ms(result.p99()),
                        result.conflicts(),
                        result.serverCpuMillisPerCommit(),
                        result.driverCpuMillisPerCommit());
                if (result.error() != null) {
                    System.out.printf(Locale.ROOT, "  %s at %.0f/s: %s%n", name, rate, result.error());
                }
            }
            step++;
        }
        for (List<RESTCatalog> list : clients.values()) {
            for (RESTCatalog client : list) {
                client.close();
            }
        }
        return results;
    }

    private static OpenLoop openLoopStep(
            String name,
            ServerProcess server,
            List<RESTCatalog> clients,
            TimedRestClient.Stopwatch stopwatch,
            Map<String, String> tableProperties,
            String tableName,
            double rate,
            int seconds)
            throws Exception {
        TableIdentifier id = TableIdentifier.of(NS, tableName);
        Table created = clients.get(0).createTable(id, SCHEMA, SPEC, tableProperties);
        created.newFastAppend().appendFile(InsertsExperiment.file(created)).commit();

        // Each client is one writer: it makes one commit at a time, and an arrival dealt to it while it is busy waits
        // in its queue (its latency counts from the arrival). With a thread per arrival instead, hundreds of loads
        // and commits in flight at once made this driver, not the server, the bottleneck (GC, 2 cores).
        List<ExecutorService> writers = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            writers.add(Executors.newSingleThreadExecutor());
        }
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        Map<String, Integer> errors = new java.util.concurrent.ConcurrentHashMap<>();
        Random random = new Random(42);
        int maxQueueSeconds = Integer.getInteger("max-queue.seconds", 10);
        long maxQueueNanos = TimeUnit.SECONDS.toNanos(maxQueueSeconds);
        long conflictsBefore = stopwatch.conflicts();
        long serverCpuBefore = server.cpuNanos();
        long driverCpuBefore = driverCpuNanos();
        long start = System.nanoTime();
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
            RESTCatalog client = clients.get(arrivals % clients.size());
            ExecutorService writer = writers.get(arrivals % clients.size());
            arrivals++;
            long arrival = next;
            writer.execute(() -> {
                if (System.nanoTime() - arrival > maxQueueNanos) {
                    // Shed, so that an overloaded step ends: counted as a failure, as a client that gave up would be.
                    failed.incrementAndGet();
                    errors.merge("not started within " + maxQueueSeconds + " s of its arrival", 1, Integer::sum);
                    return;
                }
                try {
                    Table table = client.loadTable(id);
                    table.newFastAppend()
                            .appendFile(InsertsExperiment.file(table))
                            .commit();
                    latencies.add(System.nanoTime() - arrival);
                    committed.incrementAndGet();
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    String message = String.valueOf(e.getMessage())
                            .replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<uuid>")
                            .replaceAll("[0-9]{2,}", "N");
                    errors.merge(
                            e.getClass().getSimpleName() + ": " + message.substring(0, Math.min(120, message.length())),
                            1,
                            Integer::sum);
                }
            });
        }
        for (ExecutorService writer : writers) {
            writer.shutdown();
        }
        for (ExecutorService writer : writers) {
            if (!writer.awaitTermination(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException(name + ": commits still running after 10 minutes");
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        double perCommit = Math.max(1, committed.get()) * 1e6;
        double serverCpu = (server.cpuNanos() - serverCpuBefore) / perCommit;
        double driverCpu = (driverCpuNanos() - driverCpuBefore) / perCommit;
        long[] nanos = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        String error = errors.isEmpty() ? null : "failures: " + new TreeMap<>(errors);
        long total = Long.parseLong(
                clients.get(0).loadTable(id).currentSnapshot().summary().get("total-data-files"));
        if (total != committed.get() + 1L) {
            error = (error == null ? "" : error + "; ") + committed.get() + " appends acknowledged but the table holds "
                    + (total - 1);
        }
        return new OpenLoop(
                arrivals,
                committed.get(),
                failed.get(),
                committed.get() / elapsed,
                percentile(nanos, 0.50),
                percentile(nanos, 0.99),
                stopwatch.conflicts() - conflictsBefore,
                serverCpu,
                driverCpu,
                error);
    }

    /** CPU time this JVM (the clients) has used so far, from /proc; waiting for a core does not count. */
    private static long driverCpuNanos() {
        return ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(java.time.Duration::toNanos)
                .orElse(-1L);
    }

    // ---- reports

    private static final List<String[]> LATENCY_FIGURES = List.of(
            new String[] {"java.commit", "a. Java commit request"},
            new String[] {"java.load", "a. Java loadTable"},
            new String[] {"python.commit", "b. PyIceberg commit request"},
            new String[] {"python.load", "b. PyIceberg load_table"},
            new String[] {"http.load", "a. HTTP GET table, no ETag"},
            new String[] {"java.history-load", "c. Java loadTable, history table"},
            new String[] {"python.history-load", "c. PyIceberg load_table, history table"},
            new String[] {"http.history-load", "c. HTTP GET history table, no ETag"});

    private static void report(List<Side> sides) {
        Side treecat = sides.get(0);
        Side reference = sides.get(1);
        for (Side side : sides) {
            System.out.printf(Locale.ROOT, "%s: loadTable response bytes %s%n", side.name(), side.responseBytes());
        }
        System.out.printf(
                Locale.ROOT,
                "%n| figure | samples | TreeCat p50 ms | p99 ms | reference p50 ms | p99 ms | ratio p50 | ratio p99"
                        + " |%n|---|---|---|---|---|---|---|---|%n");
        for (String[] figure : LATENCY_FIGURES) {
            long[] ours = sorted(treecat.samples(figure[0]));
            long[] theirs = sorted(reference.samples(figure[0]));
            if (ours.length == 0 || theirs.length == 0) {
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d / %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                    figure[1],
                    ours.length,
                    theirs.length,
                    ms(percentile(ours, 0.5)),
                    ms(percentile(ours, 0.99)),
                    ms(percentile(theirs, 0.5)),
                    ms(percentile(theirs, 0.99)),
                    (double) percentile(ours, 0.5) / percentile(theirs, 0.5),
                    (double) percentile(ours, 0.99) / percentile(theirs, 0.99));
        }
    }

    /** The final table: every figure, both servers, the ratio and the goal. */
    private static void summary(List<Side> sides, Map<String, Map<Double, OpenLoop>> openLoop, double[] rates) {
        Side treecat = sides.get(0);
        Side reference = sides.get(1);
        System.out.printf(
                Locale.ROOT,
                "%nSummary%n| figure | TreeCat | reference | ratio | goal | met |%n|---|---|---|---|---|---|%n");
        for (String[] figure : LATENCY_FIGURES) {
            long[] ours = sorted(treecat.samples(figure[0]));
            long[] theirs = sorted(reference.samples(figure[0]));
            if (ours.length == 0 || theirs.length == 0) {
                continue;
            }
            for (double p : new double[] {0.5, 0.99}) {
                double ratio = (double) percentile(ours, p) / percentile(theirs, p);
                boolean p50 = p == 0.5;
                System.out.printf(
                        Locale.ROOT,
                        "| %s %s | %.2f ms | %.2f ms | %.2f | %s | %s |%n",
                        figure[1],
                        p50 ? "p50" : "p99",
                        ms(percentile(ours, p)),
                        ms(percentile(theirs, p)),
                        ratio,
                        p50 ? "≤ 0.3" : "",
                        p50 ? (ratio <= 0.3 ? "yes" : "no") : "");
            }
        }
        List<String> names = new ArrayList<>(openLoop.keySet());
        for (double rate : rates) {
            OpenLoop theirs = openLoop.get(reference.name()).get(rate);
            for (String name : names) {
                if (name.equals(reference.name())) {
                    continue;
                }
                OpenLoop ours = openLoop.get(name).get(rate);
                boolean met = ours.achieved() >= 100 && ours.successPercent() >= 99;
                System.out.printf(
                        Locale.ROOT,
                        "| d. open loop at %.0f/s%s: commits/s (success %%) | %.1f (%.1f %%) | %.1f (%.1f %%) | %.2f |"
                                + " ≥ 100/s at ≥ 99 %% | %s |%n",
                        rate,
                        name.equals(treecat.name()) ? "" : " (" + name + ")",
                        ours.achieved(),
                        ours.successPercent(),
                        theirs.achieved(),
                        theirs.successPercent(),
                        ours.achieved() / Math.max(1e-9, theirs.achieved()),
                        rate >= 100 ? (met ? "yes" : "no") : "n/a");
            }
        }
    }

    private static long[] sorted(List<Long> samples) {
        return samples.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(p * sorted.length) - 1))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
