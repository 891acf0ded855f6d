package io.treecat.benchmarks.retrieval;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.ServerProcess;
import io.treecat.benchmarks.peers.HivePeer;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.version.ChildKinds;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Experiment 3, the paper's Figures 10 and 11: how long it takes to find a table's files for a
 * predicate, against the table's size and the predicate's range. One Iceberg table of N files over
 * 365 days (identity {@code day} + {@code bucket(16, id)}) lives in a packaged TreeCat server; the
 * same files are then found four ways, alternating in every round:
 *
 * <ul>
 *   <li>{@code path query}: TreeCat's native gRPC query over the file index, the day range split
 *       over parallel streams, as the paper's clients do;
 *   <li>{@code REST /plan}: Iceberg's own {@code RESTCatalog} with {@code scan-planning-mode=server}:
 *       the server plans from the tree, Iceberg's client reads the plan tasks;
 *   <li>{@code planFiles}: Iceberg's {@code RESTCatalog} planning locally, reading the manifests from
 *       the warehouse (what every engine does without TreeCat);
 *   <li>Hive: the same files registered in a Hive 4.0.1 metastore, one partition per day ({@link HiveListing}):
 *       {@code get_partitions_by_filter}, then the partitions' directories listed in parallel.
 * </ul>
 *
 * Every method must find the same number of files in every cell, or the experiment fails.
 */
public final class FileRetrievalExperiment implements Experiment {
    /**
     * @param files table sizes, one fresh server and table each
     * @param ranges predicate ranges in days, ending at the table's last day
     * @param streams parallel gRPC streams of the path query
     */
    public record Settings(List<Integer> files, List<Integer> ranges, int warmupRounds, int rounds, int streams) {
        public Settings {
            files = ImmutableList.copyOf(files);
            ranges = ImmutableList.copyOf(ranges);
            if (files.isEmpty() || ranges.isEmpty() || rounds < 1 || streams < 1) {
                throw new IllegalArgumentException("Give table sizes, ranges, rounds and streams");
            }
        }

        public static Settings of(io.treecat.benchmarks.suite.Preset preset) {
            return new Settings(
                    preset.pick(
                            List.of(10_000, 50_000),
                            List.of(10_000, 100_000, 500_000),
                            List.of(10_000, 50_000, 100_000, 250_000, 500_000)),
                    List.of(1, 7, 30, 365),
                    preset.pick(2, 3, 3),
                    preset.pick(3, 5, 9),
                    4);
        }
    }

    /** How the files are found. */
    enum Method {
        PATH_QUERY("path query (gRPC)"),
        REST_PLAN("REST /plan"),
        PLAN_FILES("Iceberg planFiles"),
        HIVE("Hive 4.0.1 by filter + listing");

        private final String label;

        Method(String label) {
            this.label = label;
        }
    }

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "category", Types.StringType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").bucket("id", 16).build();
    static final LocalDate FIRST_DAY = LocalDate.of(2025, 1, 1);
    static final int DAYS = 365;
    private static final int APPENDS = 100;
    static final String CATALOG = "warehouse";
    /**
     * What Iceberg's {@code planFiles} hands back without {@code includeColumnStats()}, and so what the path query
     * asks for: a file's identity, partition, size and layout, not its column statistics.
     */
    static final List<String> PLANNED_FIELDS = List.of(
            "content",
            "file_path",
            "file_format",
            "spec_id",
            "part_val",
            "record_count",
            "file_size_in_bytes",
            "split_offsets",
            "sort_order_id",
            "data_sequence_number",
            "file_sequence_number");

    /** Calls of each method on the narrowest range, then on the widest, before any is measured. */
    private static final int WARMUP_CALLS = 30;

    private static final int WIDE_WARMUP_CALLS = 40;

    /** One way to find the files of the last {@code range} days; answers how many it found. */
    @FunctionalInterface
    private interface Retrieval {
        int files(int range) throws Exception;
    }

    private static final Namespace NAMESPACE = Namespace.of("db");
    private static final TableIdentifier TABLE = TableIdentifier.of(NAMESPACE, "events");

    /** This process, the client of every method: its CPU time, all threads. */
    private static final com.sun.management.OperatingSystemMXBean CLIENT =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final Settings fixed;

    public FileRetrievalExperiment() {
        this.fixed = null;
    }

    public FileRetrievalExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "retrieval";
    }

    @Override
    public String title() {
        return "File retrieval: the tree against the manifests and Hive's partitions (paper Figs. 10–11)";
    }

    @Override
    public String description() {
        return "One Iceberg table of N files over 365 days (partitioned by day and bucket(16, id), bounds on 4 columns,"
                + " filled by 100 time-ordered appends through Iceberg's REST client) in a packaged TreeCat server on"
                + " loopback. Its files for a range of days ending at the last day are found four ways, alternating"
                + " in every round: TreeCat's native path query over gRPC (the day range split over parallel"
                + " streams), TreeCat's REST `/plan` read by Iceberg's own `RESTCatalog` (server-side planning), and"
                + " Iceberg's client-side `planFiles` over the manifests in the warehouse; and the paper's Hive"
                + " Metastore way: the same files (made, empty, on this disk) registered in a Hive 4.0.1 metastore"
                + " (Derby) partitioned by day, found by `get_partitions_by_filter` and a listing of each returned"
                + " partition's directory (with each file's attributes, as an HDFS listing returns them) on as many"
                + " threads as the path query's streams. Every method must return"
                + " the same files. Times are medians, from the call to the last file in hand; client and server"
                + " share this machine's cores. The CPU columns say where a call's work is done: the server"
                + " process's CPU time (Hive's for its method) and this (client) process's, per call, averaged over"
                + " the measured rounds"
                + " (Linux counts process CPU in 10 ms ticks, so small figures are coarse). They include what else the"
                + " processes did meanwhile (the JIT, the collector, RocksDB's background work): `planFiles` never"
                + " calls the server, so its server column is that floor.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        Optional<String> hiveMissing = HivePeer.unavailable();
        HivePeer.Started hive = hiveMissing.isEmpty()
                ? HivePeer.start(run.directory("hive"), ServerProcess.serverJvmOptions("-Xmx2g"))
                : null;
        hiveMissing.ifPresent(reason -> run.note("Hive Metastore was not measured: " + reason + "."));
        try (ServerProcess hiveServer = hive == null ? null : hive.server();
                HiveListing hiveListing =
                        hive == null ? null : new HiveListing(hive.server().port())) {
            measure(run, settings, hive, hiveListing);
        }
    }

    private void measure(ExperimentRun run, Settings settings, HivePeer.Started hive, HiveListing hiveListing)
            throws Exception {
        ResultTable latency = run.table(
                "latency",
                "Median time to retrieve the files, by table size and predicate range",
                "files in table",
                "range days",
                "method",
                "files found",
                "median ms",
                "min ms",
                "server CPU ms",
                "client CPU ms");
        for (int files : settings.files()) {
            measureTable(run, settings, files, latency, hive, hiveListing);
        }
        int largest = settings.files().get(settings.files().size() - 1);
        int widest = settings.ranges().get(settings.ranges().size() - 1);
        ResultTable wholeTable = run.table(
                "by-table-size",
                "Whole table (" + widest + " days), by table size (Fig. 10)",
                "files in table",
                "method",
                "median ms");
        ResultTable byRange = run.table(
                "by-range",
                "By predicate range, at " + String.format(Locale.ROOT, "%,d", largest) + " files (Fig. 11)",
                "range days",
                "method",
                "median ms");
        for (List<Object> row : latency.rows()) {
            if (((Number) row.get(1)).intValue() == widest) {
                wholeTable.add(row.get(0), row.get(2), row.get(4));
            }
            if (((Number) row.get(0)).intValue() == largest) {
                byRange.add(row.get(1), row.get(2), row.get(4));
            }
        }
        run.lines(
                "by-table-size",
                "Retrieving a whole table's files, by table size (Fig. 10)",
                wholeTable,
                "files in table",
                "median ms",
                "method");
        run.lines(
                "by-range",
                "Retrieving files by predicate range at " + String.format(Locale.ROOT, "%,d", largest)
                        + " files (Fig. 11)",
                byRange,
                "range days",
                "median ms",
                "method");
        if (hiveListing != null) {
            run.note(
                    "Hive's method finds less than the others: a file's name and its attributes from the listing (size,"
                            + " times), not its partition values, record count or layout, which the path query, `/plan` and"
                            + " `planFiles` all return; and it lists this machine's disk, where the paper's listed HDFS over the"
                            + " network. It answers what the paper's HMS client asked, on the same files.");
        }
        run.note(ratios(latency));
        run.note(wholeTableCosts(latency, largest, widest));
        run.finding(finding(latency, largest, settings.ranges().get(0), widest));
    }

    /**
     * Where a whole table's time goes, in this run's figures: CPU per file found, server and client. On two cores the
     * two sides share the machine, so their sum bounds the time from below.
     */
    private static String wholeTableCosts(ResultTable latency, int files, int range) {
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "Where the time of a whole table (%,d files, %d days) goes: CPU per file found, server + client,"
                        + " in µs:",
                files,
                range));
        double planClientMs = Double.NaN;
        double planFilesMs = Double.NaN;
        for (List<Object> row : latency.rows()) {
            if (((Number) row.get(0)).intValue() == files && ((Number) row.get(1)).intValue() == range) {
                int found = ((Number) row.get(3)).intValue();
                if (Method.REST_PLAN.label.equals(row.get(2))) {
                    planClientMs = ((Number) row.get(7)).doubleValue();
                } else if (Method.PLAN_FILES.label.equals(row.get(2))) {
                    planFilesMs = ((Number) row.get(4)).doubleValue();
                }
                text.append(String.format(
                        Locale.ROOT,
                        " %s %.1f + %.1f;",
                        row.get(2),
                        ((Number) row.get(6)).doubleValue() * 1000 / found,
                        ((Number) row.get(7)).doubleValue() * 1000 / found));
            }
        }
        text.setLength(text.length() - 1);
        text.append(". Every file the tree returns is a separate object that the server reads, projects and"
                + " encodes and the client decodes, where `planFiles` reads a manifest's Avro blocks of many"
                + " files in a row, on both cores. The path query keeps its share small by reading all of a step's"
                + " partitions through one RocksDB iterator (not one opened, bounded and closed per"
                + " partition), by reading the values' fields it projects or compares from their bytes, and"
                + " by building each row's key and path text from its parent's. `/plan` adds Iceberg's JSON"
                + " on both sides: its REST client writes the schema's and the spec's JSON and converts the"
                + " partition type to an Avro schema for every task, and the server rebuilds a `DataFile` per"
                + " leaf to write it with Iceberg's serializer (JFR profiles in docs/benchmarks-history.md,"
                + " \"Spark's planning time\"; the Spark connector decodes plans itself).");
        if (planClientMs > planFilesMs) {
            text.append(String.format(
                    Locale.ROOT,
                    " Here `/plan`'s client alone spent %.0f ms of CPU, more than `planFiles` took in all (%.0f ms):"
                            + " no server brings stock Iceberg's `/plan` level with it.",
                    planClientMs,
                    planFilesMs));
        }
        return text.append(
                        " Left to cut: the server's share of `/plan`, by writing the answer straight from the leaves.")
                .toString();
    }

    private void measureTable(
            ExperimentRun run,
            Settings settings,
            int files,
            ResultTable latency,
            HivePeer.Started hive,
            HiveListing hiveListing)
            throws Exception {
        int restPort = ServerProcess.freePort();
        int grpcPort = ServerProcess.freePort();
        List<String> jvm = new ArrayList<>(ServerProcess.serverJvmOptions("-Xmx4g"));
        jvm.add("-Ddw.grpc.port=" + grpcPort);
        try (ServerProcess server = ServerProcess.startTreeCat(
                        ServerProcess.treecatJar(), run.directory("server-" + files), jvm, restPort, 0);
                RESTCatalog manifests = catalog(restPort, "client");
                RESTCatalog tree = catalog(restPort, "server");
                TreeCatClient native_ = TreeCatClient.connect("127.0.0.1:" + grpcPort)) {
            manifests.createNamespace(NAMESPACE);
            Table table = manifests
                    .buildTable(TABLE, SCHEMA)
                    .withPartitionSpec(SPEC)
                    .withProperty(TableProperties.FORMAT_VERSION, "2")
                    .create();
            long start = System.nanoTime();
            Path data = fill(table, files);
            run.log("%,d files loaded in %.1f s", files, (System.nanoTime() - start) / 1e9);
            String hiveTable = "events_" + files;
            if (hiveListing != null) {
                hiveListing.register(hiveTable, data, FIRST_DAY, DAYS, hive.warehouse());
            }
            settle(run, server);
            Table manifestsTable = manifests.loadTable(TABLE);
            Table treeTable = tree.loadTable(TABLE);
            ExecutorService streams = Executors.newFixedThreadPool(settings.streams());
            try {
                Map<Method, Retrieval> retrievals = new LinkedHashMap<>();
                retrievals.put(Method.PATH_QUERY, range -> pathQuery(native_, streams, settings.streams(), range));
                retrievals.put(Method.REST_PLAN, range -> planFiles(treeTable, range));
                retrievals.put(Method.PLAN_FILES, range -> planFiles(manifestsTable, range));
                if (hiveListing != null) {
                    retrievals.put(
                            Method.HIVE,
                            range -> hiveListing.files(
                                    hiveTable,
                                    FIRST_DAY.plusDays(DAYS - range),
                                    FIRST_DAY.plusDays(DAYS - 1),
                                    streams,
                                    settings.streams()));
                }
                // The JIT of both sides first: a few rounds per range are too few to warm the narrow ranges' code
                // paths, or the whole table's (a warm path query on it took 115 ms where 2 rounds left it at 190;
                // with 10 whole-table calls the fresh server of the 10,000-file table still took 53 ms for what
                // it answers in 28 warm, and 40 calls bring every method there).
                for (int call = 0; call < WARMUP_CALLS; call++) {
                    for (Retrieval retrieval : retrievals.values()) {
                        retrieval.files(settings.ranges().get(0));
                    }
                }
                for (int call = 0; call < WIDE_WARMUP_CALLS; call++) {
                    for (Retrieval retrieval : retrievals.values()) {
                        retrieval.files(settings.ranges().get(settings.ranges().size() - 1));
                    }
                }
                Method[] methods = retrievals.keySet().toArray(new Method[0]);
                for (int range : settings.ranges()) {
                    Map<Method, long[]> times = new LinkedHashMap<>();
                    Map<Method, long[]> serverCpu = new HashMap<>();
                    Map<Method, long[]> clientCpu = new HashMap<>();
                    Map<Method, Integer> found = new HashMap<>();
                    for (int round = -settings.warmupRounds(); round < settings.rounds(); round++) {
                        for (int m = 0; m < methods.length; m++) {
                            // A different method first in each round: none always runs after another's garbage.
                            Method method = methods[Math.floorMod(round + m, methods.length)];
                            // The server of the method: Hive's process for Hive, TreeCat's for the others.
                            ServerProcess measured = method == Method.HIVE ? hive.server() : server;
                            long serverBefore = measured.cpuNanos();
                            long clientBefore = CLIENT.getProcessCpuTime();
                            long t0 = System.nanoTime();
                            int count = retrievals.get(method).files(range);
                            long elapsed = System.nanoTime() - t0;
                            found.put(method, count);
                            if (round >= 0) {
                                times.computeIfAbsent(method, ignored -> new long[settings.rounds()])[round] = elapsed;
                                serverCpu.computeIfAbsent(method, ignored -> new long[1])[0] +=
                                        measured.cpuNanos() - serverBefore;
                                clientCpu.computeIfAbsent(method, ignored -> new long[1])[0] +=
                                        CLIENT.getProcessCpuTime() - clientBefore;
                            }
                        }
                    }
                    if (found.values().stream().distinct().count() != 1) {
                        throw new IllegalStateException(
                                "The methods found different files for " + range + " days of " + files + ": " + found);
                    }
                    times.forEach((method, nanos) -> {
                        long[] sorted = nanos.clone();
                        java.util.Arrays.sort(sorted);
                        latency.add(
                                files,
                                range,
                                method.label,
                                found.get(method),
                                sorted[sorted.length / 2] / 1e6,
                                sorted[0] / 1e6,
                                serverCpu.get(method)[0] / 1e6 / settings.rounds(),
                                clientCpu.get(method)[0] / 1e6 / settings.rounds());
                    });
                    run.log("%,d files, %d days: %s", files, range, describe(times));
                }
            } finally {
                streams.shutdownNow();
            }
        }
    }

    /**
     * Waits until the server is idle after the load (RocksDB's compactions, the JIT's compiler threads), so that its
     * CPU time during a call is the call's: less than 5 % of a core over a second, for at most a minute.
     */
    private static void settle(ExperimentRun run, ServerProcess server) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            long before = server.cpuNanos();
            Thread.sleep(1000);
            long used = server.cpuNanos() - before;
            if (used < 50_000_000L) {
                return;
            }
        }
        run.log("the server was still busy a minute after the load; its CPU figures include that work");
    }

    private static RESTCatalog catalog(int port, String planning) {
        RESTCatalog catalog = new RESTCatalog();
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "http://127.0.0.1:" + port);
        properties.put(RESTCatalogProperties.SCAN_PLANNING_MODE, planning);
        properties.put(CatalogProperties.CACHE_ENABLED, "false");
        // The warehouse is the server's local directory; Iceberg's default, ResolvingFileIO, needs Hadoop.
        properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        catalog.initialize("retrieval-" + planning, properties);
        return catalog;
    }

    /** The files of the last {@code range} days, by Iceberg's scan of {@code table}. */
    private static int planFiles(Table table, int range) throws Exception {
        int count = 0;
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().filter(filter(range)).planFiles()) {
            for (FileScanTask task : tasks) {
                if (task.file() != null) {
                    count++;
                }
            }
        }
        return count;
    }

    /** The same files by native path queries, the day range cut into {@code streams} parallel queries. */
    private static int pathQuery(TreeCatClient client, ExecutorService executor, int streams, int range)
            throws Exception {
        long first = FIRST_DAY.plusDays(DAYS - range).toEpochDay();
        long last = FIRST_DAY.plusDays(DAYS - 1).toEpochDay();
        int parts = (int) Math.min(streams, last - first + 1);
        List<Future<Integer>> counts = new ArrayList<>();
        long width = (last - first + 1 + parts - 1) / parts;
        for (int part = 0; part < parts; part++) {
            long from = first + part * width;
            long until = Math.min(last, from + width - 1);
            String query = "/[obj_id='" + CATALOG + "']/[obj_id='db']/[obj_id='events']/[part_val.day >= " + from
                    + " and part_val.day <= " + until + "]/*";
            counts.add(executor.submit(() -> {
                int count = 0;
                try (QueryResults results = client.query(
                        QuerySpec.of(query).withResults(ChildKinds.LEAVES).withProjection(PLANNED_FIELDS))) {
                    while (results.hasNext()) {
                        results.next();
                        count++;
                    }
                }
                return count;
            }));
        }
        int total = 0;
        for (Future<Integer> count : counts) {
            total += count.get();
        }
        return total;
    }

    private static Expression filter(int range) {
        return Expressions.and(
                Expressions.greaterThanOrEqual(
                        "day", FIRST_DAY.plusDays(DAYS - range).toString()),
                Expressions.lessThanOrEqual("day", FIRST_DAY.plusDays(DAYS - 1).toString()));
    }

    /**
     * Time-ordered appends: each commit holds consecutive days' files, every day files/365 of them. Each file is also
     * made, empty, in its day's directory under the table's data directory (returned), for the Hive method to list.
     */
    private static Path fill(Table table, int files) throws IOException {
        Random random = new Random(files);
        int perCommit = files / APPENDS;
        int written = 0;
        for (int commit = 0; commit < APPENDS; commit++) {
            AppendFiles append = table.newAppend();
            for (int i = 0; i < perCommit; i++) {
                int day = (int) ((long) written * DAYS / files);
                DataFile file = file(table, random, day, written++);
                Path path = Path.of(URI.create(file.path().toString()));
                Files.createDirectories(path.getParent());
                Files.createFile(path);
                append.appendFile(file);
            }
            append.commit();
        }
        return Path.of(URI.create(table.location())).resolve("data");
    }

    private static DataFile file(Table table, Random random, int day, int number) {
        PartitionData partition = new PartitionData(SPEC.partitionType());
        int epochDay = (int) FIRST_DAY.plusDays(day).toEpochDay();
        partition.set(0, epochDay);
        partition.set(1, random.nextInt(16));
        long records = 1000 + random.nextInt(100_000);
        long minId = random.nextInt(1_000_000);
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        lower.put(1, Conversions.toByteBuffer(Types.LongType.get(), minId));
        upper.put(1, Conversions.toByteBuffer(Types.LongType.get(), minId + random.nextInt(100_000)));
        lower.put(2, Conversions.toByteBuffer(Types.DateType.get(), epochDay));
        upper.put(2, Conversions.toByteBuffer(Types.DateType.get(), epochDay));
        lower.put(3, Conversions.toByteBuffer(Types.StringType.get(), "a" + random.nextInt(100)));
        upper.put(3, Conversions.toByteBuffer(Types.StringType.get(), "z" + random.nextInt(100)));
        lower.put(4, Conversions.toByteBuffer(Types.DoubleType.get(), random.nextDouble()));
        upper.put(4, Conversions.toByteBuffer(Types.DoubleType.get(), 100 + random.nextDouble()));
        Map<Integer, Long> counts = Map.of(1, records, 2, records, 3, records, 4, records);
        Map<Integer, Long> nulls = Map.of(1, 0L, 2, 0L, 3, 0L, 4, 0L);
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + FIRST_DAY.plusDays(day) + "/part-" + number + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withPartition(partition)
                .withRecordCount(records)
                .withFileSizeInBytes(records * 40)
                .withMetrics(new Metrics(records, null, counts, nulls, Map.of(4, 0L), lower, upper))
                .build();
    }

    private static String describe(Map<Method, long[]> times) {
        List<String> parts = new ArrayList<>();
        times.forEach((method, nanos) -> {
            long[] sorted = nanos.clone();
            java.util.Arrays.sort(sorted);
            parts.add(String.format(Locale.ROOT, "%s %.1f ms", method.label, sorted[sorted.length / 2] / 1e6));
        });
        return String.join(", ", parts);
    }

    /** At the largest table: the narrowest and the widest range, each TreeCat method against planFiles. */
    private static String finding(ResultTable latency, int files, int narrowest, int widest) {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "at %,d files,", files));
        for (int range : List.of(narrowest, widest)) {
            Map<String, Double> medians = new HashMap<>();
            for (List<Object> row : latency.rows()) {
                if (((Number) row.get(0)).intValue() == files && ((Number) row.get(1)).intValue() == range) {
                    medians.put((String) row.get(2), ((Number) row.get(4)).doubleValue());
                }
            }
            double manifests = medians.get(Method.PLAN_FILES.label);
            text.append(String.format(
                    Locale.ROOT,
                    " %d day(s): the path query takes %.2f× and REST /plan %.2f× the time of Iceberg's planFiles (%.0f ms)",
                    range,
                    medians.get(Method.PATH_QUERY.label) / manifests,
                    medians.get(Method.REST_PLAN.label) / manifests,
                    manifests));
            Double hive = medians.get(Method.HIVE.label);
            if (hive != null) {
                text.append(String.format(
                        Locale.ROOT,
                        ", the path query %.2f× Hive's filter and listing (%.0f ms)",
                        medians.get(Method.PATH_QUERY.label) / hive,
                        hive));
            }
            text.append(';');
        }
        text.setLength(text.length() - 1);
        return text.append(" (below 1: TreeCat is faster).").toString();
    }

    /** Each TreeCat method's median over planFiles', cell by cell: below 1 TreeCat is faster. */
    private static String ratios(ResultTable latency) {
        Map<String, Double> manifests = new HashMap<>();
        for (List<Object> row : latency.rows()) {
            if (Method.PLAN_FILES.label.equals(row.get(2))) {
                manifests.put(row.get(0) + "/" + row.get(1), ((Number) row.get(4)).doubleValue());
            }
        }
        StringBuilder text = new StringBuilder(
                "TreeCat's time over Iceberg's `planFiles` in the same cell (below 1: TreeCat is faster):");
        for (List<Object> row : latency.rows()) {
            if (Method.PLAN_FILES.label.equals(row.get(2))) {
                continue;
            }
            double ratio = ((Number) row.get(4)).doubleValue() / manifests.get(row.get(0) + "/" + row.get(1));
            text.append(String.format(
                    Locale.ROOT,
                    "%n- %,d files, %d days, %s: %.2f×%s",
                    ((Number) row.get(0)).intValue(),
                    ((Number) row.get(1)).intValue(),
                    row.get(2),
                    ratio,
                    ratio > 1 ? " (**slower**)" : ""));
        }
        List<Object> last = latency.rows().get(latency.rows().size() - 1);
        text.append(String.format(
                Locale.ROOT,
                "%n%nWhere the work is done at %,d files, %d days (CPU per call, server + client):",
                ((Number) last.get(0)).intValue(),
                ((Number) last.get(1)).intValue()));
        for (List<Object> row : latency.rows()) {
            if (row.get(0).equals(last.get(0)) && row.get(1).equals(last.get(1))) {
                text.append(String.format(
                        Locale.ROOT,
                        " %s %.0f + %.0f ms;",
                        row.get(2),
                        ((Number) row.get(6)).doubleValue(),
                        ((Number) row.get(7)).doubleValue()));
            }
        }
        text.setLength(text.length() - 1);
        return text.append('.').toString();
    }
}
