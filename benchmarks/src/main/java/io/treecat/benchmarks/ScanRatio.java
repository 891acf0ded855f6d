package io.treecat.benchmarks;

import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.storage.KeySpace;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * The query-to-raw ratio measured in pairs. On this VM the speed of the machine drifts by up to 2x
 * between minutes, so a ratio of two JMH results taken minutes apart can be off by that much. Here
 * one process opens the catalog twice (TreeCat read-write, plain rocksdbjni read-only on the same
 * files) and runs the raw scan and the queries back to back in every round, rotating their order;
 * the ratio of each round is taken, and the median of those is reported.
 *
 * <p>Usage: {@code java -Xms4g -Xmx4g -XX:+AlwaysPreTouch -cp treecat-benchmarks.jar
 * io.treecat.benchmarks.ScanRatio [days=365] [rounds=40] [warmupRounds=15]}
 */
public final class ScanRatio {
    private ScanRatio() {}

    /** Something timed once per round; returns the rows or entries it read. */
    private interface Probe {
        long run();
    }

    public static void main(String[] args) {
        int days = args.length > 0 ? Integer.parseInt(args[0]) : 365;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        int warmupRounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        long expected = Ranges.expectedFiles(days);
        byte[] lower = Ranges.leafLower(days);
        byte[] upper = Ranges.leafUpper(days);
        try (CatalogService service = CatalogService.open(BenchmarkData.catalog());
                RawRocks raw = RawRocks.openReadOnly(BenchmarkData.catalog())) {
            ColumnFamilyHandle leaf = raw.family(KeySpace.LEAF);
            List<String> names = List.of("raw range scan", "query obj_id", "query part_val");
            List<Probe> probes = List.of(
                    () -> rawScan(raw, leaf, lower, upper),
                    () -> query(service, QueryRequest.of(Ranges.objIdQuery(days))),
                    () -> query(service, QueryRequest.of(Ranges.partValQuery(days))));
            long[][] nanos = new long[probes.size()][rounds];
            long sink = 0;
            for (int round = -warmupRounds; round < rounds; round++) {
                for (int k = 0; k < probes.size(); k++) {
                    int index = Math.floorMod(round + k, probes.size());
                    long started = System.nanoTime();
                    long rows = probes.get(index).run();
                    long elapsed = System.nanoTime() - started;
                    if (rows != expected) {
                        throw new IllegalStateException(
                                names.get(index) + " read " + rows + " rows, expected " + expected);
                    }
                    sink += rows;
                    if (round >= 0) {
                        nanos[index][round] = elapsed;
                    }
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "%d days, %,d rows, %d rounds after %d warm-up rounds (checksum %d)%n",
                    days,
                    expected,
                    rounds,
                    warmupRounds,
                    sink);
            for (int i = 0; i < probes.size(); i++) {
                double median = median(nanos[i]) / 1e6;
                System.out.printf(
                        Locale.ROOT,
                        "%-16s median %8.2f ms  p10 %8.2f  p90 %8.2f  -> %,.0f rows/s%n",
                        names.get(i),
                        median,
                        percentile(nanos[i], 0.1) / 1e6,
                        percentile(nanos[i], 0.9) / 1e6,
                        expected / (median / 1e3));
            }
            for (int i = 1; i < probes.size(); i++) {
                double[] ratios = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    // Query rows/s over raw entries/s = raw time over query time.
                    ratios[round] = (double) nanos[0][round] / nanos[i][round];
                }
                Arrays.sort(ratios);
                System.out.printf(
                        Locale.ROOT,
                        "ratio %-14s median %.2f  p10 %.2f  p90 %.2f%n",
                        names.get(i),
                        ratios[rounds / 2],
                        ratios[(int) (rounds * 0.1)],
                        ratios[(int) (rounds * 0.9)]);
            }
        }
    }

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

    private static double median(long[] values) {
        return percentile(values, 0.5);
    }

    private static double percentile(long[] values, double fraction) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * fraction))];
    }
}
