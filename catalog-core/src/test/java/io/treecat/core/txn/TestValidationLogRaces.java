package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-memory validation log against what trims it: the idle sweeper, the collector and the bound
 * on its size. A conflict must never go unseen because a transaction's read vid stopped holding the
 * log while it was being validated, and a transaction that holds the log too long is told why it
 * ended.
 */
class TestValidationLogRaces {
    private static final Duration IDLE = Duration.ofSeconds(30);

    @TempDir
    Path directory;

    private final MutableClock clock = new MutableClock();
    private CatalogService catalog;

    @AfterEach
    void close() {
        if (catalog != null) {
            catalog.close();
        }
    }

    /**
     * Read-increment-write of one counter by several transactions while a sweeper expires every
     * session it can and collects the log after each sweep: serializable execution means the counter
     * ends equal to the number of commits that succeeded. Before the fix, a session expired between
     * its commit's lookup and the start of that commit stopped holding the watermark, the collector
     * dropped the changes its validation needed, and two increments from the same value both committed.
     */
    @Test
    void noIncrementIsLostWhileSessionsExpireAndTheLogIsCollected() throws Exception {
        open(TransactionConfig.defaults().withIdleTimeout(IDLE));
        catalog.commit(WriteSet.of(new WriteOp.Add(counter(), ObjectKind.INNER, doc("{n: 0}"))));
        AtomicInteger committed = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                workers.add(threads.submit(() -> {
                    for (int attempt = 0; attempt < 600; attempt++) {
                        incrementOnce(committed);
                    }
                    return null;
                }));
            }
            Future<?> sweeper = threads.submit(() -> {
                while (running.get()) {
                    clock.advance(IDLE.multipliedBy(2));
                    catalog.transactions().expireIdleSessions();
                    Thread.onSpinWait();
                }
                return null;
            });
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
            running.set(false);
            sweeper.get(10, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            threads.shutdownNow();
        }
        assertThat(committed.get()).as("some increments committed").isPositive();
        assertThat(counterValue()).isEqualTo(committed.get());
    }

    private void incrementOnce(AtomicInteger committed) {
        try {
            Transaction txn = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
            int n = catalog.get(txn.id(), counter())
                    .orElseThrow()
                    .value()
                    .getInt32("n")
                    .getValue();
            catalog.commit(
                    txn.id(),
                    WriteSet.of(new WriteOp.Update(counter(), ObjectKind.INNER, doc("{n: " + (n + 1) + "}"))));
            committed.incrementAndGet();
        } catch (CatalogException e) {
            // Expired (TRANSACTION_NOT_FOUND) or lost a race (COMMIT_CONFLICT): nothing committed.
            assertThat(e.code()).isIn(ErrorCode.TRANSACTION_NOT_FOUND, ErrorCode.COMMIT_CONFLICT);
        }
    }

    @Test
    void aTransactionHoldingTheLogPastItsBoundIsAbortedAndToldWhy() {
        open(TransactionConfig.defaults().withMaxTrackedChanges(100));
        catalog.commit(WriteSet.of(new WriteOp.Add(counter(), ObjectKind.INNER, doc("{n: 0}"))));
        Transaction old = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(catalog.get(old.id(), counter())).isPresent();

        // Others commit on: the log holds every change after the old transaction's read vid.
        for (int i = 0; i < 300; i++) {
            catalog.commit(WriteSet.of(new WriteOp.Add(ObjectPath.parse("/o" + i), ObjectKind.INNER, doc("{}"))));
        }
        catalog.transactions().collectGarbage();

        assertThat(catalog.transactions().trackedChanges()).isLessThanOrEqualTo(100);
        assertThatThrownBy(() -> catalog.get(old.id(), counter())).isInstanceOfSatisfying(CatalogException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TRANSACTION_ABORTED);
            assertThat(e.getMessage())
                    .contains("transactions.max-tracked-changes")
                    .contains("start a new transaction");
        });
        // A new transaction works.
        Transaction fresh = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(catalog.get(fresh.id(), counter())).isPresent();
        catalog.commit(fresh.id(), WriteSet.of(new WriteOp.Update(counter(), ObjectKind.INNER, doc("{n: 1}"))));
        assertThat(counterValue()).isEqualTo(1);
    }

    @Test
    void aTransactionWithinTheBoundIsKeptAndStillSeesItsConflict() {
        open(TransactionConfig.defaults().withMaxTrackedChanges(1_000));
        catalog.commit(WriteSet.of(new WriteOp.Add(counter(), ObjectKind.INNER, doc("{n: 0}"))));
        Transaction txn = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(catalog.get(txn.id(), counter())).isPresent();
        catalog.commit(WriteSet.of(new WriteOp.Update(counter(), ObjectKind.INNER, doc("{n: 5}"))));
        for (int i = 0; i < 300; i++) {
            catalog.commit(WriteSet.of(new WriteOp.Add(ObjectPath.parse("/o" + i), ObjectKind.INNER, doc("{}"))));
        }
        catalog.transactions().collectGarbage();
        assertThatThrownBy(() -> catalog.commit(
                        txn.id(), WriteSet.of(new WriteOp.Update(counter(), ObjectKind.INNER, doc("{n: 1}")))))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));
        assertThat(counterValue()).isEqualTo(5);
    }

    @Test
    void aCommittingTransactionCannotBeAbortedAndAnEndedOneAbortsQuietly() {
        open(TransactionConfig.defaults());
        Transaction txn = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(txn.startCommit()).isTrue();
        assertThatThrownBy(() -> catalog.abort(txn.id()))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        // And the sweeper leaves it alone however long it has been idle.
        clock.advance(Duration.ofHours(1));
        assertThat(catalog.transactions().expireIdleSessions()).isZero();
        assertThat(catalog.transactions().openSessions()).isEqualTo(1);
    }

    private void open(TransactionConfig config) {
        catalog = new CatalogService(VersionedTree.open(RocksKvStore.open(directory)), config, clock);
    }

    private int counterValue() {
        return catalog.get(counter(), ReadPoint.LATEST)
                .orElseThrow()
                .value()
                .getInt32("n")
                .getValue();
    }

    private static ObjectPath counter() {
        return ObjectPath.parse("/counter");
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }
}
