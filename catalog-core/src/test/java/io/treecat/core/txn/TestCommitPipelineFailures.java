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
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.ObjectChange;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the commit pipeline does when something fails on its threads: every caller is answered (none
 * waits forever), a failure before the write leaves the pipeline serving, a write or sync with an
 * unknown outcome is reported as such and stops commits until the store is reopened, and a commit
 * written but failed afterwards is published and reported unknown, never as a conflict.
 */
class TestCommitPipelineFailures {
    private static final String SEQUENCER = "treecat-commit-sequencer";

    @TempDir
    Path directory;

    private CatalogService catalog;
    private volatile Throwable failReadsOnSequencer;
    private volatile Throwable failWrite;
    private volatile Throwable failSync;

    @AfterEach
    void close() {
        if (catalog != null) {
            catalog.close();
        }
    }

    @Test
    void anErrorWhilePreparingFailsThatCommitAloneAndWritesNothing() throws Exception {
        open();
        long before = catalog.lastVid();
        // A StackOverflowError or a bug in the commit builder: it reads the store while preparing.
        failReadsOnSequencer = new StackOverflowError("deep write set");
        CatalogException failed = commitFails(add("/b"));
        assertThat(failed.code()).isEqualTo(ErrorCode.STORAGE_FAILURE);
        assertThat(failed.getMessage()).contains("nothing was written");
        assertThat(catalog.lastVid()).isEqualTo(before);

        failReadsOnSequencer = null;
        assertThat(commit(add("/b")).vid()).isEqualTo(before + 1);
        assertThat(catalog.get(path("/b"), ReadPoint.LATEST)).isPresent();
    }

    @Test
    void aWriteThatFailsIsUnknownAndStopsCommitsUntilTheStoreIsReopened() throws Exception {
        open();
        long before = catalog.lastVid();
        failWrite = new OutOfMemoryError("while writing the batch");
        CatalogException unknown = commitFails(add("/b"));
        assertThat(unknown.code()).isEqualTo(ErrorCode.COMMIT_STATE_UNKNOWN);
        assertThat(unknown.getMessage()).contains("may or may not be durable");

        // The next commit would reuse a vid the store may hold: refused, saying what to do.
        failWrite = null;
        CatalogException refused = commitFails(add("/c"));
        assertThat(refused.code()).isEqualTo(ErrorCode.STORAGE_FAILURE);
        assertThat(refused.getMessage()).contains("restart the server");
        // Reads go on.
        assertThat(catalog.get(path("/a"), ReadPoint.LATEST)).isPresent();
        assertThat(catalog.lastVid()).isEqualTo(before);

        catalog.close();
        catalog = null;
        open();
        assertThat(commit(add("/c")).vid()).isEqualTo(before + 1);
    }

    @Test
    void aSyncThatFailsWithAnErrorIsUnknownAndTheCallerIsAnswered() throws Exception {
        open();
        failSync = new InternalError("fsync");
        CatalogException unknown = commitFails(add("/b"));
        assertThat(unknown.code()).isEqualTo(ErrorCode.COMMIT_STATE_UNKNOWN);
        failSync = null;
        assertThat(commitFails(add("/c")).code()).isEqualTo(ErrorCode.STORAGE_FAILURE);
    }

    @Test
    void aCommitWrittenButNotTrackedIsPublishedReportedUnknownAndOlderReadersConflict() throws Exception {
        VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory));
        tree.commit(WriteSet.of(new WriteOp.Add(path("/t"), ObjectKind.INNER, doc("{n: 0}"))));
        long readVid = tree.lastVid();
        ExecutorService validation = Executors.newSingleThreadExecutor();
        FailingChangeLog log = new FailingChangeLog(readVid);
        try (CommitPipeline pipeline = new CommitPipeline(
                tree, log, new Validator(log, ConcurrencyProtocol.OSPL, validation, 1, 256), vid -> {})) {
            log.fail = new OutOfMemoryError("recording changes");
            CompletableFuture<CommitResult> written = pipeline.submit(List.of(), readVid, update("/t", 1), false);
            assertThatThrownBy(() -> written.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_STATE_UNKNOWN);
                        assertThat(e.getMessage()).contains("was written");
                    });
            // It is in the store and readable, as it would be after any later commit.
            assertThat(tree.lastVid()).isEqualTo(readVid + 1);

            // A transaction that read before it cannot be validated against it: it conflicts.
            log.fail = null;
            List<ScanEntry> readT = List.of(scanOf(tree, "/t"));
            CompletableFuture<CommitResult> stale = pipeline.submit(readT, readVid, update("/t", 2), true);
            assertThatThrownBy(() -> stale.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(
                            CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));
            // One that read after it commits.
            assertThat(pipeline.submit(readT, readVid + 1, update("/t", 3), true)
                            .get(10, TimeUnit.SECONDS)
                            .vid())
                    .isEqualTo(readVid + 2);
        } finally {
            validation.shutdownNow();
            tree.close();
        }
    }

    @Test
    void housekeepingThatFailsAfterTheSyncDoesNotFailDurableCommits() throws Exception {
        VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory));
        ExecutorService validation = Executors.newSingleThreadExecutor();
        ChangeLog log = new ChangeLog(tree.lastVid());
        try (CommitPipeline pipeline =
                new CommitPipeline(tree, log, new Validator(log, ConcurrencyProtocol.OSPL, validation, 1, 256), vid -> {
                    throw new AssertionError("collector bug");
                })) {
            for (int i = 0; i < 3; i++) {
                CommitResult result = pipeline.submit(List.of(), tree.lastVid(), add("/x" + i), false)
                        .get(10, TimeUnit.SECONDS);
                assertThat(tree.lastVid()).isEqualTo(result.vid());
            }
        } finally {
            validation.shutdownNow();
            tree.close();
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** A change log whose {@code record} fails while {@link #fail} is set. */
    private static final class FailingChangeLog extends ChangeLog {
        volatile Error fail;

        FailingChangeLog(long floor) {
            super(floor);
        }

        @Override
        void record(long vid, List<ObjectChange> changes) {
            if (fail != null) {
                throw fail;
            }
            super.record(vid, changes);
        }
    }

    private static ScanEntry scanOf(VersionedTree tree, String pathText) {
        // The scan a transaction's get of the path records: the point predicate obj_id = '<id>'.
        TransactionManager recorder = new TransactionManager(tree, TransactionConfig.defaults(), Clock.systemUTC());
        try {
            Transaction txn = recorder.begin(TransactionMode.READ_WRITE, java.util.OptionalLong.empty());
            recorder.recordRead(txn, path(pathText));
            return txn.scanSet().get(0);
        } finally {
            recorder.close();
        }
    }

    private void open() {
        KvStore store = new ForwardingKvStore(RocksKvStore.open(directory)) {
            @Override
            public byte[] get(KeySpace space, byte[] key) {
                throwIfArmed();
                return super.get(space, key);
            }

            @Override
            public io.treecat.core.storage.KvIterator iterator(
                    KeySpace space, byte[] lowerInclusive, byte[] upperExclusive) {
                throwIfArmed();
                return super.iterator(space, lowerInclusive, upperExclusive);
            }

            @Override
            public void write(KvBatch batch, boolean sync) {
                if (failWrite != null) {
                    sneakyThrow(failWrite);
                }
                super.write(batch, sync);
            }

            @Override
            public void syncWal() {
                if (failSync != null) {
                    sneakyThrow(failSync);
                }
                super.syncWal();
            }

            private void throwIfArmed() {
                if (failReadsOnSequencer != null
                        && Thread.currentThread().getName().equals(SEQUENCER)) {
                    sneakyThrow(failReadsOnSequencer);
                }
            }
        };
        catalog = new CatalogService(VersionedTree.open(store), TransactionConfig.defaults(), Clock.systemUTC());
        if (catalog.get(path("/a"), ReadPoint.LATEST).isEmpty()) {
            catalog.commit(add("/a"));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable e) throws T {
        throw (T) e;
    }

    /** Commits on another thread, so that a pipeline that never answers fails the test instead of hanging it. */
    private CommitResult commit(WriteSet writes) throws Exception {
        return CompletableFuture.supplyAsync(() -> catalog.commit(writes)).get(10, TimeUnit.SECONDS);
    }

    private CatalogException commitFails(WriteSet writes) throws Exception {
        try {
            CommitResult result = commit(writes);
            throw new AssertionError("the commit succeeded at vid " + result.vid());
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(CatalogException.class);
            return (CatalogException) e.getCause();
        }
    }

    private static WriteSet add(String pathText) {
        return WriteSet.of(new WriteOp.Add(path(pathText), ObjectKind.INNER, doc("{}")));
    }

    private static WriteSet update(String pathText, int n) {
        return WriteSet.of(new WriteOp.Update(path(pathText), ObjectKind.INNER, doc("{n: " + n + "}")));
    }

    private static ObjectPath path(String text) {
        return ObjectPath.parse(text);
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }
}
