package io.treecat.benchmarks.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.iceberg.IcebergPeers.Peer;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Percentiles;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Experiment 5, the Iceberg commit-conflict study's workload on real catalogs: open-loop Poisson arrivals of
 * transactions on one table, {@value #FAST_APPEND_PERCENT} % fast appends and the rest validated overwrites, each
 * retried by Iceberg's client on a conflict with its default policy. Per catalog and offered rate: success, latency
 * from arrival to acknowledgement, mean retries, and the highest rate sustained at 99 % success or more.
 */
public final class ConflictsExperiment implements Experiment {
    /**
     * @param rates offered transactions per second, each a fresh table for {@code secondsPerRate}
     * @param s3Latencies after the local disk, the S3 variants (Nessie among the catalogs): the fixed latency of every
     *     S3 request in each; none in {@code small}, which must stay within its 15 minutes
     */
    public record Settings(List<Double> rates, int secondsPerRate, int warmupSeconds, List<Duration> s3Latencies) {
        public Settings {
            rates = ImmutableList.copyOf(rates);
            s3Latencies = ImmutableList.copyOf(s3Latencies);
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(
                            List.of(5.0, 10.0, 20.0, 40.0),
                            List.of(5.0, 10.0, 20.0, 40.0, 80.0, 120.0),
                            List.of(2.0, 5.0, 10.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0, 160.0)),
                    preset.pick(8, 20, 60),
                    preset.pick(5, 15, 30),
                    preset.pick(List.of(), List.of(Duration.ofMillis(20)), List.of(Duration.ofMillis(20))));
        }
    }

    /** The study's 90/10 mix of light and heavy transactions (its experiment 2b). */
    static final int FAST_APPEND_PERCENT = 90;

    /**
     * Transactions in flight at most, one client thread each: past a catalog's knee arrivals outrun completions,
     * and a thread per arrival, each holding a loaded table, ran the driver out of memory at 80/s.
     */
    static final int MAX_CLIENTS = 64;

    /** An arrival still waiting for a client this long after it arrived is dropped, so that an overloaded step ends. */
    static final int MAX_QUEUE_SECONDS = 10;

    private final Settings fixed;

    public ConflictsExperiment() {
        this.fixed = null;
    }

    public ConflictsExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "conflicts";
    }

    @Override
    public String title() {
        return "Commit conflicts on one table: the conflict study's workload";
    }

    @Override
    public String description() {
        return "The workload of the Iceberg commit-conflict study on real catalogs: open-loop Poisson arrivals of"
                + " transactions on one table, " + FAST_APPEND_PERCENT + " % fast appends (load the table, append"
                + " one file to one of 28 day partitions) and the rest validated overwrites (replace the file of a"
                + " partition no append touches, validating from the loaded snapshot that no conflicting data or"
                + " deletes were committed since: Iceberg reads every manifest list committed in between). A"
                + " conflict is retried by Iceberg's client with its defaults (4 retries, 100 ms to 60 s backoff)."
                + " Each offered rate runs on a fresh table, the catalogs one after another, one client JVM; on the"
                + " local disk, and in the medium and paper presets also on S3 (S3Proxy behind a proxy adding a"
                + " fixed latency to every request, as in the inserts experiment, with Nessie). TreeCat rebases"
                + " on the server (its default) the appends that lost a race, and the overwrites that lost one"
                + " only to appends in other partitions; the others retry in the client. Latency is from arrival"
                + " to acknowledgement, retries included. At most " + MAX_CLIENTS + " transactions run at once (one"
                + " client thread each); an arrival still waiting for a client " + MAX_QUEUE_SECONDS + " s after it"
                + " arrived is dropped and counted as failed, so that a step past a catalog's knee ends.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        ResultTable steps = run.table(
                "open-loop",
                "Open-loop transactions on one table, " + FAST_APPEND_PERCENT + " % fast appends",
                "store",
                "catalog",
                "offered /s",
                "committed",
                "failed",
                "success %",
                "achieved /s",
                "p50 ms",
                "p99 ms",
                "mean retries",
                "overwrites committed %");
        List<Duration> stores = new ArrayList<>();
        stores.add(null);
        stores.addAll(settings.s3Latencies());
        for (Duration storeLatency : stores) {
            measureStore(run, settings, storeLatency, steps);
        }
        run.lines("success", "Success rate by offered rate", steps, "offered /s", "success %", "store", "catalog");
        run.lines(
                "p99",
                "p99 latency by offered rate (arrival to acknowledgement)",
                steps,
                "offered /s",
                "p99 ms",
                "store",
                "catalog");
        run.lines(
                "retries",
                "Mean retries per committed transaction",
                steps,
                "offered /s",
                "mean retries",
                "store",
                "catalog");
        run.finding(sustained(steps));
    }

    /** Every offered rate on every catalog, on one store: the local disk ({@code storeLatency} null) or S3. */
    private static void measureStore(ExperimentRun run, Settings settings, Duration storeLatency, ResultTable steps)
            throws Exception {
        boolean s3 = storeLatency != null;
        String store = s3 ? "S3, " + storeLatency.toMillis() + " ms" : "local disk";
        try (IcebergPeers peers =
                IcebergPeers.start(run.directory(s3 ? "s3-" + storeLatency.toMillis() : "local"), storeLatency)) {
            peers.missing().forEach(reason -> run.log("%s: left out: %s", store, reason));
            if (!peers.missing().isEmpty()) {
                run.note("Left out on " + store + ": " + String.join("; ", peers.missing()) + ".");
            }
            for (Peer peer : peers.peers()) {
                ((SupportsNamespaces) peer.catalog()).createNamespace(InsertsExperiment.NAMESPACE);
                if (settings.warmupSeconds() > 0) {
                    step(peer, "warmup", 10, settings.warmupSeconds());
                }
            }
            for (double rate : settings.rates()) {
                for (Peer peer : peers.peers()) {
                    // A name per store too: the retries are counted by catalog and table name, the same on both stores.
                    String table = String.format(Locale.ROOT, "%s%03d", s3 ? "s" : "c", (int) rate);
                    Result result = step(peer, table, rate, settings.secondsPerRate());
                    steps.add(
                            store,
                            peer.name(),
                            rate,
                            result.committed(),
                            result.failed(),
                            result.successPercent(),
                            result.achieved(),
                            result.p50(),
                            result.p99(),
                            CommitAttempts.meanRetries(
                                    peer.catalog().name() + "." + InsertsExperiment.NAMESPACE + "." + table),
                            result.overwritePercent());
                    run.log(
                            "%s, %s at %.0f/s: %.1f %% committed, p50 %.0f ms, p99 %.0f ms",
                            store, peer.name(), rate, result.successPercent(), result.p50(), result.p99());
                }
            }
        }
    }

    private record Result(
            int committed, int failed, double achieved, double p50, double p99, int overwrites, int overwritesOffered) {
        double successPercent() {
            return 100.0 * committed / Math.max(1, committed + failed);
        }

        double overwritePercent() {
            return overwritesOffered == 0 ? 100 : 100.0 * overwrites / overwritesOffered;
        }
    }

    /** One offered rate on a fresh table: Poisson arrivals for {@code seconds}, then every transaction's end. */
    private static Result step(Peer peer, String name, double rate, int seconds) throws Exception {
        TableIdentifier id = TableIdentifier.of(InsertsExperiment.NAMESPACE, name);
        Table created = peer.catalog()
                .createTable(
                        id,
                        InsertsExperiment.SCHEMA,
                        InsertsExperiment.SPEC,
                        Map.of(TableProperties.FORMAT_VERSION, "2"));
        created.newFastAppend().appendFile(InsertsExperiment.file(created)).commit();
        ExecutorService pool = Executors.newFixedThreadPool(MAX_CLIENTS);
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger overwrites = new AtomicInteger();
        AtomicInteger overwritesOffered = new AtomicInteger();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        Random random = new Random(42);
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long next = start;
        while (true) {
            next += (long) (-Math.log(1 - random.nextDouble()) / rate * 1e9);
            if (next >= end) {
                break;
            }
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            long arrival = next;
            boolean overwrite = random.nextInt(100) >= FAST_APPEND_PERCENT;
            int partition = 1 + random.nextInt(28);
            if (overwrite) {
                overwritesOffered.incrementAndGet();
            }
            pool.execute(() -> {
                if (System.nanoTime() - arrival > TimeUnit.SECONDS.toNanos(MAX_QUEUE_SECONDS)) {
                    // Shed, counted as a failure, as a client that gave up would be.
                    failed.incrementAndGet();
                    return;
                }
                try {
                    Table table = peer.catalog().loadTable(id);
                    if (overwrite) {
                        validatedOverwrite(table, partition);
                        overwrites.incrementAndGet();
                    } else {
                        table.newFastAppend()
                                .appendFile(InsertsExperiment.file(table))
                                .commit();
                    }
                    latencies.add(System.nanoTime() - arrival);
                    committed.incrementAndGet();
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException(peer.name() + ": transactions still running after 10 minutes");
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        long[] nanos = latencies.stream().mapToLong(Long::longValue).toArray();
        return new Result(
                committed.get(),
                failed.get(),
                committed.get() / elapsed,
                Percentiles.millis(nanos.clone(), 50),
                Percentiles.millis(nanos.clone(), 99),
                overwrites.get(),
                overwritesOffered.get());
    }

    /**
     * The study's heavy transaction: replace the files of one partition that no append writes to ({@code
     * day=2026-02-dd}), validating from the loaded snapshot that nothing conflicting was committed since.
     */
    private static void validatedOverwrite(Table table, int partition) {
        String day = String.format(Locale.ROOT, "2026-02-%02d", partition);
        Expression filter = Expressions.equal("day", day);
        long base = table.currentSnapshot().snapshotId();
        table.newOverwrite()
                .overwriteByRowFilter(filter)
                .addFile(DataFiles.builder(table.spec())
                        .withPath(table.location() + "/data/day=" + day + "/o-" + System.nanoTime() + ".parquet")
                        .withFileSizeInBytes(4096)
                        .withRecordCount(400)
                        .withPartitionPath("day=" + day)
                        .build())
                .validateFromSnapshot(base)
                .conflictDetectionFilter(filter)
                .validateNoConflictingData()
                .validateNoConflictingDeletes()
                .commit();
    }

    /** Per store and catalog: the highest offered rate at which 99 % or more committed. */
    private static String sustained(ResultTable steps) {
        Map<String, Double> best = new LinkedHashMap<>();
        Map<String, Double> highest = new HashMap<>();
        boolean stores = steps.rows().stream().map(row -> row.get(0)).distinct().count() > 1;
        for (List<Object> row : steps.rows()) {
            String catalog = stores ? row.get(1) + " (" + row.get(0) + ")" : (String) row.get(1);
            double rate = ((Number) row.get(2)).doubleValue();
            best.putIfAbsent(catalog, 0.0);
            highest.merge(catalog, rate, Math::max);
            if (((Number) row.get(steps.column("success %"))).doubleValue() >= 99) {
                best.merge(catalog, rate, Math::max);
            }
        }
        List<String> parts = new ArrayList<>();
        best.forEach((catalog, rate) -> parts.add(String.format(
                Locale.ROOT,
                "%s %s",
                catalog,
                rate == 0
                        ? "none of the offered rates"
                        : rate.equals(highest.get(catalog))
                                ? String.format(Locale.ROOT, "%.0f/s (the highest offered)", rate)
                                : String.format(Locale.ROOT, "%.0f/s", rate))));
        return "highest offered rate sustained at ≥ 99 % success on one table, " + FAST_APPEND_PERCENT
                + " % fast appends: " + String.join(", ", parts) + ".";
    }
}
