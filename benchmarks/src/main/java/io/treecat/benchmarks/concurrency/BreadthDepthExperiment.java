package io.treecat.benchmarks.concurrency;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.suite.Directories;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.ConcurrencyProtocol;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

/**
 * Experiment 2, the paper's Figure 9: how the shape of the tree, its breadth (fan-out) and depth
 * (partition levels), changes throughput under OSPL, OSL and MGL. One table holds N files with
 * {@value #ATTRIBUTES} independent clustering attributes; partition level i groups the files by
 * ranges of attribute i into {@code fan-out} groups. Clients run reads and read-write transactions
 * half and half, each a range predicate of fixed selectivity on a random attribute; a read-write
 * transaction then adds a file. A predicate on an attribute that no level partitions by scans every
 * partition.
 */
public final class BreadthDepthExperiment implements Experiment {
    /**
     * @param fanOuts the fan-outs swept with one partition level
     * @param depths the partition levels swept at {@code depthFanOut}
     * @param selectivity the share of an attribute's range each predicate selects
     */
    public record Settings(
            int files,
            List<Integer> fanOuts,
            List<Integer> depths,
            int depthFanOut,
            int threads,
            double selectivity,
            double secondsPerCell,
            double warmupSeconds) {
        public Settings {
            fanOuts = ImmutableList.copyOf(fanOuts);
            depths = ImmutableList.copyOf(depths);
            if (depths.stream().anyMatch(depth -> depth < 1 || depth >= ATTRIBUTES)) {
                throw new IllegalArgumentException("Depths are between 1 and " + (ATTRIBUTES - 1));
            }
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(20_000, 100_000, 100_000),
                    preset.pick(List.of(1, 10, 100), List.of(1, 10, 100, 1000), List.of(1, 10, 100, 1000, 10_000)),
                    preset.pick(List.of(1, 2, 3), List.of(1, 2, 3, 4), List.of(1, 2, 3, 4)),
                    10,
                    preset.pick(4, 8, 16),
                    0.01,
                    preset.pick(2.0, 8.0, 30.0),
                    preset.pick(2.0, 8.0, 30.0));
        }
    }

    /** Attributes a file is clustered by; one more than the deepest layout partitions by. */
    static final int ATTRIBUTES = 5;

    private static final long DOMAIN = 1_000_000;
    private static final long SEED = 9_090_909L;
    private static final String DATABASE = "bd";
    private static final String TABLE = "t";

    private final Settings fixed;

    public BreadthDepthExperiment() {
        this.fixed = null;
    }

    public BreadthDepthExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "breadth-depth";
    }

    @Override
    public String title() {
        return "Breadth and depth of the tree (paper Fig. 9)";
    }

    @Override
    public String description() {
        return "One table of N files, each with " + ATTRIBUTES + " independent clustering attributes (uniform over"
                + " 0–999,999). Partition level i groups the files by ranges of attribute i into `fan-out` groups"
                + " (nodes `{lo, hi}`), so a layout of depth d has fan-out^d partitions. Clients run reads and"
                + " read-write transactions half and half: a range predicate selecting 1 % of a random attribute's"
                + " range, pruned at its level if one partitions by it, else scanning every partition; a read-write"
                + " transaction then adds a file with random attributes. First the fan-out of a single level is"
                + " swept, then the depth at fan-out 10. Each layout is loaded once and copied for each protocol;"
                + " clients and store share this machine's cores.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        ResultTable byFanOut = run.table(
                "by-fan-out",
                "Throughput by fan-out, one partition level, " + settings.threads() + " threads",
                "protocol",
                "fan-out",
                "operations/s",
                "abort rate %");
        ResultTable byDepth = run.table(
                "by-depth",
                "Throughput by partition levels, fan-out " + settings.depthFanOut() + ", " + settings.threads()
                        + " threads",
                "protocol",
                "depth",
                "operations/s",
                "abort rate %");
        boolean warm = false;
        for (int fanOut : settings.fanOuts()) {
            warm = measureLayout(run, settings, fanOut, 1, byFanOut, fanOut, warm);
        }
        for (int depth : settings.depths()) {
            warm = measureLayout(run, settings, settings.depthFanOut(), depth, byDepth, depth, warm);
        }
        run.bars(
                "by-fan-out",
                "Operations/s by fan-out, one partition level (Fig. 9a)",
                byFanOut,
                "fan-out",
                "operations/s",
                "protocol");
        run.bars(
                "by-depth",
                "Operations/s by partition levels at fan-out " + settings.depthFanOut() + " (Fig. 9b)",
                byDepth,
                "depth",
                "operations/s",
                "protocol");
        run.finding(finding(byFanOut, "fan-out", settings.fanOuts().get(0)) + "; "
                + finding(
                        byDepth,
                        "depth",
                        settings.depths().get(settings.depths().size() - 1)) + ".");
        run.note("Operations/s counts committed operations, reads included; the abort rate is over read-write"
                + " transactions. With one level at fan-out 1 every predicate scans all files; read-write"
                + " transactions conflict only when a new file falls in another's predicate under OSPL, and whenever"
                + " it lands in a scanned partition under OSL and MGL.");
    }

    /** OSPL's operations/s over OSL's and MGL's in one cell of a sweep. */
    private static String finding(ResultTable table, String dimension, int value) {
        Map<String, Double> rates = new HashMap<>();
        for (List<Object> row : table.rows()) {
            if (((Number) row.get(1)).intValue() == value) {
                rates.put((String) row.get(0), ((Number) row.get(2)).doubleValue());
            }
        }
        return String.format(
                Locale.ROOT,
                "at %s %d OSPL runs %.2f× OSL's and %.2f× MGL's operations per second",
                dimension,
                value,
                rates.get("OSPL") / rates.get("OSL"),
                rates.get("OSPL") / rates.get("MGL"));
    }

    private boolean measureLayout(
            ExperimentRun run, Settings settings, int fanOut, int depth, ResultTable table, int x, boolean warm)
            throws Exception {
        Path template = run.workDirectory().resolve("layout-" + fanOut + "-" + depth);
        long start = System.nanoTime();
        try (CatalogService catalog = CatalogService.open(template)) {
            new Layout(fanOut, depth).load(catalog, settings.files(), new SplittableRandom(SEED));
        }
        run.log(
                "layout fan-out %d, depth %d: %,d files in %.1f s",
                fanOut, depth, settings.files(), (System.nanoTime() - start) / 1e9);
        if (!warm) {
            measure(
                    template,
                    run.workDirectory().resolve("warm-up"),
                    settings,
                    new Layout(fanOut, depth),
                    ConcurrencyProtocol.OSPL,
                    settings.warmupSeconds());
        }
        for (ConcurrencyProtocol protocol : ConcurrencyProtocol.values()) {
            double[] figures = measure(
                    template,
                    run.workDirectory().resolve("cell"),
                    settings,
                    new Layout(fanOut, depth),
                    protocol,
                    settings.secondsPerCell());
            table.add(protocol.name(), x, figures[0], figures[1]);
            run.log(
                    "fan-out %d, depth %d, %s: %.0f operations/s, abort rate %.1f%%",
                    fanOut, depth, protocol, figures[0], figures[1]);
        }
        Directories.delete(template);
        return true;
    }

    /** Operations/s and the abort rate in percent of one cell, on a copy of the layout's template. */
    private static double[] measure(
            Path template,
            Path directory,
            Settings settings,
            Layout layout,
            ConcurrencyProtocol protocol,
            double seconds)
            throws Exception {
        Directories.copy(template, directory);
        TransactionConfig config =
                TransactionConfig.defaults().withProtocol(protocol).withLockTimeout(Duration.ofMillis(500));
        LongAdder committed = new LongAdder();
        LongAdder readWrites = new LongAdder();
        LongAdder aborted = new LongAdder();
        try (CatalogService catalog = CatalogService.open(directory, RocksStoreOptions.defaults(), config)) {
            double elapsed = ClientThreads.run(settings.threads(), seconds, client -> {
                SplittableRandom random = new SplittableRandom(SEED + 31L * client);
                long[] files = {0};
                return () -> {
                    int attribute = random.nextInt(ATTRIBUTES);
                    long width = (long) (DOMAIN * settings.selectivity());
                    long from = random.nextLong(DOMAIN - width);
                    String query = layout.query(attribute, from, from + width);
                    if (random.nextBoolean()) {
                        try (QueryCursor cursor = catalog.openQuery(QueryRequest.of(query))) {
                            while (cursor.advance()) {
                                cursor.current();
                            }
                        }
                        committed.increment();
                        return;
                    }
                    try {
                        ReadWriteTransaction.run(catalog, txn -> {
                            ReadWriteTransaction.rows(catalog, txn, query);
                            long[] values = layout.randomValues(random);
                            return List.of(new WriteOp.Add(
                                    layout.partition(values).child("c" + client + "-" + files[0]++),
                                    ObjectKind.LEAF,
                                    Layout.file(values)));
                        });
                        committed.increment();
                        readWrites.increment();
                    } catch (CatalogException e) {
                        if (e.category() != ErrorCategory.CONFLICT) {
                            throw e;
                        }
                        aborted.increment();
                    }
                };
            });
            long writes = readWrites.sum() + aborted.sum();
            return new double[] {committed.sum() / elapsed, writes == 0 ? 0 : 100.0 * aborted.sum() / writes};
        } finally {
            Directories.delete(directory);
        }
    }

    /** The tree's shape: level i partitions by attribute i into {@code fanOut} ranges. */
    record Layout(int fanOut, int depth) {
        ObjectPath table() {
            return ObjectPath.of(DATABASE, TABLE);
        }

        long[] randomValues(SplittableRandom random) {
            long[] values = new long[ATTRIBUTES];
            for (int a = 0; a < ATTRIBUTES; a++) {
                values[a] = random.nextLong(DOMAIN);
            }
            return values;
        }

        ObjectPath partition(long[] values) {
            ObjectPath path = table();
            for (int level = 0; level < depth; level++) {
                path = path.child(partitionId(level, group(values[level])));
            }
            return path;
        }

        private long group(long value) {
            return value * fanOut / DOMAIN;
        }

        private static String partitionId(int level, long group) {
            return String.format(Locale.ROOT, "a%d=%05d", level, group);
        }

        static BsonDocument file(long[] values) {
            BsonDocument file = new BsonDocument("size", new BsonInt64(1 << 20));
            for (int a = 0; a < ATTRIBUTES; a++) {
                file.append("a" + a, new BsonInt64(values[a]));
            }
            return file;
        }

        /** The files with attribute {@code attribute} in [from, until): pruned at its level, if it has one. */
        String query(int attribute, long from, long until) {
            StringBuilder query = new StringBuilder("/[obj_id='" + DATABASE + "']/[obj_id='" + TABLE + "']");
            for (int level = 0; level < depth; level++) {
                query.append(level == attribute ? "/[hi > " + from + " and lo < " + until + "]" : "/*");
            }
            return query.append("/[a")
                    .append(attribute)
                    .append(" >= ")
                    .append(from)
                    .append(" and a")
                    .append(attribute)
                    .append(" < ")
                    .append(until)
                    .append(']')
                    .toString();
        }

        void load(CatalogService catalog, int files, SplittableRandom random) {
            catalog.commit(WriteSet.of(new WriteOp.Add(ObjectPath.of(DATABASE), ObjectKind.INNER, new BsonDocument())));
            catalog.commit(WriteSet.of(new WriteOp.Add(table(), ObjectKind.INNER, new BsonDocument())));
            List<WriteOp> batch = new ArrayList<>();
            List<ObjectPath> level = List.of(table());
            for (int l = 0; l < depth; l++) {
                List<ObjectPath> next = new ArrayList<>();
                for (ObjectPath parent : level) {
                    for (long group = 0; group < fanOut; group++) {
                        ObjectPath partition = parent.child(partitionId(l, group));
                        next.add(partition);
                        batch.add(new WriteOp.Add(
                                partition,
                                ObjectKind.INNER,
                                new BsonDocument("lo", new BsonInt64(group * DOMAIN / fanOut))
                                        .append("hi", new BsonInt64((group + 1) * DOMAIN / fanOut))));
                        batch = flush(catalog, batch);
                    }
                }
                if (!batch.isEmpty()) {
                    catalog.commit(new WriteSet(batch));
                    batch = new ArrayList<>();
                }
                level = next;
            }
            for (int f = 0; f < files; f++) {
                long[] values = randomValues(random);
                batch.add(new WriteOp.Add(
                        partition(values).child(String.format("f%07d", f)), ObjectKind.LEAF, file(values)));
                batch = flush(catalog, batch);
            }
            if (!batch.isEmpty()) {
                catalog.commit(new WriteSet(batch));
            }
        }

        private static List<WriteOp> flush(CatalogService catalog, List<WriteOp> batch) {
            if (batch.size() < 5_000) {
                return batch;
            }
            catalog.commit(new WriteSet(batch));
            return new ArrayList<>();
        }
    }
}
