package io.treecat.core.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.PreparedCommit;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit path (paper §5.2), as two pipelined stages on their own threads:
 *
 * <ol>
 *   <li><b>Sequencer</b>: takes commits one at a time in arrival order, validates the scan set
 *       against everything committed after the read vid (including commits still waiting for their
 *       sync), checks preconditions and computes merges while preparing one atomic RocksDB batch, writes
 *       it without syncing, and records its changes in the {@link ChangeLog}.
 *   <li><b>Syncer</b>: takes every commit written since its last round, syncs the WAL once for all of
 *       them (group commit), then publishes their vids in order and acknowledges them.
 * </ol>
 *
 * <p>So validating and writing transaction N+1 overlaps the fsync of N, and one fsync serves a whole
 * group. A commit is acknowledged only once durable; the read vid advances in commit order. If a
 * sync fails, every commit in flight fails with {@code COMMIT_STATE_UNKNOWN} and the pipeline stops
 * accepting commits, as the store's state is then uncertain.
 */
final class CommitPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommitPipeline.class);

    /** A commit waiting for the sequencer. */
    record Request(
            List<ScanEntry> scanSet,
            long readVid,
            WriteSet writes,
            boolean validate,
            CompletableFuture<CommitResult> done) {}

    /**
     * What the sequencer hands the syncer, in commit order: a written commit ({@code result}), or a
     * commit refused by validation or a precondition ({@code refusal}; nothing written). A refusal
     * waits in line too, because what refused it may be a commit still waiting for its sync: were the
     * loser told at once, its retry would begin at the published vid, before the winner, and read the
     * very state it conflicted with (a contradictory retry, or one that exhausts its backoff).
     */
    private record Written(CommitResult result, CatalogException refusal, CompletableFuture<CommitResult> done) {
        static Written commit(CommitResult result, CompletableFuture<CommitResult> done) {
            return new Written(result, null, done);
        }

        static Written refused(CatalogException refusal, CompletableFuture<CommitResult> done) {
            return new Written(null, refusal, done);
        }

        boolean isCommit() {
            return result != null;
        }
    }

    private static final Written STOP_SYNCER = new Written(null, null, null);

    private static final Request STOP = new Request(List.of(), 0, null, false, null);

    private final VersionedTree tree;
    private final ChangeLog log;
    private final Validator validator;
    private final LongConsumer afterCommit;
    private final BlockingQueue<Request> pending = new LinkedBlockingQueue<>();
    private final BlockingQueue<Written> unsynced = new LinkedBlockingQueue<>();
    private final Thread sequencer;
    private final Thread syncer;
    private volatile CatalogException failure;
    private volatile boolean closed;

    CommitPipeline(VersionedTree tree, ChangeLog log, Validator validator, LongConsumer afterCommit) {
        this.tree = tree;
        this.log = log;
        this.validator = validator;
        this.afterCommit = afterCommit;
        this.sequencer = new Thread(this::runSequencer, "treecat-commit-sequencer");
        this.syncer = new Thread(this::runSyncer, "treecat-commit-syncer");
        sequencer.setDaemon(true);
        syncer.setDaemon(true);
        sequencer.start();
        syncer.start();
    }

    CompletableFuture<CommitResult> submit(List<ScanEntry> scanSet, long readVid, WriteSet writes, boolean validate) {
        CompletableFuture<CommitResult> done = new CompletableFuture<>();
        if (closed) {
            done.completeExceptionally(new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is shutting down"));
        } else if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            pending.add(new Request(scanSet, readVid, writes, validate, done));
        }
        return done;
    }

    private void runSequencer() {
        while (true) {
            Request request;
            try {
                request = pending.take();
            } catch (InterruptedException e) {
                return;
            }
            if (request == STOP) {
                List<Request> late = new ArrayList<>();
                pending.drainTo(late);
                late.forEach(r -> r.done()
                        .completeExceptionally(
                                new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is shutting down")));
                unsynced.add(STOP_SYNCER);
                return;
            }
            if (failure != null) {
                request.done().completeExceptionally(failure);
                continue;
            }
            try {
                if (request.validate()) {
                    validator.validate(request.scanSet(), request.readVid());
                }
                try (PreparedCommit prepared = tree.prepare(request.writes())) {
                    tree.apply(prepared, false);
                    log.record(prepared.vid(), prepared.result().changes());
                    unsynced.add(Written.commit(prepared.result(), request.done()));
                }
            } catch (CatalogException e) {
                // A conflict or a failed precondition: nothing was written. Told after the commits
                // before it are published (Written).
                unsynced.add(Written.refused(e, request.done()));
            } catch (RuntimeException e) {
                LOG.error("Commit failed unexpectedly", e);
                request.done()
                        .completeExceptionally(
                                new CatalogException(ErrorCode.STORAGE_FAILURE, "Commit failed: " + e, e));
            }
        }
    }

    private void runSyncer() {
        List<Written> group = new ArrayList<>();
        while (true) {
            try {
                group.add(unsynced.take());
            } catch (InterruptedException e) {
                return;
            }
            unsynced.drainTo(group);
            boolean stop = group.get(group.size() - 1) == STOP_SYNCER;
            if (stop) {
                group.remove(group.size() - 1);
            }
            if (!group.isEmpty()) {
                syncGroup(group);
            }
            group.clear();
            if (stop) {
                return;
            }
        }
    }

    private void syncGroup(List<Written> group) {
        long newest = -1;
        for (Written written : group) {
            if (written.isCommit()) {
                newest = Math.max(newest, written.result().vid());
            }
        }
        if (newest >= 0) {
            try {
                tree.syncWal();
            } catch (RuntimeException e) {
                failure = new CatalogException(
                        ErrorCode.COMMIT_STATE_UNKNOWN,
                        "The write-ahead log could not be synced; the commit may or may not be durable",
                        e);
                LOG.error("WAL sync failed; refusing further commits", e);
                group.forEach(written ->
                        written.done().completeExceptionally(written.isCommit() ? failure : written.refusal()));
                return;
            }
            tree.publish(newest);
            afterCommit.accept(newest);
        }
        for (Written written : group) {
            if (written.isCommit()) {
                written.done().complete(written.result());
            } else {
                written.done().completeExceptionally(written.refusal());
            }
        }
    }

    /** Finishes the commits already submitted, then stops both threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pending.add(STOP);
        try {
            sequencer.join();
            syncer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
