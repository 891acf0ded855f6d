package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The classic anomalies, the paper's precision example, and session behaviour, per protocol. */
class TestTransactions {
    @TempDir
    Path directory;

    private final MutableClock clock = new MutableClock();
    private CatalogService catalog;

    private void open(ConcurrencyProtocol protocol) {
        TransactionConfig config = TransactionConfig.defaults()
                .withProtocol(protocol)
                .withLockTimeout(Duration.ofMillis(300))
                .withIdleTimeout(Duration.ofMinutes(1));
        catalog = new CatalogService(VersionedTree.open(RocksKvStore.open(directory)), config, clock);
    }

    @AfterEach
    void close() {
        if (catalog != null) {
            catalog.close();
        }
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    private static ObjectPath path(String text) {
        return ObjectPath.parse(text);
    }

    private void setUp(String... pathsAndValues) {
        List<WriteOp> ops = new ArrayList<>();
        for (int i = 0; i < pathsAndValues.length; i += 2) {
            String p = pathsAndValues[i];
            ObjectKind kind = p.startsWith("leaf:") ? ObjectKind.LEAF : ObjectKind.INNER;
            ops.add(new WriteOp.Add(path(p.replace("leaf:", "")), kind, doc(pathsAndValues[i + 1])));
        }
        catalog.commit(new WriteSet(ops));
    }

    private Transaction begin() {
        return catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
    }

    private List<String> query(Transaction txn, String query) {
        return catalog.query(txn.id(), QueryRequest.of(query)).rows().stream()
                .map(row -> row.path().toString())
                .toList();
    }

    private CatalogException commitFails(Transaction txn, WriteOp... ops) {
        try {
            catalog.commit(txn.id(), WriteSet.of(ops));
        } catch (CatalogException e) {
            return e;
        }
        return null;
    }

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void phantomsArePrevented(ConcurrencyProtocol protocol) {
        open(protocol);
        setUp("/t", "{}", "leaf:/t/f1", "{size: 20}", "/summary", "{big: 0}");
        Transaction reader = begin();
        Transaction inserter = begin();
        assertThat(query(reader, "/[obj_id='t']/[size > 10]")).containsExactly("/t/f1");

        CatalogException inserted =
                commitFails(inserter, new WriteOp.Add(path("/t/f2"), ObjectKind.LEAF, doc("{size: 30}")));
        CatalogException summarized =
                commitFails(reader, new WriteOp.Update(path("/summary"), ObjectKind.INNER, doc("{big: 1}")));

        // The reader counted one big file; both committing would make that count a phantom.
        assertThat(inserted == null && summarized == null).isFalse();
        if (protocol == ConcurrencyProtocol.MGL) {
            assertThat(inserted).hasMessageContaining("wait-die");
            assertThat(summarized).isNull();
        } else {
            assertThat(inserted).isNull();
            assertThat(summarized.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
            assertThat(summarized)
                    .hasMessage(
                            "Commit conflict: /t/f2 changed after version 1 under /t, which this transaction read with [size > 10]");
            assertThat(summarized.context()).containsEntry("path", "/t").containsEntry("predicate", "[size > 10]");
        }
    }

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void writeSkewIsPrevented(ConcurrencyProtocol protocol) throws Exception {
        open(protocol);
        setUp("/oncall", "{}", "/oncall/alice", "{on: true}", "/oncall/bob", "{on: true}");
        Transaction first = begin();
        Transaction second = begin();
        assertThat(query(first, "/[obj_id='oncall']/[on = true]")).hasSize(2);
        assertThat(query(second, "/[obj_id='oncall']/[on = true]")).hasSize(2);

        // Each takes itself off call because the other is still on; at least one must fail.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<CatalogException> one = threads.submit(() -> commitFails(
                    first, new WriteOp.Update(path("/oncall/alice"), ObjectKind.INNER, doc("{on: false}"))));
            Future<CatalogException> two = threads.submit(() ->
                    commitFails(second, new WriteOp.Update(path("/oncall/bob"), ObjectKind.INNER, doc("{on: false}"))));
            CatalogException a = one.get(10, TimeUnit.SECONDS);
            CatalogException b = two.get(10, TimeUnit.SECONDS);
            assertThat(a == null && b == null)
                    .as("both took themselves off call")
                    .isFalse();
            for (CatalogException failure : new CatalogException[] {a, b}) {
                if (failure != null) {
                    assertThat(failure.category()).isEqualTo(ErrorCategory.CONFLICT);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        long onCall = catalog.query(QueryRequest.of("/[obj_id='oncall']/[on = true]"))
                .rows()
                .size();
        assertThat(onCall).isGreaterThanOrEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void lostUpdatesArePrevented(ConcurrencyProtocol protocol) throws Exception {
        open(protocol);
        setUp("/counter", "{n: 1}");
        Transaction first = begin();
        Transaction second = begin();
        int seenByFirst = catalog.get(first.id(), path("/counter"))
                .orElseThrow()
                .value()
                .getInt32("n")
                .getValue();
        int seenBySecond = catalog.get(second.id(), path("/counter"))
                .orElseThrow()
                .value()
                .getInt32("n")
                .getValue();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<CatalogException> one = threads.submit(() -> commitFails(
                    first,
                    new WriteOp.Update(path("/counter"), ObjectKind.INNER, doc("{n: " + (seenByFirst + 1) + "}"))));
            Future<CatalogException> two = threads.submit(() -> commitFails(
                    second,
                    new WriteOp.Update(path("/counter"), ObjectKind.INNER, doc("{n: " + (seenBySecond + 1) + "}"))));
            CatalogException a = one.get(10, TimeUnit.SECONDS);
            CatalogException b = two.get(10, TimeUnit.SECONDS);
            assertThat(a == null && b == null)
                    .as("both increments committed from the same read")
                    .isFalse();
        } finally {
            threads.shutdownNow();
        }
        assertThat(catalog.get(path("/counter"), ReadPoint.LATEST)
                        .orElseThrow()
                        .value()
                        .getInt32("n")
                        .getValue())
                .isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void theReadOnlyAnomalyIsPrevented(ConcurrencyProtocol protocol) {
        // Fekete, O'Neil, O'Neil (2004): checking X and savings Y, both 0. T2 withdraws 10 from Y with a
        // penalty of 1 if X + Y would go negative; T1 deposits 20 into X; read-only T3 sees X and Y.
        open(protocol);
        setUp("/x", "{balance: 0}", "/y", "{balance: 0}");
        Transaction withdraw = begin();
        int x = catalog.get(withdraw.id(), path("/x"))
                .orElseThrow()
                .value()
                .getInt32("balance")
                .getValue();
        int y = catalog.get(withdraw.id(), path("/y"))
                .orElseThrow()
                .value()
                .getInt32("balance")
                .getValue();

        Transaction deposit = begin();
        int x1 = catalog.get(deposit.id(), path("/x"))
                .orElseThrow()
                .value()
                .getInt32("balance")
                .getValue();
        CatalogException depositFailure = commitFails(
                deposit, new WriteOp.Update(path("/x"), ObjectKind.INNER, doc("{balance: " + (x1 + 20) + "}")));

        Transaction report = catalog.begin(TransactionMode.READ_ONLY, ReadPoint.LATEST);
        int reportX = catalog.get(report.id(), path("/x"))
                .orElseThrow()
                .value()
                .getInt32("balance")
                .getValue();
        int reportY = catalog.get(report.id(), path("/y"))
                .orElseThrow()
                .value()
                .getInt32("balance")
                .getValue();
        catalog.commit(report.id(), null);

        int newY = x + y - 10 < 0 ? y - 11 : y - 10;
        CatalogException withdrawFailure =
                commitFails(withdraw, new WriteOp.Update(path("/y"), ObjectKind.INNER, doc("{balance: " + newY + "}")));

        // Under snapshot isolation all three commit and the report (X=20, Y=0) fits no serial order in
        // which the withdrawal charged its penalty. Here one of the writers must fail.
        assertThat(depositFailure == null && withdrawFailure == null).isFalse();
        if (depositFailure == null) {
            assertThat(reportX).isEqualTo(20);
            assertThat(withdrawFailure.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
        } else {
            assertThat(reportX).isZero();
        }
        assertThat(reportY).isZero();
    }

    @Test
    void ospLetsANonMatchingInsertThroughWhereOslAbortsTheReader() {
        for (ConcurrencyProtocol protocol : List.of(ConcurrencyProtocol.OSPL, ConcurrencyProtocol.OSL)) {
            open(protocol);
            setUp(
                    "/sales",
                    "{}",
                    "leaf:/sales/f1",
                    "{stats: {price: {min: 120}}}",
                    "leaf:/sales/f2",
                    "{stats: {price: {min: 80}}}",
                    "/plans",
                    "{}");
            // The paper's §5.1 example: T1 reads files by a predicate on their statistics while T2 adds a
            // file that does not satisfy it.
            Transaction reader = begin();
            assertThat(query(reader, "/[obj_id='sales']/[stats.price.min > 100]"))
                    .containsExactly("/sales/f1");
            Transaction writer = begin();
            assertThat(commitFails(
                            writer,
                            new WriteOp.Add(path("/sales/f3"), ObjectKind.LEAF, doc("{stats: {price: {min: 5}}}"))))
                    .isNull();
            CatalogException readerFailure =
                    commitFails(reader, new WriteOp.Add(path("/plans/p1"), ObjectKind.INNER, doc("{files: 1}")));
            if (protocol == ConcurrencyProtocol.OSPL) {
                assertThat(readerFailure).as("OSPL").isNull();
            } else {
                assertThat(readerFailure).as("OSL").isNotNull();
                assertThat(readerFailure.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
            }
            catalog.close();
            catalog = null;
            directory = directory.resolve("next");
        }
    }

    @Test
    void ospLStillCatchesAMatchingInsertAndARemovalOfAMatch() {
        open(ConcurrencyProtocol.OSPL);
        setUp("/sales", "{}", "leaf:/sales/f1", "{stats: {price: {min: 120}}}", "/plans", "{}");
        Transaction reader = begin();
        assertThat(query(reader, "/[obj_id='sales']/[stats.price.min > 100]")).hasSize(1);
        catalog.commit(WriteSet.of(new WriteOp.Remove(path("/sales/f1"))));
        assertThat(commitFails(reader, new WriteOp.Add(path("/plans/p1"), ObjectKind.INNER, doc("{}"))))
                .hasMessageContaining("/sales/f1 changed after version");
    }

    @Test
    void ospLIgnoresValueChangesToObjectsAQueryOnlyNavigatedThrough() {
        open(ConcurrencyProtocol.OSPL);
        setUp(
                "/db",
                "{}",
                "/db/sales",
                "{obj_type: 'table', files: 1}",
                "/db/sales/p1",
                "{part_val: '2025-01-01'}",
                "leaf:/db/sales/p1/f1",
                "{owner: 'a'}",
                "/plans",
                "{}");
        Transaction reader = begin();
        assertThat(query(reader, "/[obj_id='db']/[obj_type='table']/[part_val >= '2025']/[owner = 'a']"))
                .containsExactly("/db/sales/p1/f1");
        // Writers bump the table's statistics and the partition's value; both stay matches of the steps
        // the reader navigated through, and neither changes a returned object.
        catalog.commit(WriteSet.of(new WriteOp.Merge(path("/db/sales"), doc("{files: {op: '+', val: 1}}"))));
        catalog.commit(WriteSet.of(
                new WriteOp.Update(path("/db/sales/p1"), ObjectKind.INNER, doc("{part_val: '2025-01-01', rows: 10}"))));
        assertThat(commitFails(reader, new WriteOp.Add(path("/plans/p"), ObjectKind.INNER, doc("{}"))))
                .isNull();

        // But a change that makes a navigated object stop matching does conflict.
        Transaction second = begin();
        assertThat(query(second, "/[obj_id='db']/[obj_type='table']/[part_val >= '2025']/[owner = 'a']"))
                .hasSize(1);
        catalog.commit(WriteSet.of(
                new WriteOp.Update(path("/db/sales/p1"), ObjectKind.INNER, doc("{part_val: '2024-12-31'}"))));
        assertThat(commitFails(second, new WriteOp.Add(path("/plans/q"), ObjectKind.INNER, doc("{}"))))
                .hasMessageContaining("/db/sales/p1 changed after version");
    }

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void readOnlyTransactionsReadTheirSnapshotAndNeverAbort(ConcurrencyProtocol protocol) {
        open(protocol);
        setUp("/t", "{v: 1}");
        Transaction snapshot = catalog.begin(TransactionMode.READ_ONLY, ReadPoint.LATEST);
        Transaction writer = begin();
        catalog.get(writer.id(), path("/t"));
        catalog.commit(writer.id(), WriteSet.of(new WriteOp.Update(path("/t"), ObjectKind.INNER, doc("{v: 2}"))));
        assertThat(catalog.get(snapshot.id(), path("/t")).orElseThrow().value()).isEqualTo(doc("{v: 1}"));
        assertThat(query(snapshot, "/*")).containsExactly("/t");
        assertThatThrownBy(() -> catalog.commit(snapshot.id(), WriteSet.of(new WriteOp.Remove(path("/t")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("A read-only transaction cannot write");
    }

    @Test
    void idleSessionsExpireAndFreeTheirResources() {
        open(ConcurrencyProtocol.OSPL);
        setUp("/t", "{}");
        Transaction idle = begin();
        Transaction active = begin();
        clock.advance(Duration.ofSeconds(50));
        catalog.transactions().find(active.id());
        clock.advance(Duration.ofSeconds(20));
        assertThat(catalog.transactions().expireIdleSessions()).isEqualTo(1);
        assertThatThrownBy(() -> query(idle, "/*"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No open transaction " + idle.id() + " (it committed, aborted or expired)");
        assertThat(catalog.transactions().openSessions()).isEqualTo(1);
        catalog.abort(active.id());
        assertThat(catalog.transactions().openSessions()).isZero();
    }

    @Test
    void theWatermarkFreesValidationState() {
        open(ConcurrencyProtocol.OSPL);
        setUp("/t", "{}");
        Transaction old = begin();
        for (int i = 0; i < 5; i++) {
            catalog.commit(WriteSet.of(new WriteOp.Add(path("/t/f" + i), ObjectKind.LEAF, doc("{}"))));
        }
        catalog.transactions().collectGarbage();
        // The open transaction may still need every change after its read vid.
        assertThat(catalog.transactions().trackedChanges()).isEqualTo(5);
        catalog.abort(old.id());
        catalog.transactions().collectGarbage();
        assertThat(catalog.transactions().trackedChanges()).isZero();
        assertThatThrownBy(() -> catalog.begin(TransactionMode.READ_WRITE, ReadPoint.vid(2)))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "A read-write transaction cannot start at version 2: commits after it are no longer tracked (oldest: 6)");
        assertThat(catalog.begin(TransactionMode.READ_ONLY, ReadPoint.vid(2)).readVid())
                .isEqualTo(2);
    }

    @Test
    void concurrentCommitsGetContiguousVidsAndAllSurvive() throws Exception {
        open(ConcurrencyProtocol.OSPL);
        setUp("/t", "{}");
        long start = catalog.lastVid();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<CommitResult>> commits = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            int n = i;
            commits.add(threads.submit(() -> catalog.commit(WriteSet.of(
                    new WriteOp.Add(path("/t/f" + n), ObjectKind.LEAF, doc("{}")),
                    new WriteOp.Merge(path("/t"), doc("{files: {op: '+', val: 1}}"))))));
        }
        List<Long> vids = new ArrayList<>();
        for (Future<CommitResult> commit : commits) {
            vids.add(commit.get(30, TimeUnit.SECONDS).vid());
        }
        threads.shutdown();
        vids.sort(null);
        for (int i = 0; i < vids.size(); i++) {
            assertThat(vids.get(i)).isEqualTo(start + 1 + i);
        }
        CatalogObject table = catalog.get(path("/t"), ReadPoint.LATEST).orElseThrow();
        assertThat(table.value().getInt32("files").getValue()).isEqualTo(400);
    }

    @Test
    void largeScanSetsAreValidatedInParallelPartitions() {
        TransactionConfig config =
                new TransactionConfig(ConcurrencyProtocol.OSPL, Duration.ofMinutes(1), Duration.ofSeconds(1), 3, 4);
        catalog = new CatalogService(VersionedTree.open(RocksKvStore.open(directory)), config, clock);
        List<String> setup = new ArrayList<>();
        for (int p = 0; p < 20; p++) {
            setup.add("/p" + p);
            setup.add("{n: " + p + "}");
        }
        setUp(setup.toArray(String[]::new));
        Transaction reader = begin();
        for (int p = 0; p < 20; p++) {
            assertThat(query(reader, "/[obj_id='p" + p + "']/*")).isEmpty();
        }
        assertThat(reader.scanSet()).hasSize(40);
        catalog.commit(WriteSet.of(new WriteOp.Add(path("/p17/x"), ObjectKind.LEAF, doc("{}"))));
        assertThat(commitFails(reader, new WriteOp.Add(path("/p1/y"), ObjectKind.LEAF, doc("{}"))))
                .hasMessage(
                        "Commit conflict: /p17/x changed after version 1 under /p17, which this transaction read with *");

        Transaction untouched = begin();
        for (int p = 0; p < 10; p++) {
            query(untouched, "/[obj_id='p" + p + "']/*");
        }
        catalog.commit(WriteSet.of(new WriteOp.Add(path("/p17/z"), ObjectKind.LEAF, doc("{}"))));
        assertThat(commitFails(untouched, new WriteOp.Add(path("/p1/y"), ObjectKind.LEAF, doc("{}"))))
                .isNull();
    }

    @Test
    void unknownTransactionIdsAreClearErrors() {
        open(ConcurrencyProtocol.OSPL);
        assertThatThrownBy(() -> TransactionId.valueOf("nope"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Not a transaction id: 'nope'");
        TransactionId unknown = TransactionId.create();
        assertThatThrownBy(() -> catalog.abort(unknown))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No open transaction " + unknown + " (it committed, aborted or expired)");
    }
}
