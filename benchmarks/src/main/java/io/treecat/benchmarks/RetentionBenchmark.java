package io.treecat.benchmarks;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * Proof that retention bounds the store (issue 16): rewrites the same objects (10,000 leaves of one
 * table by default) continuously, with time-based retention (1 minute by default) and the collector
 * running in the background, and prints the store's size over time: RocksDB's {@code
 * rocksdb.estimate-live-data-size} and {@code rocksdb.total-sst-files-size} summed over the key
 * spaces, plus RocksDB's estimate of the keys stored, memtables and the directory on disk (write-ahead
 * log included). With {@code --gc false} the same workload runs
 * without the collector, for the growth it prevents.
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.RetentionBenchmark \
 *     --minutes 30 --objects 10000 --per-commit 500 --rate 5000 --retain 60s --gc-interval 10s --sample 30s
 * </pre>
 */
public final class RetentionBenchmark {
    private RetentionBenchmark() {}

    public static void main(String[] args) throws Exception {
        double minutes = 30;
        int objects = 10_000;
        int perCommit = 500;
        long rate = 5_000;
        Duration retain = Duration.ofMinutes(1);
        Duration interval = Duration.ofSeconds(10);
        Duration sample = Duration.ofSeconds(30);
        boolean gc = true;
        Path directory = Path.of("benchmarks/target/retention");
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Missing value for " + args[i]);
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--minutes" -> minutes = Double.parseDouble(value);
                case "--objects" -> objects = Integer.parseInt(value);
                case "--per-commit" -> perCommit = Integer.parseInt(value);
                case "--rate" -> rate = Long.parseLong(value);
                case "--retain" -> retain = seconds(value);
                case "--gc-interval" -> interval = seconds(value);
                case "--sample" -> sample = seconds(value);
                case "--gc" -> gc = Boolean.parseBoolean(value);
                case "--dir" -> directory = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        deleteRecursively(directory);
        RocksKvStore store = RocksKvStore.open(directory, RocksStoreOptions.defaults());
        VersionedTree tree = VersionedTree.open(store);
        RetentionConfig retention = RetentionConfig.defaults()
                .withRetention(Optional.of(retain), OptionalLong.empty())
                .withInterval(interval)
                .withEnabled(gc);
        try (CatalogService catalog = new CatalogService(tree, TransactionConfig.defaults(), Clock.systemUTC());
                GarbageCollector collector = new GarbageCollector(tree, retention, Clock.systemUTC())) {
            ObjectPath table = ObjectPath.parse("/bench/t");
            catalog.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.parse("/bench"), ObjectKind.INNER, new BsonDocument()),
                    new WriteOp.Add(table, ObjectKind.INNER, new BsonDocument())));
            collector.start();
            System.out.printf(
                    Locale.ROOT,
                    "# %d objects, %d per commit, %d objects/s, retain %s, gc %s every %s, %.1f minutes%n%n",
                    objects,
                    perCommit,
                    rate,
                    retain,
                    gc ? "on" : "off",
                    interval,
                    minutes);
            System.out.println(
                    "| minute | commits | newest vid | horizon | keys (estimate) | live data (estimate) MiB | SST files MiB | memtables MiB | on disk MiB | keys reclaimed |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            long start = System.nanoTime();
            long end = start + (long) (minutes * 60e9);
            long nextSample = start;
            long written = 0;
            long commits = 0;
            int round = 0;
            while (true) {
                long now = System.nanoTime();
                if (now >= nextSample) {
                    report(store, tree, collector, directory, (now - start) / 60e9, commits);
                    nextSample += sample.toNanos();
                }
                if (now >= end) {
                    break;
                }
                // Paced: the writes so far may not run ahead of the rate.
                long due = start + written * 1_000_000_000L / rate;
                if (due > now) {
                    Thread.sleep(Math.max(1, (due - now) / 1_000_000));
                    continue;
                }
                List<WriteOp> ops = new ArrayList<>(perCommit);
                for (int i = 0; i < perCommit; i++) {
                    int n = (int) ((written + i) % objects);
                    ops.add(new WriteOp.Update(table.child("f" + n), ObjectKind.LEAF, file(n, round)));
                }
                catalog.commit(new WriteSet(ops));
                written += perCommit;
                commits++;
                round = (int) (written / objects);
            }
        }
    }

    private static BsonDocument file(int n, int round) {
        return new BsonDocument("location", new BsonString("s3://lake/bench/t/data/f" + n + "-" + round + ".parquet"))
                .append("size", new BsonInt64(1_000_000L + n))
                .append("rows", new BsonInt64(10_000L + round));
    }

    private static void report(
            KvStore store, VersionedTree tree, GarbageCollector collector, Path directory, double minute, long commits)
            throws IOException {
        System.out.printf(
                Locale.ROOT,
                "| %.1f | %d | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %d |%n",
                minute,
                commits,
                tree.lastVid(),
                tree.horizon(),
                store.longProperty("rocksdb.estimate-num-keys").orElse(-1),
                mib(store.longProperty("rocksdb.estimate-live-data-size").orElse(-1)),
                mib(store.longProperty("rocksdb.total-sst-files-size").orElse(-1)),
                mib(store.longProperty("rocksdb.cur-size-all-mem-tables").orElse(-1)),
                mib(directorySize(directory)),
                collector.keysReclaimed());
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    private static long directorySize(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(path -> {
                        try {
                            return Files.size(path);
                        } catch (IOException e) {
                            return 0; // Deleted by a compaction while we walked.
                        }
                    })
                    .sum();
        }
    }

    /** {@code 60s}, {@code 10s}, {@code 2m}. */
    private static Duration seconds(String value) {
        if (value.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(value.endsWith("s") ? value.substring(0, value.length() - 1) : value));
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
