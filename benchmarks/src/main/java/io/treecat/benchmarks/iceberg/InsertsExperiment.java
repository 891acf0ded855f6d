package io.treecat.benchmarks.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.iceberg.IcebergPeers.Peer;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Percentiles;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;

/**
 * Experiment 4, the paper's Figure 12: small files committed one after another, as a streaming writer does, by one
 * client. Each Iceberg commit loads the table and appends one file ({@code FastAppend}); TreeCat's native commit adds
 * the file's leaf in one call. On the local disk, then on S3 (S3Proxy) with a fixed latency per S3 request; the
 * catalogs alternate in rounds on the same store.
 */
public final class InsertsExperiment implements Experiment {
    /**
     * @param commits per catalog and store, measured
     * @param localDisk whether to measure on the local disk
     * @param s3Latencies the S3 variants: the fixed latency of every S3 request in each
     */
    public record Settings(int commits, int rounds, int warmupCommits, boolean localDisk, List<Duration> s3Latencies) {
        public Settings {
            s3Latencies = ImmutableList.copyOf(s3Latencies);
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(60, 300, 1000), 3, preset.pick(20, 50, 100), true, List.of(Duration.ofMillis(20)));
        }
    }

    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    static final Namespace NAMESPACE = Namespace.of("bench");
    private static final String NATIVE = "TreeCat native (gRPC)";
    private static final AtomicLong FILES = new AtomicLong();

    private final Settings fixed;

    public InsertsExperiment() {
        this.fixed = null;
    }

    public InsertsExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "inserts";
    }

    @Override
    public String title() {
        return "End-to-end inserts of small files (paper Fig. 12)";
    }

    @Override
    public String description() {
        return "One client commits small files one after another, as a streaming writer does. An Iceberg commit"
                + " loads the table and appends one file (`FastAppend`: the client writes a manifest and a manifest"
                + " list, the catalog swaps the metadata); TreeCat's native commit adds the file's leaf in one gRPC"
                + " call to the same server. The catalogs: TreeCat (packaged server), Iceberg's reference REST server"
                + " (JDBC on sqlite, its own JVM), Iceberg's `JdbcCatalog` (sqlite, in the client's JVM) and, on S3"
                + " only, Project Nessie. First on the local disk, then on S3 (S3Proxy in the driver's JVM) behind a"
                + " proxy adding a fixed latency to every S3 request; the catalogs alternate in rounds. Steps: the"
                + " table's load, the client's own writes before the commit request (commit() less the request),"
                + " and the commit request, timed inside Iceberg's REST client; the JDBC catalog's commit has no"
                + " request to time.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        ResultTable latency = run.table(
                "latency",
                "Commit latency and rate, one client",
                "store",
                "catalog",
                "commits",
                "p50 ms",
                "p99 ms",
                "mean ms",
                "commits/s");
        ResultTable steps = run.table(
                "steps", "Where a commit's time goes (p50 of each step)", "store", "catalog", "step", "p50 ms");
        List<Duration> stores = new ArrayList<>();
        if (settings.localDisk()) {
            stores.add(null);
        }
        stores.addAll(settings.s3Latencies());
        for (Duration storeLatency : stores) {
            boolean s3 = storeLatency != null;
            String store = s3 ? "S3, " + storeLatency.toMillis() + " ms" : "local disk";
            try (IcebergPeers peers = IcebergPeers.start(
                    run.directory(s3 ? "s3-" + storeLatency.toMillis() : "local"), s3 ? storeLatency : null)) {
                peers.missing().forEach(reason -> run.log("%s: left out: %s", store, reason));
                measureStore(run, settings, store, peers, latency, steps);
                if (!peers.missing().isEmpty()) {
                    run.note("Left out on " + store + ": " + String.join("; ", peers.missing()) + ".");
                }
            }
        }
        run.bars(
                "commits-per-second",
                "Sequential commits per second, one client (Fig. 12)",
                latency,
                "catalog",
                "commits/s",
                "store");
        run.bars("steps", "Where a commit's time goes, p50 of each step", steps, "catalog", "p50 ms", "store", "step");
        run.finding(finding(latency));
    }

    private void measureStore(
            ExperimentRun run,
            Settings settings,
            String store,
            IcebergPeers peers,
            ResultTable latency,
            ResultTable steps)
            throws Exception {
        Map<String, Table> tables = new LinkedHashMap<>();
        Map<String, List<long[]>> samples = new LinkedHashMap<>();
        for (Peer peer : peers.peers()) {
            ((SupportsNamespaces) peer.catalog()).createNamespace(NAMESPACE);
            Table table = peer.catalog().createTable(TableIdentifier.of(NAMESPACE, "inserts"), SCHEMA, SPEC);
            for (int i = 0; i < settings.warmupCommits(); i++) {
                table.newFastAppend().appendFile(file(table)).commit();
            }
            tables.put(peer.name(), table);
            samples.put(peer.name(), new ArrayList<>());
        }
        try (TreeCatClient client = TreeCatClient.connect("127.0.0.1:" + peers.treecatGrpcPort())) {
            ObjectPath nativeTable = ObjectPath.of("native_inserts", "t");
            client.commit(WriteSet.of(new WriteOp.Add(nativeTable.parent(), ObjectKind.INNER, new BsonDocument())));
            client.commit(WriteSet.of(new WriteOp.Add(nativeTable, ObjectKind.INNER, new BsonDocument())));
            samples.put(NATIVE, new ArrayList<>());
            for (int i = 0; i < settings.warmupCommits(); i++) {
                nativeInsert(client, nativeTable);
            }
            int perRound = settings.commits() / settings.rounds();
            for (int round = 0; round < settings.rounds(); round++) {
                for (Peer peer : peers.peers()) {
                    for (int i = 0; i < perRound; i++) {
                        samples.get(peer.name()).add(icebergInsert(peer, tables.get(peer.name())));
                    }
                }
                for (int i = 0; i < perRound; i++) {
                    long start = System.nanoTime();
                    nativeInsert(client, nativeTable);
                    samples.get(NATIVE).add(new long[] {System.nanoTime() - start, 0, 0, 0});
                }
            }
        }
        samples.forEach((catalog, list) -> {
            long[] totals = list.stream().mapToLong(sample -> sample[0]).toArray();
            double mean = java.util.Arrays.stream(totals).average().orElse(0) / 1e6;
            latency.add(
                    store,
                    catalog,
                    totals.length,
                    Percentiles.millis(totals.clone(), 50),
                    Percentiles.millis(totals.clone(), 99),
                    mean,
                    1000 / mean);
            run.log(
                    "%s, %s: p50 %.2f ms, %.1f commits/s",
                    store, catalog, Percentiles.millis(totals.clone(), 50), 1000 / mean);
            if (catalog.equals(NATIVE)) {
                steps.add(store, catalog, "commit call", Percentiles.millis(totals.clone(), 50));
                return;
            }
            boolean timed = list.stream().anyMatch(sample -> sample[3] > 0);
            steps.add(store, catalog, "load table", Percentiles.millis(column(list, 1), 50));
            if (timed) {
                steps.add(store, catalog, "client writes", Percentiles.millis(column(list, 2), 50));
                steps.add(store, catalog, "commit request", Percentiles.millis(column(list, 3), 50));
            } else {
                steps.add(store, catalog, "commit (client and catalog)", Percentiles.millis(column(list, 2), 50));
            }
        });
    }

    /** One Iceberg insert: {total, load, commit() less its requests, the commit requests} in nanoseconds. */
    private static long[] icebergInsert(Peer peer, Table created) {
        long[] requests = {0};
        if (peer.stopwatch() != null) {
            peer.stopwatch().recordCommitsTo(nanos -> requests[0] += nanos);
        }
        long start = System.nanoTime();
        Table table = peer.catalog().loadTable(TableIdentifier.of(NAMESPACE, "inserts"));
        long loaded = System.nanoTime();
        table.newFastAppend().appendFile(file(table)).commit();
        long end = System.nanoTime();
        return new long[] {end - start, loaded - start, end - loaded - requests[0], requests[0]};
    }

    private static void nativeInsert(TreeCatClient client, ObjectPath table) {
        long n = FILES.incrementAndGet();
        client.commit(WriteSet.of(new WriteOp.Add(
                table.child("f-" + n),
                ObjectKind.LEAF,
                BsonDocument.parse("{file_path: 's3://bench/native/f-" + n + ".parquet', file_size_in_bytes: 1024,"
                        + " record_count: 100, part_val: {day: '2026-01-01'}}"))));
    }

    private static long[] column(List<long[]> samples, int index) {
        return samples.stream().mapToLong(sample -> sample[index]).toArray();
    }

    static DataFile file(Table table) {
        long n = FILES.incrementAndGet();
        String day = String.format(Locale.ROOT, "2026-01-%02d", 1 + n % 28);
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/f-" + n + ".parquet")
                .withFileSizeInBytes(1024)
                .withRecordCount(100)
                .withPartitionPath("day=" + day)
                .build();
    }

    /** TreeCat REST's rate against each other catalog's, per store. */
    private static String finding(ResultTable latency) {
        Map<String, Map<String, Double>> rates = new LinkedHashMap<>();
        for (List<Object> row : latency.rows()) {
            rates.computeIfAbsent((String) row.get(0), ignored -> new LinkedHashMap<>())
                    .put((String) row.get(1), ((Number) row.get(6)).doubleValue());
        }
        List<String> parts = new ArrayList<>();
        rates.forEach((store, byCatalog) -> {
            double treecat = byCatalog.get(IcebergPeers.TREECAT);
            List<String> against = new ArrayList<>();
            byCatalog.forEach((catalog, rate) -> {
                if (!catalog.equals(IcebergPeers.TREECAT) && !catalog.equals(NATIVE)) {
                    against.add(String.format(Locale.ROOT, "%.2f× %s's", treecat / rate, catalog));
                }
            });
            parts.add(String.format(
                    Locale.ROOT,
                    "on %s TreeCat REST commits %.1f/s, %s rate (native: %.0f/s)",
                    store,
                    treecat,
                    String.join(", ", against),
                    byCatalog.get(NATIVE)));
        });
        return String.join("; ", parts) + " (above 1: TreeCat is faster).";
    }
}
