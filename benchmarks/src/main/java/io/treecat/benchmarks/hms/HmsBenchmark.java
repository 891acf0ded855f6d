package io.treecat.benchmarks.hms;

import io.treecat.benchmarks.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * TreeCat's HMS Thrift server against a real Apache Hive standalone metastore 4.0.1 (embedded
 * Derby): same client, same workload, same run (issue 6, "Benchmark"; docs/benchmarks-history.md, "Hive
 * Metastore").
 *
 * <p>Both servers run in their own JVMs with the same options ({@code --server-jvm}, default
 * {@code -Xmx2g}), started here: TreeCat as the packaged server ({@code ServerProcess.startTreeCat},
 * {@code -Dtreecat.server.jar}, default {@code catalog-server/target/treecat-server.jar}); the driver talks to both over loopback with Hive's generated
 * {@code ThriftHiveMetastore.Client} (binary protocol, unframed), one connection each. Every
 * measurement interleaves the servers: rounds of calls, the server that goes first alternating, so
 * drift on this shared machine hits both alike; the spread of the per-round medians says how noisy
 * the run was. Results are checked (row counts and the values of every returned partition) outside
 * the timed section; a server that answers wrongly is reported as such and no longer timed.
 *
 * <p>Operations: {@code get_table_req} (Hive 4 removed {@code get_table} from Thrift),
 * {@code add_partitions} in batches up to each size, and {@code get_partitions_by_filter} at each
 * size with a narrow (1 partition), one-day and wide (a tenth of the table) filter. A call a server
 * does not serve ({@code UNKNOWN_METHOD}) is reported as not served, and the operations that need it
 * are skipped for that server.
 *
 * <p>Usage (from the repository root; see the doc for the defaults):
 * {@code HmsBenchmark [--sizes 10000,100000] [--batch 100] [--rounds 10] [--table-calls 3000]
 * [--filter-calls 300] [--wide-calls 20] [--server-jvm "-Xmx2g"] [--dir DIR] [--peer-home DIR]}
 */
public final class HmsBenchmark {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final Options options;
    private final List<Target> targets = new ArrayList<>();
    private final List<Result> results = new ArrayList<>();

    private HmsBenchmark(Options options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        new HmsBenchmark(options).run();
    }

    /** One server under test: its process, client connection and table location. */
    private static final class Target {
        final String name;
        final ServerProcess server;
        final TSocket socket;
        final ThriftHiveMetastore.Client client;
        final String warehouse;
        int partitions;
        String partitionsUnavailable;

        Target(String name, ServerProcess server, String warehouse) throws TTransportException {
            this.name = name;
            this.server = server;
            this.warehouse = warehouse;
            // Wide filters at 100,000 partitions take seconds on Hive; never time out a measured call.
            this.socket = new TSocket("127.0.0.1", server.port(), 600_000);
            socket.open();
            this.client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
        }

        String tableLocation() {
            return warehouse + "/" + HmsWorkload.DATABASE + ".db/" + HmsWorkload.TABLE;
        }
    }

    /** Latencies of one operation on one server, or why it was not measured. */
    private static final class Series {
        final List<Long> nanos = new ArrayList<>();
        final List<Double> roundMedians = new ArrayList<>();
        long cpuNanos;
        String failure;

        /** The server's CPU time per measured call, in ms. */
        double cpuMillisPerCall() {
            return nanos.isEmpty() ? Double.NaN : cpuNanos / (double) nanos.size() / NANOS_PER_MILLI;
        }

        double percentile(double p) {
            long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
            return percentile(sorted, p);
        }

        static double percentile(long[] sorted, double p) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p / 100.0 * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / (double) NANOS_PER_MILLI;
        }

        double totalMillis() {
            return nanos.stream().mapToLong(Long::longValue).sum() / (double) NANOS_PER_MILLI;
        }
    }

    private record Result(String operation, int partitions, int rows, Map<String, Series> series, String loadAverage) {}

    /** A timed call; returns how many rows (partitions) it got, checked by the caller. */
    @FunctionalInterface
    private interface Call {
        int run(Target target, int index) throws TException;
    }

    private void run() throws Exception {
        Path runDirectory = (options.directory != null
                        ? Files.createDirectories(options.directory)
                        : Files.createTempDirectory("treecat-hms-bench"))
                .toAbsolutePath();
        System.out.printf(
                Locale.ROOT,
                "# HMS benchmark: run directory %s, %d cores, load average %s%n",
                runDirectory,
                Runtime.getRuntime().availableProcessors(),
                loadAverage());
        System.out.printf(
                Locale.ROOT,
                "# server JVM options %s; sizes %s; batch %d; rounds %d%n",
                options.serverJvm,
                Arrays.toString(options.sizes),
                options.batch,
                options.rounds);

        long[] schemaMillis = new long[1];
        ServerProcess hive = Servers.startHive(options.peerHome, runDirectory, options.serverJvm, schemaMillis);
        System.out.printf(
                Locale.ROOT,
                "# Hive 4.0.1: schema initialised in %.1f s (MetastoreSchemaTool), server up in %.1f s, port %d, pid %d%n",
                schemaMillis[0] / 1000.0,
                hive.startedMillis() / 1000.0,
                hive.port(),
                hive.pid());
        ServerProcess treecat = Servers.startTreeCat(runDirectory, options.serverJvm);
        System.out.printf(
                Locale.ROOT,
                "# TreeCat: server up in %.1f s, port %d, pid %d%n",
                treecat.startedMillis() / 1000.0,
                treecat.port(),
                treecat.pid());
        try {
            targets.add(new Target(
                    "TreeCat",
                    treecat,
                    runDirectory.resolve("treecat/warehouse").toUri().toString().replaceAll("/$", "")));
            targets.add(new Target(
                    "Hive",
                    hive,
                    runDirectory.resolve("hive/warehouse").toUri().toString().replaceAll("/$", "")));
            for (Target target : targets) {
                target.client.create_database(
                        HmsWorkload.database(target.warehouse + "/" + HmsWorkload.DATABASE + ".db"));
                target.client.create_table(HmsWorkload.table(target.tableLocation()));
            }
            measureGetTable(0);
            int loaded = 0;
            for (int size : options.sizes) {
                if (size == 0) {
                    continue; // --sizes 0: get_table_req only
                }
                load(loaded, size);
                loaded = size;
                measureFilters(size);
                measureGetTable(size);
            }
            report();
        } finally {
            for (Target target : targets) {
                target.socket.close();
            }
            treecat.close();
            hive.close();
        }
    }

    private void measureGetTable(int partitions) {
        Call call = (target, index) -> {
            GetTableRequest request = new GetTableRequest(HmsWorkload.DATABASE, HmsWorkload.TABLE);
            request.setCatName("hive");
            return target.client.get_table_req(request).getTable() == null ? 0 : 1;
        };
        int calls = options.tableCalls;
        results.add(measure("get_table_req", partitions, 1, calls / 3, calls, call, false));
    }

    /** Measures the narrow, one-day and wide filter at the current size, interleaved. */
    private void measureFilters(int size) {
        measureFilter(
                "get_partitions_by_filter, narrow (1 partition)",
                size,
                options.filterCalls,
                index -> HmsWorkload.narrow(index, size));
        measureFilter(
                "get_partitions_by_filter, 1 day", size, options.filterCalls, index -> HmsWorkload.day(index, size));
        measureFilter(
                "get_partitions_by_filter, wide (" + HmsWorkload.WIDE_DAYS + " days, 10 %)",
                size,
                options.wideCalls,
                index -> HmsWorkload.wide(index, size));
    }

    private void measureFilter(
            String operation, int size, int calls, java.util.function.IntFunction<HmsWorkload.Filter> filters) {
        Call call = (target, index) -> {
            HmsWorkload.Filter filter = filters.apply(index);
            List<Partition> found = target.client.get_partitions_by_filter(
                    HmsWorkload.DATABASE, HmsWorkload.TABLE, filter.text(), (short) -1);
            for (Partition partition : found) {
                if (!filter.matches().test(partition.getValues())) {
                    throw new WrongAnswer("filter " + filter.text() + " returned partition " + partition.getValues());
                }
            }
            if (found.size() != filter.expected()) {
                throw new WrongAnswer("filter " + filter.text() + " returned " + found.size() + " partitions, expected "
                        + filter.expected());
            }
            return found.size();
        };
        results.add(measure(operation, size, filters.apply(0).expected(), Math.max(5, calls / 5), calls, call, true));
    }

    /** A wrong result: the server is reported as wrong for this operation and not timed further. */
    private static final class WrongAnswer extends RuntimeException {
        WrongAnswer(String message) {
            super(message);
        }
    }

    /**
     * Warm-up calls on each server, then {@code options.rounds} rounds of {@code calls / rounds} calls
     * on each, the server going first alternating by round. Call {@code i} is the same request on both.
     */
    private Result measure(
            String operation, int partitions, int rows, int warmup, int calls, Call call, boolean needsPartitions) {
        Map<String, Series> series = new LinkedHashMap<>();
        for (Target target : targets) {
            Series s = new Series();
            if (needsPartitions && target.partitionsUnavailable != null) {
                s.failure = target.partitionsUnavailable;
            }
            series.put(target.name, s);
        }
        System.out.printf(
                Locale.ROOT,
                "# %s at %,d partitions: %d warm-up + %d calls per server, load %s%n",
                operation,
                partitions,
                warmup,
                calls,
                loadAverage());
        for (Target target : targets) {
            for (int i = 0; i < warmup && series.get(target.name).failure == null; i++) {
                timed(target, series.get(target.name), call, 1_000_000 + i, false);
            }
        }
        int perRound = Math.max(1, calls / options.rounds);
        for (int round = 0; round < options.rounds; round++) {
            for (int k = 0; k < targets.size(); k++) {
                Target target = targets.get((round + k) % targets.size());
                Series s = series.get(target.name);
                int before = s.nanos.size();
                long cpuBefore = target.server.cpuNanos();
                for (int j = 0; j < perRound && s.failure == null; j++) {
                    timed(target, s, call, round * perRound + j, true);
                }
                s.cpuNanos += target.server.cpuNanos() - cpuBefore;
                if (s.nanos.size() > before) {
                    long[] sorted = s.nanos.subList(before, s.nanos.size()).stream()
                            .mapToLong(Long::longValue)
                            .sorted()
                            .toArray();
                    s.roundMedians.add(Series.percentile(sorted, 50));
                }
            }
        }
        Result result = new Result(operation, partitions, rows, series, loadAverage());
        printLine(result);
        return result;
    }

    private void timed(Target target, Series series, Call call, int index, boolean record) {
        try {
            long begin = System.nanoTime();
            call.run(target, index);
            long elapsed = System.nanoTime() - begin;
            if (record) {
                series.nanos.add(elapsed);
            }
        } catch (WrongAnswer e) {
            series.failure = "WRONG: " + e.getMessage();
        } catch (TApplicationException e) {
            series.failure =
                    e.getType() == TApplicationException.UNKNOWN_METHOD ? "not served (UNKNOWN_METHOD)" : "error: " + e;
        } catch (TException | RuntimeException e) {
            series.failure = "error: " + e;
        }
        if (series.failure != null) {
            System.out.printf(Locale.ROOT, "#   %s: %s%n", target.name, series.failure);
        }
    }

    /** add_partitions in batches from {@code from} to {@code to} partitions, the servers alternating batch by batch. */
    private void load(int from, int to) {
        List<int[]> keys = HmsWorkload.keys(from, to);
        Map<String, Series> series = new LinkedHashMap<>();
        for (Target target : targets) {
            Series s = new Series();
            s.failure = target.partitionsUnavailable;
            series.put(target.name, s);
        }
        System.out.printf(
                Locale.ROOT,
                "# add_partitions %,d → %,d in batches of %d, load %s%n",
                from,
                to,
                options.batch,
                loadAverage());
        int batches = (keys.size() + options.batch - 1) / options.batch;
        for (int b = 0; b < batches; b++) {
            List<int[]> slice = keys.subList(b * options.batch, Math.min(keys.size(), (b + 1) * options.batch));
            for (int k = 0; k < targets.size(); k++) {
                Target target = targets.get((b + k) % targets.size());
                Series s = series.get(target.name);
                if (s.failure != null) {
                    continue;
                }
                List<Partition> batch = new ArrayList<>(slice.size());
                for (int[] key : slice) {
                    batch.add(HmsWorkload.partition(target.tableLocation(), key[0], key[1]));
                }
                long cpuBefore = target.server.cpuNanos();
                timed(
                        target,
                        s,
                        (t, index) -> {
                            int added = t.client.add_partitions(batch);
                            if (added != batch.size()) {
                                throw new WrongAnswer("add_partitions added " + added + " of " + batch.size());
                            }
                            return added;
                        },
                        b,
                        true);
                s.cpuNanos += target.server.cpuNanos() - cpuBefore;
                if (s.failure != null) {
                    target.partitionsUnavailable = "add_partitions " + s.failure;
                } else {
                    target.partitions += slice.size();
                }
            }
            if ((b + 1) % Math.max(1, batches / 10) == 0) {
                StringBuilder progress = new StringBuilder();
                for (Target target : targets) {
                    Series s = series.get(target.name);
                    progress.append(String.format(
                            Locale.ROOT,
                            " %s %,d (%.0f/s)",
                            target.name,
                            target.partitions,
                            s.nanos.isEmpty()
                                    ? 0.0
                                    : (s.nanos.size() * (double) options.batch) / (s.totalMillis() / 1000.0)));
                }
                System.out.printf(
                        Locale.ROOT, "#   batch %d/%d:%s, load %s%n", b + 1, batches, progress, loadAverage());
            }
        }
        Result result = new Result(
                "add_partitions, " + options.batch + " per call (" + String.format(Locale.ROOT, "%,d → %,d", from, to)
                        + ")",
                to,
                options.batch,
                series,
                loadAverage());
        printLine(result);
        results.add(result);
    }

    private void printLine(Result result) {
        StringBuilder line = new StringBuilder("#   ");
        for (Map.Entry<String, Series> entry : result.series().entrySet()) {
            Series s = entry.getValue();
            line.append(entry.getKey()).append(": ");
            if (s.nanos.isEmpty()) {
                line.append(s.failure == null ? "no samples" : s.failure);
            } else {
                line.append(String.format(
                        Locale.ROOT,
                        "p50 %.3f ms, p99 %.3f ms, server CPU %.3f ms/call (%d)",
                        s.percentile(50),
                        s.percentile(99),
                        s.cpuMillisPerCall(),
                        s.nanos.size()));
                if (s.failure != null) {
                    line.append(" then ").append(s.failure);
                }
            }
            line.append("; ");
        }
        System.out.println(line);
    }

    private void report() {
        System.out.println();
        System.out.println(
                "| operation | partitions in table | rows per call | TreeCat p50 ms | TreeCat p99 ms | Hive p50 ms | Hive p99 ms | TreeCat ÷ Hive p50 | TreeCat ÷ Hive p99 | calls each |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (Result result : results) {
            Series treecat = result.series().get("TreeCat");
            Series hive = result.series().get("Hive");
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %s | %s | %s | %s | %s | %s | %s |%n",
                    result.operation(),
                    result.partitions(),
                    result.rows(),
                    cell(treecat, 50),
                    cell(treecat, 99),
                    cell(hive, 50),
                    cell(hive, 99),
                    ratio(treecat, hive, 50),
                    ratio(treecat, hive, 99),
                    count(treecat, hive));
        }
        System.out.println();
        System.out.println(
                "Server CPU time per call (user + system of the server process over its measured calls, background threads included;"
                        + " steadier than wall time on a loaded machine):");
        System.out.println();
        System.out.println(
                "| operation | partitions in table | TreeCat CPU ms/call | Hive CPU ms/call | TreeCat ÷ Hive |");
        System.out.println("|---|---|---|---|---|");
        for (Result result : results) {
            Series treecat = result.series().get("TreeCat");
            Series hive = result.series().get("Hive");
            double a = treecat.cpuMillisPerCall();
            double b = hive.cpuMillisPerCall();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %,d | %s | %s | %s |%n",
                    result.operation(),
                    result.partitions(),
                    Double.isNaN(a) ? "—" : String.format(Locale.ROOT, "%.3f", a),
                    Double.isNaN(b) ? "—" : String.format(Locale.ROOT, "%.3f", b),
                    Double.isNaN(a) || Double.isNaN(b) || treecat.failure != null || hive.failure != null
                            ? "—"
                            : String.format(Locale.ROOT, "%.3f", a / b));
        }
        System.out.println();
        System.out.println(
                "Noise: the per-round medians of each server (min – max over the rounds), and the ratio of the two medians round by round.");
        System.out.println();
        System.out.println(
                "| operation | partitions in table | TreeCat round p50s ms | Hive round p50s ms | round ratio min / median / max |");
        System.out.println("|---|---|---|---|---|");
        for (Result result : results) {
            Series treecat = result.series().get("TreeCat");
            Series hive = result.series().get("Hive");
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %,d | %s | %s | %s |%n",
                    result.operation(),
                    result.partitions(),
                    spread(treecat),
                    spread(hive),
                    roundRatios(treecat, hive));
        }
        System.out.println();
        System.out.println("add_partitions rate (partitions ÷ summed call time):");
        for (Result result : results) {
            if (result.operation().startsWith("add_partitions")) {
                StringBuilder line = new StringBuilder("  " + result.operation() + ":");
                for (Map.Entry<String, Series> entry : result.series().entrySet()) {
                    Series s = entry.getValue();
                    line.append(String.format(
                            Locale.ROOT,
                            " %s %s;",
                            entry.getKey(),
                            s.nanos.isEmpty()
                                    ? "—"
                                    : String.format(
                                            Locale.ROOT,
                                            "%,.0f partitions/s",
                                            s.nanos.size() * (double) options.batch / (s.totalMillis() / 1000.0))));
                }
                System.out.println(line);
            }
        }
        System.out.printf(Locale.ROOT, "%nload average at the end: %s%n", loadAverage());
    }

    private static String cell(Series s, double p) {
        if (s.nanos.isEmpty()) {
            return s.failure == null ? "—" : s.failure;
        }
        String value = String.format(Locale.ROOT, "%.3f", s.percentile(p));
        return s.failure == null ? value : value + " (then " + s.failure + ")";
    }

    private static String ratio(Series a, Series b, double p) {
        if (a.nanos.isEmpty() || b.nanos.isEmpty() || a.failure != null || b.failure != null) {
            return "—";
        }
        return String.format(Locale.ROOT, "**%.3f**", a.percentile(p) / b.percentile(p));
    }

    private static String count(Series a, Series b) {
        return a.nanos.size() == b.nanos.size()
                ? Integer.toString(a.nanos.size())
                : a.nanos.size() + " / " + b.nanos.size();
    }

    private static String spread(Series s) {
        if (s.roundMedians.isEmpty()) {
            return "—";
        }
        double min =
                s.roundMedians.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max =
                s.roundMedians.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return String.format(Locale.ROOT, "%.3f – %.3f (%.2f×)", min, max, max / min);
    }

    private static String roundRatios(Series a, Series b) {
        int n = Math.min(a.roundMedians.size(), b.roundMedians.size());
        if (n == 0) {
            return "—";
        }
        double[] ratios = new double[n];
        for (int i = 0; i < n; i++) {
            ratios[i] = a.roundMedians.get(i) / b.roundMedians.get(i);
        }
        Arrays.sort(ratios);
        return String.format(Locale.ROOT, "%.3f / %.3f / %.3f", ratios[0], ratios[n / 2], ratios[n - 1]);
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Command-line options; every one has a default that fits the 2-core machine. */
    private static final class Options {
        int[] sizes = {10_000, 100_000};
        int batch = 100;
        int rounds = 10;
        int tableCalls = 3000;
        int filterCalls = 300;
        int wideCalls = 20;
        List<String> serverJvm = List.of("-Xmx2g");
        Path directory;
        Path peerHome = Path.of(Servers.DEFAULT_PEER_HOME);

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("Missing value for " + name);
                }
                String value = args[++i];
                switch (name) {
                    case "--sizes" ->
                        options.sizes = Arrays.stream(value.split(","))
                                .mapToInt(s -> Integer.parseInt(s.trim()))
                                .sorted()
                                .toArray();
                    case "--batch" -> options.batch = Integer.parseInt(value);
                    case "--rounds" -> options.rounds = Integer.parseInt(value);
                    case "--table-calls" -> options.tableCalls = Integer.parseInt(value);
                    case "--filter-calls" -> options.filterCalls = Integer.parseInt(value);
                    case "--wide-calls" -> options.wideCalls = Integer.parseInt(value);
                    case "--server-jvm" ->
                        options.serverJvm = List.of(value.trim().split("\\s+"));
                    case "--dir" -> options.directory = Path.of(value);
                    case "--peer-home" -> options.peerHome = Path.of(value);
                    default -> throw new IllegalArgumentException("Unknown option: " + name);
                }
            }
            if (options.batch < 1 || options.rounds < 1) {
                throw new IllegalArgumentException("--batch and --rounds must be positive");
            }
            return options;
        }
    }
}
