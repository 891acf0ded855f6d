package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.ForwardingKvStore;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit refused because of another one that is written but still waiting for its fsync: the loser
 * must not hear of its refusal before the winner is readable, or its retry, beginning at the newest
 * readable vid, reads the very state it conflicted with. Seen under load as a loser told "the value is
 * v1, you expected v1" (TestHmsIcebergCommits) and as retries exhausting their backoff at start.
 */
class TestCommitOrder {
    @TempDir
    Path directory;

    private final CountDownLatch syncing = new CountDownLatch(1);
    private final CountDownLatch releaseSync = new CountDownLatch(1);
    private CatalogService catalog;

    @AfterEach
    void close() {
        releaseSync.countDown();
        if (catalog != null) {
            catalog.close();
        }
    }

    @Test
    void aLoserHearsOfItsConflictOnlyOnceTheWinnerIsReadable() throws Exception {
        catalog = new CatalogService(
                VersionedTree.open(new SlowSyncStore(RocksKvStore.open(directory))),
                TransactionConfig.defaults(),
                Clock.systemUTC());
        catalog.commit(WriteSet.of(new WriteOp.Add(path("/counter"), ObjectKind.INNER, doc("{n: 1}"))));
        Transaction winner = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        Transaction loser = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        // Both read the counter, so each commit's read set holds it.
        assertThat(catalog.get(winner.id(), path("/counter"))).isPresent();
        assertThat(catalog.get(loser.id(), path("/counter"))).isPresent();

        armSlowSync = true;
        CompletableFuture<CommitResult> won = CompletableFuture.supplyAsync(() -> catalog.commit(
                winner.id(), WriteSet.of(new WriteOp.Update(path("/counter"), ObjectKind.INNER, doc("{n: 2}")))));
        assertThat(syncing.await(10, TimeUnit.SECONDS))
                .as("the winner reached its sync")
                .isTrue();

        CompletableFuture<CatalogException> lost = CompletableFuture.supplyAsync(() -> {
            try {
                catalog.commit(
                        loser.id(), WriteSet.of(new WriteOp.Update(path("/counter"), ObjectKind.INNER, doc("{n: 3}"))));
                return null;
            } catch (CatalogException e) {
                return e;
            }
        });
        // While the winner's sync is held, the loser must still be waiting.
        Thread.sleep(200);
        assertThat(lost).isNotDone();

        releaseSync.countDown();
        CatalogException conflict = lost.get(10, TimeUnit.SECONDS);
        assertThat(conflict).isNotNull();
        assertThat(conflict.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
        // Told now, the loser's retry reads the winner's value.
        assertThat(catalog.get(path("/counter"), ReadPoint.LATEST)
                        .orElseThrow()
                        .value()
                        .getInt32("n")
                        .getValue())
                .isEqualTo(2);
        assertThat(won.get(10, TimeUnit.SECONDS).vid()).isEqualTo(catalog.lastVid());
    }

    @Test
    void aRefusalWithNothingBeforeItIsToldAtOnce() {
        catalog = new CatalogService(
                VersionedTree.open(new SlowSyncStore(RocksKvStore.open(directory))),
                TransactionConfig.defaults(),
                Clock.systemUTC());
        catalog.commit(WriteSet.of(new WriteOp.Add(path("/t"), ObjectKind.INNER, doc("{}"))));
        armSlowSync = true;
        // A precondition failure: no commit is waiting for a sync, so no sync is held.
        assertThatThrownBy(() -> catalog.commit(WriteSet.of(new WriteOp.Add(path("/t"), ObjectKind.INNER, doc("{}")))))
                .isInstanceOf(CatalogException.class);
        assertThat(syncing.getCount()).as("no sync for a refusal alone").isEqualTo(1);
    }

    private volatile boolean armSlowSync;

    private static ObjectPath path(String text) {
        return ObjectPath.parse(text);
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    /** RocksDB whose WAL sync, once armed, waits for the test to release it. */
    private final class SlowSyncStore extends ForwardingKvStore {
        SlowSyncStore(KvStore store) {
            super(store);
        }

        @Override
        public void syncWal() {
            if (armSlowSync) {
                syncing.countDown();
                try {
                    releaseSync.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.syncWal();
        }
    }
}
