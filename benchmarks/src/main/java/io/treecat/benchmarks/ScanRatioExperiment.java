package io.treecat.benchmarks;

import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.storage.KeySpace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * What a path query costs over RocksDB's own iterator on the same files: the TPC-DS catalog of
 * {@link BenchmarkData} (1,000,000 leaves, 1,096 daily partitions of {@code store_sales}), opened
 * twice in this process, by TreeCat and, read-only, by plain rocksdbjni. Every round scans one date
 * range three ways back to back, the order rotating: the raw iterator over the range's leaf keys
 * (one seek, an upper bound), the path query with the range on {@code obj_id} (which the planner
 * turns into iterator bounds) and the same range on {@code part_val} (each partition's value read
 * and tested). The ratio of each round is taken, since this machine's speed drifts by up to 2×
 * between minutes, and the median of those is reported.
 */
public final class ScanRatioExperiment implements Experiment {
    /** Rounds for one date range; warm-up rounds are not recorded. */
    record Rounds(int days, int warmup, int measured) {}

    private static final List<String> PROBES = List.of("raw range scan", "query obj_id", "query part_val");

    /** Something timed once per round; returns the rows or entries it read. */
    private interface Probe {
        long run();
    }

    @Override
    public String name() {
        return "scan-ratio";
    }

    @Override
    public String title() {
        return "Path queries against RocksDB's own iterator";
    }

    @Override
    public String description() {
        return "The 1,000,000-leaf TPC-DS catalog (`store_sales` partitioned by day over 1,096 days, the benchmarks'"
                + " shared data, built once under `benchmarks/target/bench-data`) opened twice in the driver's"
                + " process: by TreeCat, and read-only by plain rocksdbjni. Every round reads one date range three"
                + " ways back to back, the order rotating: RocksDB's iterator over the range's leaf keys (one seek"
                + " and an upper bound: the physical limit, no TreeCat code), the path query"
                + " `/[obj_id='tpcds']/[obj_id='store_sales']/[obj_id >= … and obj_id <= …]/*` (the range as"
                + " iterator bounds) and the same range on `part_val` (every partition's value read and tested);"
                + " each must read the range's files. A round's ratio is the raw scan's time over the query's (the"
                + " query's rows/s over the raw entries/s); the median of the rounds' ratios is reported, with the"
                + " 10th and 90th percentiles.";
    }

    @Override
    public void run(ExperimentRun run) {
        List<Rounds> ranges = run.preset()
                .pick(
                        List.of(new Rounds(365, 5, 20), new Rounds(1, 100, 400)),
                        List.of(new Rounds(365, 15, 60), new Rounds(1, 500, 2000)),
                        List.of(new Rounds(365, 15, 80), new Rounds(1, 500, 2000)));
        run.log("opening the TPC-DS catalog (built on first use)");
        ResultTable times = run.table(
                "times",
                "Time per scan, by date range",
                "days",
                "files",
                "scan",
                "median ms",
                "p10 ms",
                "p90 ms",
                "rows/s");
        ResultTable ratios = run.table(
                "ratios",
                "The query's rate over the raw iterator's, median of the rounds' ratios",
                "days",
                "query",
                "ratio",
                "p10",
                "p90");
        try (CatalogService service = CatalogService.open(BenchmarkData.catalog());
                RawRocks raw = RawRocks.openReadOnly(BenchmarkData.catalog())) {
            ColumnFamilyHandle leaf = raw.family(KeySpace.LEAF);
            for (Rounds range : ranges) {
                int days = range.days();
                byte[] lower = Ranges.leafLower(days);
                byte[] upper = Ranges.leafUpper(days);
                List<Probe> probes = List.of(
                        () -> rawScan(raw, leaf, lower, upper),
                        () -> query(service, QueryRequest.of(Ranges.objIdQuery(days))),
                        () -> query(service, QueryRequest.of(Ranges.partValQuery(days))));
                long[][] nanos = measure(probes, Ranges.expectedFiles(days), range.warmup(), range.measured());
                for (int i = 0; i < probes.size(); i++) {
                    double median = percentile(nanos[i], 0.5) / 1e6;
                    times.add(
                            days,
                            Ranges.expectedFiles(days),
                            PROBES.get(i),
                            median,
                            percentile(nanos[i], 0.1) / 1e6,
                            percentile(nanos[i], 0.9) / 1e6,
                            Math.round(Ranges.expectedFiles(days) / (median / 1e3)));
                }
                List<String> summary = new ArrayList<>();
                for (int i = 1; i < probes.size(); i++) {
                    double[] perRound = new double[range.measured()];
                    for (int round = 0; round < perRound.length; round++) {
                        perRound[round] = (double) nanos[0][round] / nanos[i][round];
                    }
                    Arrays.sort(perRound);
                    double median = perRound[perRound.length / 2];
                    ratios.add(
                            days,
                            PROBES.get(i),
                            median,
                            perRound[(int) (perRound.length * 0.1)],
                            perRound[(int) (perRound.length * 0.9)]);
                    summary.add(
                            String.format(Locale.ROOT, "%s %.2f", PROBES.get(i).substring(6), median));
                }
                run.log("%d day(s), %d rounds: ratio %s", days, range.measured(), String.join(", ", summary));
            }
        }
        run.bars(
                "ratios", "The query's rate over RocksDB's iterator's (1 = as fast)", ratios, "days", "ratio", "query");
        List<String> parts = new ArrayList<>();
        for (List<Object> row : ratios.rows()) {
            parts.add(String.format(
                    Locale.ROOT,
                    "%s day(s) with the range on %s %.2f",
                    row.get(0),
                    ((String) row.get(1)).substring(6),
                    ((Number) row.get(2)).doubleValue()));
        }
        run.finding("a path query reads at this fraction of RocksDB's own iterator rate on the same files: "
                + String.join("; ", parts) + ".");
        run.note("Below 1 is the tree's own cost: decoding each key into a path, checking each version's visibility"
                + " at the read vid, and the query's steps. On `part_val` a one-day query tests the value of all"
                + " 1,096 partitions to find one, so its ratio is low at one day and close to the `obj_id` one over a"
                + " year; where the range can be said on ids, the query seeks to it.");
    }

    private static long[][] measure(List<Probe> probes, long expected, int warmup, int measured) {
        long[][] nanos = new long[probes.size()][measured];
        for (int round = -warmup; round < measured; round++) {
            for (int k = 0; k < probes.size(); k++) {
                int index = Math.floorMod(round + k, probes.size());
                long started = System.nanoTime();
                long rows = probes.get(index).run();
                long elapsed = System.nanoTime() - started;
                if (rows != expected) {
                    throw new IllegalStateException(
                            PROBES.get(index) + " read " + rows + " rows, expected " + expected);
                }
                if (round >= 0) {
                    nanos[index][round] = elapsed;
                }
            }
        }
        return nanos;
    }

    /** Every entry of the range, key and value copied out as any reader would; -1 if none had bytes. */
    private static long rawScan(RawRocks raw, ColumnFamilyHandle leaf, byte[] lower, byte[] upper) {
        long entries = 0;
        long bytes = 0;
        try (Slice upperSlice = new Slice(upper);
                ReadOptions options = new ReadOptions().setIterateUpperBound(upperSlice);
                RocksIterator iterator = raw.db().newIterator(leaf, options)) {
            for (iterator.seek(lower); iterator.isValid(); iterator.next()) {
                bytes += iterator.key().length + iterator.value().length;
                entries++;
            }
        }
        return bytes > 0 ? entries : -1;
    }

    /** Every row of the query, each one's version read so that none is skipped unseen; -1 if none had one. */
    private static long query(CatalogService service, QueryRequest request) {
        long rows = 0;
        long versions = 0;
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                versions += cursor.current().version();
                rows++;
            }
        }
        return versions > 0 ? rows : -1;
    }

    private static double percentile(long[] values, double fraction) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * fraction))];
    }
}
