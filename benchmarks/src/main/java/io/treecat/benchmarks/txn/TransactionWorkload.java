package io.treecat.benchmarks.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.ConcurrencyProtocol;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The transaction benchmarks (issue 3), as a workload driver that prints markdown:
 *
 * <ol>
 *   <li>Commit latency of a one-leaf transaction (p50, p99) next to the raw fsync latency of this
 *       machine measured in the same run: a 4 KiB append + {@code FileChannel.force}, and a synced
 *       RocksDB put.
 *   <li>Commit throughput, abort rate and p99 latency with 1..32 client threads, per protocol, on
 *       disjoint tables and on one hot table whose writers' predicates never overlap.
 * </ol>
 *
 * <p>Usage: {@code TransactionWorkload [--seconds S] [--threads 1,2,4] [--protocols OSPL,OSL,MGL]
 * [--samples N] [--dir DIR]}
 */
public final class TransactionWorkload {
    private TransactionWorkload() {}

    public static void main(String[] args) throws Exception {
        double seconds = 3;
        int samples = 2000;
        int[] threadCounts = {1, 2, 4, 8, 16, 32};
        List<ConcurrencyProtocol> protocols = List.of(ConcurrencyProtocol.values());
        Path base = Path.of("benchmarks/target/txn-workload");
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Missing value for " + args[i]);
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--seconds" -> seconds = Double.parseDouble(value);
                case "--samples" -> samples = Integer.parseInt(value);
                case "--threads" ->
                    threadCounts = Arrays.stream(value.split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--protocols" ->
                    protocols = Arrays.stream(value.split(","))
                            .map(ConcurrencyProtocol::valueOf)
                            .toList();
                case "--dir" -> base = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        deleteRecursively(base);
        Files.createDirectories(base);

        System.out.printf("## Commit latency (%d samples each, one thread)%n%n", samples);
        System.out.println("| what | p50 ms | p99 ms |");
        System.out.println("|---|---|---|");
        long[] fsync = fsyncLatency(base.resolve("fsync.bin"), samples);
        row("raw fsync: 4 KiB append + FileChannel.force", fsync);
        long[] rocks = rocksSyncedPutLatency(base.resolve("raw-rocksdb"), samples);
        row("raw RocksDB put with sync=true", rocks);
        long[] commit = commitLatency(base.resolve("latency"), samples);
        row("TreeCat one-leaf commit (OSPL, group commit)", commit);
        System.out.printf(
                "%nTreeCat commit p50 / fsync p50 = %.2f (goal: at most 2)%n%n",
                percentile(commit, 50) / (double) percentile(fsync, 50));

        // Warm up the JIT on the commit path before the measured cells.
        throughput(base.resolve("warmup"), ConcurrencyProtocol.OSPL, true, 4, Math.max(1, seconds));
        System.out.printf(Locale.ROOT, "## Throughput (%.1f s per cell)%n%n", seconds);
        System.out.println("| protocol | workload | threads | commits/s | abort rate | p99 ms |");
        System.out.println("|---|---|---|---|---|---|");
        int run = 0;
        for (boolean hot : new boolean[] {false, true}) {
            for (ConcurrencyProtocol protocol : protocols) {
                for (int threads : threadCounts) {
                    Result result = throughput(base.resolve("run" + run++), protocol, hot, threads, seconds);
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %s | %d | %.0f | %.1f%% | %.2f |%n",
                            protocol,
                            hot ? "hot table" : "disjoint tables",
                            threads,
                            result.commits / seconds,
                            100.0 * result.aborts / Math.max(1, result.commits + result.aborts),
                            result.p99Nanos / 1e6);
                }
            }
        }
    }

    private record Result(long commits, long aborts, long p99Nanos) {}

    private static void row(String what, long[] nanos) {
        System.out.printf(
                Locale.ROOT, "| %s | %.3f | %.3f |%n", what, percentile(nanos, 50) / 1e6, percentile(nanos, 99) / 1e6);
    }

    private static long percentile(long[] sortedNanos, double percent) {
        int index = (int) Math.ceil(percent / 100.0 * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, index))];
    }

    private static long[] fsyncLatency(Path file, int samples) throws IOException {
        long[] nanos = new long[samples];
        ByteBuffer block = ByteBuffer.allocateDirect(4096);
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (int i = 0; i < samples; i++) {
                block.clear();
                long start = System.nanoTime();
                channel.write(block);
                channel.force(false);
                nanos[i] = System.nanoTime() - start;
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static long[] rocksSyncedPutLatency(Path directory, int samples) throws RocksDBException {
        RocksDB.loadLibrary();
        long[] nanos = new long[samples];
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, directory.toString());
                WriteOptions sync = new WriteOptions().setSync(true)) {
            byte[] value = new byte[200];
            for (int i = 0; i < samples; i++) {
                byte[] key = ("key" + i).getBytes(StandardCharsets.UTF_8);
                long start = System.nanoTime();
                db.put(sync, key, value);
                nanos[i] = System.nanoTime() - start;
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static long[] commitLatency(Path directory, int samples) {
        long[] nanos = new long[samples];
        try (CatalogService catalog = CatalogService.open(directory)) {
            catalog.commit(WriteSet.of(new WriteOp.Add(ObjectPath.of("t"), ObjectKind.INNER, new BsonDocument())));
            BsonDocument file = BsonDocument.parse(
                    "{location: 'file:/warehouse/t/data/00000.parquet', size: 1048576, records: 1000}");
            for (int i = 0; i < samples; i++) {
                WriteSet writes = WriteSet.of(new WriteOp.Add(ObjectPath.of("t", "f" + i), ObjectKind.LEAF, file));
                long start = System.nanoTime();
                catalog.commit(writes);
                nanos[i] = System.nanoTime() - start;
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    /**
     * Each client repeats: read its own files by a predicate on their owner, then add a file, remove
     * its previous one and merge the table's file count. On disjoint tables, client k uses table tk;
     * on the hot table all clients share one table, but no client's predicate matches another's files.
     */
    private static Result throughput(
            Path directory, ConcurrencyProtocol protocol, boolean hot, int threads, double seconds) throws Exception {
        TransactionConfig config =
                TransactionConfig.defaults().withProtocol(protocol).withLockTimeout(Duration.ofMillis(200));
        try (CatalogService catalog = CatalogService.open(directory, RocksStoreOptions.defaults(), config)) {
            List<WriteOp> setup = new ArrayList<>();
            setup.add(new WriteOp.Add(ObjectPath.of("db"), ObjectKind.INNER, new BsonDocument()));
            for (int t = 0; t < (hot ? 1 : threads); t++) {
                setup.add(new WriteOp.Add(
                        table(hot, t), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'table', files: 0}")));
            }
            catalog.commit(new WriteSet(setup));
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong commits = new AtomicLong();
            AtomicLong aborts = new AtomicLong();
            List<long[]> latencies = new ArrayList<>();
            List<Thread> clients = new ArrayList<>();
            CountDownLatch started = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int client = t;
                long[] mine = new long[1 << 20];
                latencies.add(mine);
                Thread thread = new Thread(
                        () -> {
                            started.countDown();
                            ObjectPath table = table(hot, client);
                            String owner = "w" + client;
                            String query = "/[obj_id='db']/[obj_id='" + table.id() + "']/[owner = '" + owner + "']";
                            ObjectPath previous = null;
                            int n = 0;
                            int recorded = 0;
                            while (running.get()) {
                                long start = System.nanoTime();
                                Transaction txn = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
                                try {
                                    catalog.query(txn.id(), QueryRequest.of(query));
                                    ObjectPath file = table.child(owner + "-" + n++);
                                    List<WriteOp> writes = new ArrayList<>();
                                    writes.add(new WriteOp.Add(
                                            file,
                                            ObjectKind.LEAF,
                                            BsonDocument.parse("{owner: '" + owner + "', size: " + n + "}")));
                                    if (previous != null) {
                                        writes.add(new WriteOp.Remove(previous));
                                    }
                                    writes.add(
                                            new WriteOp.Merge(table, BsonDocument.parse("{files: {op: '+', val: 1}}")));
                                    catalog.commit(txn.id(), new WriteSet(writes));
                                    previous = file;
                                    commits.incrementAndGet();
                                    if (recorded < mine.length) {
                                        mine[recorded++] = System.nanoTime() - start;
                                    }
                                } catch (CatalogException e) {
                                    if (e.category() != ErrorCategory.CONFLICT) {
                                        throw e;
                                    }
                                    aborts.incrementAndGet();
                                }
                            }
                        },
                        "client-" + t);
                clients.add(thread);
                thread.start();
            }
            started.await();
            Thread.sleep((long) (seconds * 1000));
            running.set(false);
            for (Thread thread : clients) {
                thread.join();
            }
            long[] all = latencies.stream()
                    .flatMapToLong(Arrays::stream)
                    .filter(v -> v > 0)
                    .sorted()
                    .toArray();
            return new Result(commits.get(), aborts.get(), all.length == 0 ? 0 : percentile(all, 99));
        }
    }

    private static ObjectPath table(boolean hot, int client) {
        return ObjectPath.of("db", hot ? "hot" : "t" + client);
    }

    private static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            walk.sorted((a, b) -> b.compareTo(a)).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
