package io.treecat.benchmarks.history;

import static java.util.Objects.requireNonNull;

import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Percentiles;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * Experiment 6: how the store grows over a long run of commits, with and without retention. Two catalogs in this
 * process take the same commits, alternately: each commit rewrites a batch of one table's file leaves, so every
 * commit leaves old versions behind. One keeps versions for {@code retain} and runs the collector; the other keeps
 * every version. Store size and commit p50 are sampled against the commits made.
 */
public final class GrowthExperiment implements Experiment {
    /**
     * @param objects the table's file leaves, rewritten round after round
     * @param perCommit leaves rewritten by one commit
     * @param samples points per curve
     */
    public record Settings(
            Duration length, int objects, int perCommit, Duration retain, Duration collectorInterval, int samples) {
        public Settings {
            requireNonNull(length, "length is null");
            requireNonNull(retain, "retain is null");
            requireNonNull(collectorInterval, "collectorInterval is null");
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(Duration.ofSeconds(80), Duration.ofMinutes(10), Duration.ofMinutes(30)),
                    10_000,
                    500,
                    preset.pick(Duration.ofSeconds(15), Duration.ofMinutes(1), Duration.ofMinutes(1)),
                    preset.pick(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10)),
                    20);
        }
    }

    private final Settings fixed;

    public GrowthExperiment() {
        this.fixed = null;
    }

    public GrowthExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "growth";
    }

    @Override
    public String title() {
        return "Growth of the store over a long run, with and without retention";
    }

    @Override
    public String description() {
        return "Two catalogs in this process (RocksDB on this disk) take the same commits, alternately: each commit"
                + " rewrites a batch of one table's file leaves (`update`), round after round over the same leaves, so"
                + " every commit leaves old versions behind. One keeps versions for the retention period and runs the"
                + " garbage collector in the background (the history issue's time-based retention); the other keeps"
                + " every version (retention off). Sampled against the commits made: RocksDB's estimate of the live"
                + " data (what compaction keeps), the SST files' size, and the p50 of the commits since the last"
                + " sample. The write-ahead log is left out: its files come and go with the memtables' flushes.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        ResultTable growth = run.table(
                "growth",
                "Store size and commit latency against commits (retain "
                        + settings.retain().toSeconds() + " s)",
                "retention",
                "commits",
                "SST files MiB",
                "live data MiB",
                "commit p50 ms",
                "versions reclaimed");
        Store retained = Store.open(run.directory("with-retention"), settings, true);
        Store unbounded = Store.open(run.directory("without-retention"), settings, false);
        try (retained;
                unbounded) {
            long start = System.nanoTime();
            long end = start + settings.length().toNanos();
            long every = settings.length().toNanos() / settings.samples();
            long nextSample = start + every;
            int commits = 0;
            int round = 0;
            long written = 0;
            while (System.nanoTime() < end) {
                List<WriteOp> ops = new ArrayList<>(settings.perCommit());
                for (int i = 0; i < settings.perCommit(); i++) {
                    int n = (int) ((written + i) % settings.objects());
                    ops.add(new WriteOp.Update(Store.TABLE.child("f" + n), ObjectKind.LEAF, file(n, round)));
                }
                WriteSet writes = new WriteSet(ops);
                // Alternately first, so that neither always commits after the other's compaction work.
                if (commits % 2 == 0) {
                    retained.commit(writes);
                    unbounded.commit(writes);
                } else {
                    unbounded.commit(writes);
                    retained.commit(writes);
                }
                commits++;
                written += settings.perCommit();
                round = (int) (written / settings.objects());
                if (System.nanoTime() >= nextSample) {
                    retained.sample(growth, "on", commits);
                    unbounded.sample(growth, "off", commits);
                    nextSample += every;
                }
            }
            run.log(
                    "%,d commits; live data %.1f MiB with retention, %.1f MiB without",
                    commits, retained.liveDataMib(), unbounded.liveDataMib());
            run.lines(
                    "live-data",
                    "Live data (RocksDB's estimate) against commits",
                    growth,
                    "commits",
                    "live data MiB",
                    "retention");
            run.lines("sst", "SST files against commits", growth, "commits", "SST files MiB", "retention");
            run.lines("latency", "Commit p50 against commits", growth, "commits", "commit p50 ms", "retention");
            run.finding(String.format(
                    Locale.ROOT,
                    "after %,d commits rewriting %,d leaves, the live data is %.1f MiB with %d s retention and"
                            + " %.1f MiB keeping every version (%.1f×); last commit p50 %.2f ms with retention,"
                            + " %.2f ms without.",
                    commits,
                    settings.objects(),
                    retained.liveDataMib(),
                    settings.retain().toSeconds(),
                    unbounded.liveDataMib(),
                    unbounded.liveDataMib() / retained.liveDataMib(),
                    lastP50(growth, "on"),
                    lastP50(growth, "off")));
        }
    }

    private static double lastP50(ResultTable growth, String retention) {
        double last = Double.NaN;
        for (List<Object> row : growth.rows()) {
            if (row.get(0).equals(retention)) {
                last = ((Number) row.get(4)).doubleValue();
            }
        }
        return last;
    }

    private static BsonDocument file(int n, int round) {
        return new BsonDocument("location", new BsonString("s3://lake/bench/t/data/f" + n + "-" + round + ".parquet"))
                .append("size", new BsonInt64(1_000_000L + n))
                .append("rows", new BsonInt64(10_000L + round));
    }

    /** One catalog of the comparison, with its collector, and the latencies of its commits since the last sample. */
    private static final class Store implements AutoCloseable {
        static final ObjectPath TABLE = ObjectPath.parse("/bench/t");

        private final Path directory;
        private final RocksKvStore kv;
        private final CatalogService catalog;
        private final GarbageCollector collector;
        private long[] latencies = new long[1024];
        private int count;

        private Store(Path directory, RocksKvStore kv, CatalogService catalog, GarbageCollector collector) {
            this.directory = directory;
            this.kv = kv;
            this.catalog = catalog;
            this.collector = collector;
        }

        static Store open(Path directory, Settings settings, boolean retention) throws IOException {
            RocksKvStore kv = RocksKvStore.open(directory, RocksStoreOptions.defaults());
            VersionedTree tree = VersionedTree.open(kv);
            CatalogService catalog = new CatalogService(tree, TransactionConfig.defaults(), Clock.systemUTC());
            GarbageCollector collector = new GarbageCollector(
                    tree,
                    RetentionConfig.defaults()
                            .withRetention(Optional.of(settings.retain()), OptionalLong.empty())
                            .withInterval(settings.collectorInterval())
                            .withEnabled(retention),
                    Clock.systemUTC());
            catalog.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.parse("/bench"), ObjectKind.INNER, new BsonDocument()),
                    new WriteOp.Add(TABLE, ObjectKind.INNER, new BsonDocument())));
            collector.start();
            return new Store(directory, kv, catalog, collector);
        }

        void commit(WriteSet writes) {
            long start = System.nanoTime();
            catalog.commit(writes);
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = System.nanoTime() - start;
        }

        void sample(ResultTable growth, String retention, int commits) throws IOException {
            growth.add(
                    retention,
                    commits,
                    kv.longProperty("rocksdb.total-sst-files-size").orElse(-1) / (1024.0 * 1024.0),
                    liveDataMib(),
                    Percentiles.millis(Arrays.copyOf(latencies, count), 50),
                    collector.keysReclaimed());
            count = 0;
        }

        double liveDataMib() {
            return kv.longProperty("rocksdb.estimate-live-data-size").orElse(-1) / (1024.0 * 1024.0);
        }

        @Override
        public void close() throws Exception {
            // Closed in reverse: the collector, then the catalog, which closes its tree and store.
            try (catalog;
                    collector) {
                count = 0;
            }
        }
    }
}
