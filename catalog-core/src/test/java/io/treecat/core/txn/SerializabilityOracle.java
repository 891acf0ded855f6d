package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.NaiveEvaluator;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.ReferenceTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;

/**
 * Random concurrent transactions checked by an independent oracle: the committed read-write transactions are
 * replayed serially in commit-vid order on a reference model, and every read each of them made must equal what the
 * same read returns at its place in that serial order. Read-only transactions must equal the model at their read
 * vid. Predicate reads, point reads, adds, updates, subtree removes and merges, from many threads. On one node
 * ({@link TestSerializabilityOracle}) or spread over the nodes of a replicated group (catalog-replication), whose
 * stores must all end in the model's state.
 */
public final class SerializabilityOracle {
    private static final String[] TABLES = {"t0", "t1", "t2"};
    private static final int PARTITIONS = 4;
    /** Attempts at most, when writers keep aborting (a loaded machine makes MGL's wait-die kill more). */
    private static final int MAX_ATTEMPTS = 100_000;

    /** What one transaction read: a query's result paths and values, or one object. */
    private record Read(String query, ObjectPath point, List<String> result) {}

    private record History(long readVid, boolean readOnly, List<Read> reads, WriteSet writes, long commitVid) {}

    /** What a run did. */
    public record Outcome(int attempts, int committed, int aborted, int readOnly) {}

    private SerializabilityOracle() {}

    /**
     * Commits the setup through the first node, runs {@code transactions} random transactions (more while fewer
     * than {@code minWriteCommits} writers committed) from {@code threads} threads, thread t through node t mod the
     * node count, and checks the history and every node's final state against the model.
     *
     * @param seed varies the random transactions between runs that should differ (the protocols)
     */
    public static Outcome run(
            List<CatalogService> nodes, int threads, int transactions, int minWriteCommits, long seed, String label)
            throws Exception {
        WriteSet setup = setup();
        ReferenceTree model = new ReferenceTree();
        assertThat(model.commit(setup)).isTrue();
        long startVid = nodes.get(0).commit(setup).vid();

        List<History> histories = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        AtomicInteger writesCommitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            CatalogService node = nodes.get(thread % nodes.size());
            workers.add(pool.submit(() -> {
                Random random = new Random(thread * 7919L + seed);
                int fileNumber = 0;
                // Abort rates depend on timing, so the run goes on past `transactions` attempts until enough
                // writers committed for the check to mean something.
                while (attempts.incrementAndGet() <= transactions
                        || (writesCommitted.get() < minWriteCommits && attempts.get() <= MAX_ATTEMPTS)) {
                    History history = runOne(node, random, thread, fileNumber++);
                    if (history == null) {
                        aborted.incrementAndGet();
                    } else {
                        histories.add(history);
                        if (!history.readOnly()) {
                            writesCommitted.incrementAndGet();
                        }
                    }
                }
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(10, TimeUnit.MINUTES);
        }
        pool.shutdown();

        List<History> committed = new ArrayList<>();
        Map<Long, List<History>> readOnlyByVid = new HashMap<>();
        for (History history : histories) {
            if (history.readOnly()) {
                readOnlyByVid
                        .computeIfAbsent(history.readVid(), v -> new ArrayList<>())
                        .add(history);
            } else {
                committed.add(history);
            }
        }
        committed.sort((a, b) -> Long.compare(a.commitVid(), b.commitVid()));
        // Every vid after the setup belongs to exactly one committed transaction.
        for (int i = 0; i < committed.size(); i++) {
            assertThat(committed.get(i).commitVid()).isEqualTo(startVid + 1 + i);
        }
        assertThat(committed.size())
                .as("commits of %d attempts", attempts.get())
                .isGreaterThanOrEqualTo(minWriteCommits);

        checkReadOnly(readOnlyByVid.getOrDefault(startVid, List.of()), model.at(startVid));
        for (History history : committed) {
            long vid = history.commitVid();
            Map<ObjectPath, ReferenceTree.Entry> before = model.at(vid - 1);
            for (Read read : history.reads()) {
                assertThat(replay(read, before))
                        .as(
                                "%s: transaction committed at %d read %s",
                                label, vid, read.query() != null ? read.query() : read.point())
                        .isEqualTo(read.result());
            }
            assertThat(model.commit(history.writes()))
                    .as("the model accepts the writes committed at %d", vid)
                    .isTrue();
            checkReadOnly(readOnlyByVid.getOrDefault(vid, List.of()), model.at(vid));
            model.forgetBefore(vid - 1);
        }
        // Every store ends in the model's state.
        long last = startVid + committed.size();
        List<String> expected = new ArrayList<>();
        new TreeMap<>(model.at(model.lastVid())).forEach((path, entry) -> expected.add(render(path, entry.value())));
        expected.sort(null);
        for (CatalogService node : nodes) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (node.lastVid() < last) {
                assertThat(System.nanoTime()).as("a node reaches vid %d", last).isLessThan(deadline);
                Thread.sleep(10);
            }
            List<String> actual = new ArrayList<>();
            for (int depth = 1; depth <= 4; depth++) {
                // Nothing commits any more: the newest vid is the last one.
                node.query(QueryRequest.of("/*".repeat(depth)).withLimit(QueryRequest.MAX_LIMIT))
                        .rows()
                        .forEach(row -> actual.add(render(row.path(), row.value())));
            }
            actual.sort(null);
            assertThat(actual).isEqualTo(expected);
        }
        return new Outcome(attempts.get(), committed.size(), aborted.get(), histories.size() - committed.size());
    }

    private static WriteSet setup() {
        List<WriteOp> ops = new ArrayList<>();
        ops.add(new WriteOp.Add(ObjectPath.of("db"), ObjectKind.INNER, new BsonDocument()));
        for (String table : TABLES) {
            ops.add(new WriteOp.Add(ObjectPath.of("db", table), ObjectKind.INNER, BsonDocument.parse("{files: 0}")));
            for (int p = 0; p < PARTITIONS; p++) {
                ObjectPath partition = ObjectPath.of("db", table, "p" + p);
                ops.add(new WriteOp.Add(
                        partition,
                        ObjectKind.INNER,
                        BsonDocument.parse("{part_val: 'p" + p + "', hot: " + (p % 2 == 0) + "}")));
                for (int f = 0; f < 3; f++) {
                    ops.add(new WriteOp.Add(
                            partition.child("init" + f),
                            ObjectKind.LEAF,
                            BsonDocument.parse("{size: " + (f * 40) + "}")));
                }
            }
        }
        return new WriteSet(ops);
    }

    /** Runs one random transaction; returns its history if it committed (or was read-only), else null. */
    private static History runOne(CatalogService catalog, Random random, int thread, int fileNumber) {
        boolean readOnly = random.nextInt(8) == 0;
        Transaction txn =
                catalog.begin(readOnly ? TransactionMode.READ_ONLY : TransactionMode.READ_WRITE, ReadPoint.LATEST);
        String table = TABLES[random.nextInt(TABLES.length)];
        String partition = "p" + random.nextInt(PARTITIONS);
        List<Read> reads = new ArrayList<>();
        List<ObjectPath> seenFiles = new ArrayList<>();
        try {
            int readCount = 1 + random.nextInt(2);
            for (int r = 0; r < readCount; r++) {
                if (random.nextInt(3) == 0) {
                    ObjectPath point = ObjectPath.of("db", table);
                    reads.add(new Read(
                            null,
                            point,
                            catalog.get(txn.id(), point)
                                    .map(o -> List.of(render(o.path(), o.value())))
                                    .orElse(List.of())));
                } else {
                    int size = random.nextInt(100);
                    String query = random.nextBoolean()
                            ? "/[obj_id='db']/[obj_id='" + table + "']/[obj_id='" + partition + "']/[size >= " + size
                                    + "]"
                            : "/[obj_id='db']/[obj_id='" + table + "']/[hot = true]/[size < " + size + "]";
                    List<String> result = new ArrayList<>();
                    for (CatalogObject row : catalog.query(
                                    txn.id(), QueryRequest.of(query).withLimit(QueryRequest.MAX_LIMIT))
                            .rows()) {
                        result.add(render(row.path(), row.value()));
                        seenFiles.add(row.path());
                    }
                    reads.add(new Read(query, null, result));
                }
            }
            if (readOnly) {
                catalog.commit(txn.id(), null);
                return new History(txn.readVid(), true, reads, null, txn.readVid());
            }
            List<WriteOp> writes = new ArrayList<>();
            ObjectPath tablePath = ObjectPath.of("db", table);
            int choice = random.nextInt(4);
            if (choice == 0 || seenFiles.isEmpty()) {
                writes.add(new WriteOp.Add(
                        tablePath.child(partition).child("f" + thread + "_" + fileNumber),
                        ObjectKind.LEAF,
                        BsonDocument.parse("{size: " + random.nextInt(100) + "}")));
                writes.add(new WriteOp.Merge(tablePath, BsonDocument.parse("{files: {op: '+', val: 1}}")));
            } else if (choice == 1) {
                writes.add(new WriteOp.Remove(seenFiles.get(random.nextInt(seenFiles.size()))));
                writes.add(new WriteOp.Merge(tablePath, BsonDocument.parse("{files: {op: '-', val: 1}}")));
            } else if (choice == 2) {
                // Derived from what was read: the kind of write that write skew and lost updates break.
                writes.add(new WriteOp.Update(
                        tablePath,
                        ObjectKind.INNER,
                        BsonDocument.parse("{files: " + seenFiles.size() + ", by: " + thread + "}")));
            } else {
                writes.add(new WriteOp.Update(
                        tablePath.child(partition),
                        ObjectKind.INNER,
                        BsonDocument.parse("{part_val: '" + partition + "', hot: " + random.nextBoolean() + "}")));
            }
            WriteSet writeSet = new WriteSet(writes);
            CommitResult result = catalog.commit(txn.id(), writeSet);
            return new History(txn.readVid(), false, reads, writeSet, result.vid());
        } catch (CatalogException e) {
            return null;
        }
    }

    private static List<String> replay(Read read, Map<ObjectPath, ReferenceTree.Entry> state) {
        if (read.point() != null) {
            ReferenceTree.Entry entry = state.get(read.point());
            return entry == null ? List.of() : List.of(render(read.point(), entry.value()));
        }
        List<String> result = new ArrayList<>();
        for (ObjectPath path : NaiveEvaluator.evaluate(QueryParser.parse(read.query()), state, ChildKinds.BOTH)) {
            result.add(render(path, state.get(path).value()));
        }
        return result;
    }

    private static void checkReadOnly(List<History> readOnly, Map<ObjectPath, ReferenceTree.Entry> state) {
        for (History history : readOnly) {
            for (Read read : history.reads()) {
                assertThat(replay(read, state))
                        .as("read-only at %d: %s", history.readVid(), read)
                        .isEqualTo(read.result());
            }
        }
    }

    private static String render(ObjectPath path, BsonDocument value) {
        return path + " " + value.toJson();
    }
}
