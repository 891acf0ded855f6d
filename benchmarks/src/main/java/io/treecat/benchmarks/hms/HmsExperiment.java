package io.treecat.benchmarks.hms;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.ServerProcess;
import io.treecat.benchmarks.peers.HivePeer;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Percentiles;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * TreeCat's Hive Metastore Thrift server against a real Apache Hive standalone metastore 4.0.1 on embedded Derby
 * ({@link HivePeer}): the same client, the same calls, the same run. Both servers run in their own JVMs with the
 * same options; the driver talks to both over loopback with Hive's generated {@code ThriftHiveMetastore.Client}
 * (binary protocol, unframed), one connection each. Every measurement interleaves the servers in rounds, the one
 * that goes first alternating, so that this machine's drift hits both alike. Answers are checked (row counts and
 * every returned partition's values); a server that answers wrongly, or not at all, is reported so and no longer
 * timed.
 *
 * <p>Operations: {@code add_partitions} in batches up to each table size, {@code get_table_req} (Hive 4 removed
 * {@code get_table} from Thrift), and {@code get_partitions_by_filter} at each size with a narrow (one partition), a
 * one-day and a wide (a tenth of the days) filter.
 */
public final class HmsExperiment implements Experiment {
    private static final String TREECAT = "TreeCat";
    private static final String HIVE = "Hive 4.0.1";

    /**
     * @param sizes partitions in the table, loaded one after another (the table grows)
     * @param batch partitions per {@code add_partitions} call
     */
    public record Settings(List<Integer> sizes, int batch, int rounds, int tableCalls, int filterCalls, int wideCalls) {
        public Settings {
            sizes = ImmutableList.copyOf(sizes);
            if (sizes.isEmpty()
                    || batch < 1
                    || rounds < 1
                    || tableCalls < rounds
                    || filterCalls < rounds
                    || wideCalls < rounds) {
                throw new IllegalArgumentException("Give sizes, a batch, rounds and at least a call per round");
            }
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(List.of(10_000), List.of(10_000, 100_000), List.of(10_000, 100_000)),
                    100,
                    preset.pick(5, 10, 10),
                    preset.pick(1_000, 3_000, 3_000),
                    preset.pick(100, 300, 300),
                    preset.pick(10, 20, 20));
        }
    }

    private final Settings fixed;

    public HmsExperiment() {
        this.fixed = null;
    }

    public HmsExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "hms";
    }

    @Override
    public String title() {
        return "Hive Metastore: TreeCat's Thrift server against Hive 4.0.1";
    }

    @Override
    public String description() {
        return "TreeCat's Hive Metastore Thrift endpoint (the packaged server) against a real Apache Hive standalone"
                + " metastore 4.0.1 on embedded Derby, each in its own JVM with the same options, on loopback. One"
                + " external table partitioned by `day` (1,000 days) and `bucket` is filled with `add_partitions`"
                + " batches, the servers taking turns batch by batch, then read: `get_table_req`, and"
                + " `get_partitions_by_filter` with a narrow filter (one partition), one day, and a wide one (a tenth"
                + " of the days). The client is Hive's own generated Thrift client, one connection per server; calls"
                + " alternate between the servers in rounds, the one that goes first alternating. Every answer is"
                + " checked. Times are client wall times; the server's CPU time per call (user + system of its"
                + " process, background threads included) is steadier on a loaded machine.";
    }

    /** One server under test: its process, client connection and table location. */
    private static final class Target implements AutoCloseable {
        final String name;
        final ServerProcess server;
        final TSocket socket;
        final ThriftHiveMetastore.Client client;
        final String warehouse;
        String partitionsUnavailable;

        Target(String name, ServerProcess server, Path warehouse) throws TTransportException {
            this.name = name;
            this.server = server;
            this.warehouse = warehouse.toUri().toString().replaceAll("/$", "");
            // Wide filters at 100,000 partitions take seconds on Hive; a measured call never times out.
            this.socket = new TSocket("127.0.0.1", server.port(), 600_000);
            socket.open();
            this.client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
        }

        String tableLocation() {
            return warehouse + "/" + HmsWorkload.DATABASE + ".db/" + HmsWorkload.TABLE;
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /** Latencies of one operation on one server, or why it was not measured. */
    private static final class Series {
        final List<Long> nanos = new ArrayList<>();
        final List<Double> roundMedians = new ArrayList<>();
        long cpuNanos;
        String failure;

        double cpuMillisPerCall() {
            return nanos.isEmpty() ? Double.NaN : cpuNanos / 1e6 / nanos.size();
        }

        /** NaN when nothing was measured, so that a failed server shows no figure rather than 0. */
        double percentile(double p) {
            return nanos.isEmpty()
                    ? Double.NaN
                    : Percentiles.millis(
                            nanos.stream().mapToLong(Long::longValue).toArray(), p);
        }

        double seconds() {
            return nanos.stream().mapToLong(Long::longValue).sum() / 1e9;
        }
    }

    /** A timed call; returns how many rows (partitions) it got, checked by the call itself. */
    @FunctionalInterface
    private interface Call {
        int run(Target target, int index) throws TException;
    }

    /** A wrong result: the server is reported as wrong for this operation and not timed further. */
    private static final class WrongAnswer extends RuntimeException {
        WrongAnswer(String message) {
            super(message);
        }
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        HivePeer.unavailable().ifPresent(reason -> {
            throw new IllegalStateException(reason);
        });
        ResultTable latency = run.table(
                "latency",
                "Latency by operation and table size",
                "operation",
                "partitions in table",
                "rows per call",
                "server",
                "calls",
                "p50 ms",
                "p99 ms",
                "server CPU ms per call",
                "failure");
        ResultTable ratios = run.table(
                "ratios",
                "TreeCat over Hive, same operation and size (below 1: TreeCat is faster or cheaper)",
                "operation",
                "partitions in table",
                "p50 ratio",
                "p99 ratio",
                "server CPU ratio",
                "round ratios min",
                "round ratios median",
                "round ratios max");
        ResultTable loading = run.table(
                "loading",
                "add_partitions: partitions per second of summed call time, by server",
                "partitions in table",
                "server",
                "partitions per s");
        List<String> jvm = ServerProcess.serverJvmOptions("-Xmx2g");
        HivePeer.Started hive = HivePeer.start(run.directory("hive"), jvm);
        run.log(
                "Hive 4.0.1: schema made in %.1f s, server up in %.1f s",
                hive.schemaMillis() / 1000.0, hive.server().startedMillis() / 1000.0);
        Path treecatHome = run.directory("treecat");
        try (ServerProcess hiveServer = hive.server();
                ServerProcess treecat = ServerProcess.startTreeCat(
                        ServerProcess.treecatJar(), treecatHome, jvm, 0, ServerProcess.freePort());
                Target treecatTarget = new Target(TREECAT, treecat, treecatHome.resolve("warehouse"));
                Target hiveTarget = new Target(HIVE, hiveServer, hive.warehouse())) {
            Measurements measurements =
                    new Measurements(run, settings, List.of(treecatTarget, hiveTarget), latency, ratios);
            for (Target target : measurements.targets) {
                target.client.create_database(
                        HmsWorkload.database(target.warehouse + "/" + HmsWorkload.DATABASE + ".db"));
                target.client.create_table(HmsWorkload.table(target.tableLocation()));
            }
            int loaded = 0;
            for (int size : settings.sizes()) {
                measurements.load(loaded, size, loading);
                loaded = size;
                measurements.filters(size);
                measurements.getTable(size);
            }
        }
        int largest = settings.sizes().get(settings.sizes().size() - 1);
        ResultTable atLargest = run.table(
                "at-largest",
                String.format(Locale.ROOT, "p50 by operation at %,d partitions", largest),
                "operation",
                "server",
                "p50 ms");
        for (List<Object> row : latency.rows()) {
            if (((Number) row.get(1)).intValue() == largest && row.get(8).equals("")) {
                atLargest.add(row.get(0), row.get(3), row.get(5));
            }
        }
        run.bars(
                "p50",
                String.format(Locale.ROOT, "Median latency at %,d partitions", largest),
                atLargest,
                "operation",
                "p50 ms",
                "server");
        run.bars(
                "loading",
                "add_partitions rate, by the table's size after the batches",
                loading,
                "partitions in table",
                "partitions per s",
                "server");
        run.finding(finding(ratios, loading, largest));
    }

    /** The measuring loop over both servers, and the tables it fills. */
    private static final class Measurements {
        final ExperimentRun run;
        final Settings settings;
        final List<Target> targets;
        final ResultTable latency;
        final ResultTable ratios;

        Measurements(
                ExperimentRun run, Settings settings, List<Target> targets, ResultTable latency, ResultTable ratios) {
            this.run = run;
            this.settings = settings;
            this.targets = targets;
            this.latency = latency;
            this.ratios = ratios;
        }

        void getTable(int partitions) {
            measure("get_table_req", partitions, 1, settings.tableCalls(), (target, index) -> {
                GetTableRequest request = new GetTableRequest(HmsWorkload.DATABASE, HmsWorkload.TABLE);
                request.setCatName("hive");
                if (target.client.get_table_req(request).getTable() == null) {
                    throw new WrongAnswer("get_table_req returned no table");
                }
                return 1;
            });
        }

        void filters(int size) {
            filter("narrow (1 partition)", size, settings.filterCalls(), i -> HmsWorkload.narrow(i, size));
            filter("1 day", size, settings.filterCalls(), i -> HmsWorkload.day(i, size));
            filter(
                    "wide (" + HmsWorkload.WIDE_DAYS + " days)",
                    size,
                    settings.wideCalls(),
                    i -> HmsWorkload.wide(i, size));
        }

        private void filter(String operation, int size, int calls, IntFunction<HmsWorkload.Filter> filters) {
            measure(
                    "get_partitions_by_filter, " + operation,
                    size,
                    filters.apply(0).expected(),
                    calls,
                    (target, index) -> {
                        HmsWorkload.Filter filter = filters.apply(index);
                        List<Partition> found = target.client.get_partitions_by_filter(
                                HmsWorkload.DATABASE, HmsWorkload.TABLE, filter.text(), (short) -1);
                        for (Partition partition : found) {
                            if (!filter.matches().test(partition.getValues())) {
                                throw new WrongAnswer(
                                        "filter " + filter.text() + " returned partition " + partition.getValues());
                            }
                        }
                        if (found.size() != filter.expected()) {
                            throw new WrongAnswer("filter " + filter.text() + " returned " + found.size()
                                    + " partitions, expected " + filter.expected());
                        }
                        return found.size();
                    });
        }

        /**
         * A fifth of the calls as warm-up on each server, then {@code rounds} rounds of {@code calls / rounds} calls on
         * each, the server going first alternating by round. Call {@code i} is the same request on both.
         */
        private void measure(String operation, int partitions, int rows, int calls, Call call) {
            Map<String, Series> series = new LinkedHashMap<>();
            for (Target target : targets) {
                Series s = new Series();
                s.failure = target.partitionsUnavailable;
                series.put(target.name, s);
            }
            int warmup = Math.max(5, calls / 5);
            for (Target target : targets) {
                for (int i = 0; i < warmup && series.get(target.name).failure == null; i++) {
                    timed(target, series.get(target.name), call, 1_000_000 + i, false);
                }
            }
            int perRound = Math.max(1, calls / settings.rounds());
            for (int round = 0; round < settings.rounds(); round++) {
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
                        s.roundMedians.add(Percentiles.millis(
                                s.nanos.subList(before, s.nanos.size()).stream()
                                        .mapToLong(Long::longValue)
                                        .toArray(),
                                50));
                    }
                }
            }
            record(operation, partitions, rows, series);
        }

        /** add_partitions in batches from {@code from} to {@code to} partitions, the servers alternating by batch. */
        void load(int from, int to, ResultTable loading) {
            List<int[]> keys = HmsWorkload.keys(from, to);
            Map<String, Series> series = new LinkedHashMap<>();
            for (Target target : targets) {
                Series s = new Series();
                s.failure = target.partitionsUnavailable;
                series.put(target.name, s);
            }
            int batches = (keys.size() + settings.batch() - 1) / settings.batch();
            for (int b = 0; b < batches; b++) {
                List<int[]> slice =
                        keys.subList(b * settings.batch(), Math.min(keys.size(), (b + 1) * settings.batch()));
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
                        target.partitionsUnavailable = "add_partitions: " + s.failure;
                    }
                }
                if ((b + 1) % Math.max(1, batches / 4) == 0) {
                    run.log("add_partitions: batch %d of %d", b + 1, batches);
                }
            }
            record(
                    String.format(Locale.ROOT, "add_partitions (%d per call)", settings.batch()),
                    to,
                    settings.batch(),
                    series);
            series.forEach((server, s) -> loading.add(
                    to, server, s.failure != null ? Double.NaN : s.nanos.size() * settings.batch() / s.seconds()));
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
                series.failure = e.getType() == TApplicationException.UNKNOWN_METHOD
                        ? "not served (UNKNOWN_METHOD)"
                        : "error: " + e;
            } catch (TException | RuntimeException e) {
                series.failure = "error: " + e;
            }
            if (series.failure != null) {
                run.log("%s: %s", target.name, series.failure);
            }
        }

        private void record(String operation, int partitions, int rows, Map<String, Series> series) {
            StringBuilder line = new StringBuilder();
            series.forEach((server, s) -> {
                latency.add(
                        operation,
                        partitions,
                        rows,
                        server,
                        s.nanos.size(),
                        s.percentile(50),
                        s.percentile(99),
                        s.cpuMillisPerCall(),
                        s.failure == null ? "" : s.failure);
                line.append(String.format(
                        Locale.ROOT,
                        " %s p50 %.3f ms, CPU %.3f ms/call;",
                        server,
                        s.percentile(50),
                        s.cpuMillisPerCall()));
            });
            run.log("%s at %,d partitions:%s", operation, partitions, line);
            Series treecat = series.get(TREECAT);
            Series hive = series.get(HIVE);
            if (treecat.failure != null || hive.failure != null || treecat.nanos.isEmpty() || hive.nanos.isEmpty()) {
                return;
            }
            int n = Math.min(treecat.roundMedians.size(), hive.roundMedians.size());
            double[] rounds = new double[n];
            for (int i = 0; i < n; i++) {
                rounds[i] = treecat.roundMedians.get(i) / hive.roundMedians.get(i);
            }
            Arrays.sort(rounds);
            ratios.add(
                    operation,
                    partitions,
                    treecat.percentile(50) / hive.percentile(50),
                    treecat.percentile(99) / hive.percentile(99),
                    treecat.cpuMillisPerCall() / hive.cpuMillisPerCall(),
                    n == 0 ? Double.NaN : rounds[0],
                    n == 0 ? Double.NaN : rounds[n / 2],
                    n == 0 ? Double.NaN : rounds[n - 1]);
        }
    }

    /** Every operation's p50 ratio at the largest size, and the loading rates. */
    private static String finding(ResultTable ratios, ResultTable loading, int largest) {
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "at %,d partitions, TreeCat's p50 over Hive 4.0.1's (below 1: TreeCat is faster):",
                largest));
        for (List<Object> row : ratios.rows()) {
            if (((Number) row.get(1)).intValue() == largest) {
                double ratio = ((Number) row.get(2)).doubleValue();
                text.append(String.format(
                        Locale.ROOT, " %s %.2f×%s;", row.get(0), ratio, ratio > 1 ? " (**slower**)" : ""));
            }
        }
        Map<String, Double> rates = new LinkedHashMap<>();
        for (List<Object> row : loading.rows()) {
            rates.put((String) row.get(1), ((Number) row.get(2)).doubleValue());
        }
        text.append(String.format(
                Locale.ROOT,
                " loading the last batches: TreeCat %,.0f partitions/s, Hive %,.0f/s.",
                rates.getOrDefault(TREECAT, Double.NaN),
                rates.getOrDefault(HIVE, Double.NaN)));
        return text.toString();
    }
}
