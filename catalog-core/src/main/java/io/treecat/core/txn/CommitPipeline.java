package io.treecat.core.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.PreparedCommit;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
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
 * group. A commit is acknowledged only once durable; the read vid advances in commit order.
 *
 * <p>Failures: a commit that fails before its batch is written (validation, a precondition, a bug or
 * an {@code Error} while preparing) is refused and the pipeline goes on. If the store's write or the
 * WAL sync fails, the commits it concerns fail with {@code COMMIT_STATE_UNKNOWN} and the pipeline
 * refuses every later commit ({@code STORAGE_FAILURE}), as the store's state is then uncertain until
 * it is reopened. A commit written but failing afterwards is published (it is in the store) and its
 * caller told {@code COMMIT_STATE_UNKNOWN}. Neither thread ever dies of a commit: every caller is
 * answered.
 *
 * <p><b>Replicated</b> ({@link #replicateThrough}): the sequencer takes every commit waiting (up to {@link
 * #MAX_GROUP_COMMITS}), validates and prepares each over the ones before it ({@link
 * VersionedTree.GroupCommit}: a view of the store with their writes staged), hands them to the group as
 * one log entry, and waits until this node has installed it (the group's log, not this node's WAL, makes
 * it durable) before it starts the next entry, which must see it. So a replicated node commits one entry
 * per round of the group, as many commits as waited for it (group commit); the syncer has nothing to do.
 */
final class CommitPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommitPipeline.class);

    /** At most this many commits go into one entry of the group's log (a group commit). */
    static final int MAX_GROUP_COMMITS = 64;
    /** A group commit takes no more commits once its writes reach this size (a lone commit may be larger). */
    static final long MAX_GROUP_COMMIT_BYTES = 4L << 20;

    /** A commit waiting for the sequencer. */
    record Request(
            List<ScanEntry> scanSet,
            long readVid,
            WriteSet writes,
            boolean validate,
            ForwardedCommit forwarded,
            CompletableFuture<CommitResult> done) {}

    /**
     * What the sequencer hands the syncer, in commit order: a written commit ({@code result}), or a
     * commit refused by validation or a precondition ({@code refusal}; nothing written). A refusal
     * waits in line too, because what refused it may be a commit still waiting for its sync: were the
     * loser told at once, its retry would begin at the published vid, before the winner, and read the
     * very state it conflicted with (a contradictory retry, or one that exhausts its backoff).
     *
     * <p>A commit written but failed afterwards carries both: it is synced and published in order like
     * any other (it is in the store), and its caller is told {@code refusal} ({@code
     * COMMIT_STATE_UNKNOWN}) instead of success.
     */
    private record Written(CommitResult result, CatalogException refusal, CompletableFuture<CommitResult> done) {
        static Written commit(CommitResult result, CompletableFuture<CommitResult> done) {
            return new Written(result, null, done);
        }

        static Written refused(CatalogException refusal, CompletableFuture<CommitResult> done) {
            return new Written(null, refusal, done);
        }

        static Written writtenButUnknown(
                CommitResult result, CatalogException unknown, CompletableFuture<CommitResult> done) {
            return new Written(result, unknown, done);
        }

        boolean isCommit() {
            return result != null;
        }

        void answer() {
            if (refusal == null) {
                done.complete(result);
            } else {
                done.completeExceptionally(refusal);
            }
        }
    }

    private static final Written STOP_SYNCER = new Written(null, null, null);

    private static final Request STOP = new Request(List.of(), 0, null, false, null, null);

    private final VersionedTree tree;
    private final ChangeLog log;
    private final Validator validator;
    private final LongConsumer afterCommit;
    private final BlockingQueue<Request> pending = new LinkedBlockingQueue<>();
    private final BlockingQueue<Written> unsynced = new LinkedBlockingQueue<>();
    private final Thread sequencer;
    private final Thread syncer;
    /** Set once a write or sync failed with an unknown outcome: later commits are refused with it. */
    private volatile CatalogException failure;

    private volatile boolean closed;
    /** The forwarded commits this node was sent as the leader, so that each commits once however often sent. */
    private final ResentCommits resent;
    /** The group this node belongs to, or null for a single node. */
    private volatile CommitReplicator replicator;
    /** How long a replicated commit waits for the group before its outcome is unknown. */
    private volatile long replicationTimeoutMillis;
    /**
     * Replicated: the newest vid whose changes the validation log holds, or knows it lacks. A vid the
     * node installed without the sequencer recording it (an earlier leader's, or a commit whose outcome
     * was unknown and that the group agreed on later) makes every older read unvalidatable. Sequencer
     * thread only.
     */
    private long recordedThrough;

    CommitPipeline(VersionedTree tree, ChangeLog log, Validator validator, LongConsumer afterCommit) {
        this.tree = tree;
        this.log = log;
        this.validator = validator;
        this.afterCommit = afterCommit;
        this.resent = new ResentCommits(tree);
        this.sequencer = new Thread(this::runSequencer, "treecat-commit-sequencer");
        this.syncer = new Thread(this::runSyncer, "treecat-commit-syncer");
        sequencer.setDaemon(true);
        syncer.setDaemon(true);
        sequencer.start();
        syncer.start();
    }

    /**
     * Sends every later commit through {@code group} instead of this node's store. Set before the
     * first commit; the tree must already be replicating.
     */
    void replicateThrough(CommitReplicator group, long timeoutMillis) {
        if (!tree.replicated()) {
            throw new IllegalStateException("the tree is not replicating");
        }
        this.replicationTimeoutMillis = timeoutMillis;
        this.recordedThrough = tree.appliedVid();
        this.replicator = group;
    }

    CompletableFuture<CommitResult> submit(List<ScanEntry> scanSet, long readVid, WriteSet writes, boolean validate) {
        CompletableFuture<CommitResult> done = new CompletableFuture<>();
        submit(new Request(scanSet, readVid, writes, validate, null, done));
        return done;
    }

    /**
     * A replica's commit this node was sent as the leader: refused with {@code NO_LEADER} if this node no
     * longer leads, never forwarded again. A re-send of a commit this node is still sequencing joins it; one
     * of a commit that already committed is answered with that commit (see {@link ResentCommits}).
     */
    CompletableFuture<CommitResult> submitForwarded(ForwardedCommit commit) {
        CompletableFuture<CommitResult> done = new CompletableFuture<>();
        CompletableFuture<CommitResult> earlier = resent.join(commit, done);
        if (earlier != null) {
            return earlier;
        }
        submit(new Request(commit.scanSet(), commit.readVid(), commit.writes(), commit.validate(), commit, done));
        return done;
    }

    private void submit(Request request) {
        CompletableFuture<CommitResult> done = request.done();
        boolean forwarded = request.forwarded() != null;
        if (closed) {
            done.completeExceptionally(new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is shutting down"));
        } else if (failure != null) {
            done.completeExceptionally(failure);
        } else if (replicator != null && !forwarded && !replicator.leading()) {
            // A replica: the leader sequences it. Not through this node's queue, so forwarded commits
            // wait on the group, never on each other here.
            forward(request, replicator);
        } else {
            pending.add(request);
        }
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
                sequence(request);
            } catch (Throwable e) {
                // Whatever happens to one commit, the thread lives on and its caller is answered: a dead
                // sequencer would leave this caller, and every later one, waiting forever.
                LOG.error("Commit sequencing failed unexpectedly", e);
                request.done()
                        .completeExceptionally(new CatalogException(
                                ErrorCode.COMMIT_STATE_UNKNOWN, "Commit failed unexpectedly: " + e, e));
            }
        }
    }

    /** Validates, prepares and writes one commit, and hands it to the syncer; never throws for the commit's sake. */
    private void sequence(Request request) {
        CommitReplicator group = replicator;
        if (group != null) {
            sequenceReplicated(request, group);
            return;
        }
        PreparedCommit prepared;
        try {
            if (request.validate()) {
                validator.validate(request.scanSet(), request.readVid());
            }
            prepared = tree.prepare(request.writes());
        } catch (CatalogException e) {
            // A conflict or a failed precondition: nothing was written. Told after the commits before
            // it are published (Written).
            unsynced.add(Written.refused(e, request.done()));
            return;
        } catch (RuntimeException | Error e) {
            // A bug, or an Error such as a StackOverflowError on a deep write set: nothing was written
            // either, so the pipeline goes on.
            LOG.error("Commit failed unexpectedly before anything was written", e);
            unsynced.add(Written.refused(
                    new CatalogException(ErrorCode.STORAGE_FAILURE, "Commit failed; nothing was written: " + e, e),
                    request.done()));
            return;
        }
        try (prepared) {
            try {
                tree.apply(prepared, false);
            } catch (CatalogException e) {
                if (e.code() != ErrorCode.COMMIT_STATE_UNKNOWN) {
                    throw e;
                }
                // The store's write failed: the batch may be in it, and a next commit would reuse its
                // vid. Only reopening the store tells; until then every commit is refused.
                failed(e);
                unsynced.add(Written.refused(e, request.done()));
                return;
            }
            long vid = prepared.vid();
            try {
                log.record(vid, prepared.result().changes());
            } catch (RuntimeException | Error e) {
                // Written, but validation cannot see what it changed: every transaction that read
                // before it conflicts from now on, and its caller hears that the outcome is unknown.
                log.untrackedThrough(vid);
                LOG.error("The commit of version {} was written but its changes could not be tracked", vid, e);
                unsynced.add(Written.writtenButUnknown(
                        prepared.result(),
                        new CatalogException(
                                        ErrorCode.COMMIT_STATE_UNKNOWN,
                                        "The commit of version " + vid + " was written, but the server failed "
                                                + "after writing it; read the objects to see its outcome")
                                .with("vid", vid),
                        request.done()));
                return;
            }
            unsynced.add(Written.commit(prepared.result(), request.done()));
        }
    }

    /** A replicated commit staged in a group commit: its request and its prepared batch. */
    private record Staged(Request request, PreparedCommit prepared) {}

    /**
     * Validates, prepares and replicates {@code first} and the commits waiting behind it as one group
     * commit, one entry of the group's log, and answers their callers once this node has installed it;
     * never throws for a commit's sake. Each commit is validated and prepared over the ones before it in
     * the entry (their changes are recorded for validation before the group agreed on them, and taken back
     * if it did not). Refusals are answered with the entry's outcome, like a single node's refusals wait
     * for the commits before them.
     */
    private void sequenceReplicated(Request first, CommitReplicator group) {
        if (!group.leading()) {
            if (first.forwarded() != null) {
                first.done()
                        .completeExceptionally(new CatalogException(
                                ErrorCode.NO_LEADER, "This node no longer leads the group; nothing was committed"));
            } else {
                forward(first, group);
            }
            return;
        }
        VersionedTree.GroupCommit entry = tree.startGroupCommit();
        // Validation must know of every vid the entry builds on, this node's own or another leader's.
        noteUnrecorded(entry.baseVid());
        List<Staged> staged = new ArrayList<>();
        List<Runnable> refusals = new ArrayList<>();
        Request request = first;
        int taken = 0;
        while (true) {
            stage(request, entry, staged, refusals);
            if (++taken >= MAX_GROUP_COMMITS || entry.bytes() >= MAX_GROUP_COMMIT_BYTES) {
                break;
            }
            Request next = pending.poll();
            if (next == null) {
                break;
            }
            if (next == STOP) {
                pending.add(STOP); // handled by the loop, after this entry
                break;
            }
            request = next;
        }
        try {
            if (!staged.isEmpty()) {
                replicate(entry, staged, group);
            }
        } finally {
            staged.forEach(commit -> commit.prepared().close());
            refusals.forEach(Runnable::run);
        }
    }

    /** Validates and prepares one commit over the entry's earlier ones and adds it, or notes its refusal. */
    private void stage(Request request, VersionedTree.GroupCommit entry, List<Staged> staged, List<Runnable> refusals) {
        PreparedCommit prepared = null;
        try {
            if (request.forwarded() != null && request.forwarded().resent()) {
                // This node leads, so the group's every earlier entry is applied here: the commit log has the
                // first send if it committed. Answered after the entry, as refusals are.
                Optional<CommitResult> committed = resent.find(request.forwarded(), entry.baseVid());
                if (committed.isPresent()) {
                    refusals.add(() -> request.done().complete(committed.get()));
                    return;
                }
            }
            if (request.validate()) {
                validator.validate(request.scanSet(), request.readVid());
            }
            prepared = entry.prepare(request.writes());
            entry.stage(prepared);
            log.record(prepared.vid(), prepared.result().changes());
            staged.add(new Staged(request, prepared));
        } catch (CatalogException e) {
            close(prepared);
            refusals.add(() -> request.done().completeExceptionally(e));
        } catch (RuntimeException | Error e) {
            close(prepared);
            LOG.error("Commit failed unexpectedly before anything was replicated", e);
            CatalogException refusal =
                    new CatalogException(ErrorCode.STORAGE_FAILURE, "Commit failed; nothing was written: " + e, e);
            refusals.add(() -> request.done().completeExceptionally(refusal));
        }
    }

    private static void close(PreparedCommit prepared) {
        if (prepared != null) {
            prepared.close();
        }
    }

    /** Hands the entry to the group and answers its commits with the outcome. */
    private void replicate(VersionedTree.GroupCommit entry, List<Staged> staged, CommitReplicator group) {
        long lastVid = staged.get(staged.size() - 1).prepared().vid();
        Function<Long, CatalogException> failure;
        try {
            CommitReplicator.Outcome outcome =
                    group.replicate(entry.commits()).get(replicationTimeoutMillis, TimeUnit.MILLISECONDS);
            failure = outcome == CommitReplicator.Outcome.INSTALLED
                    ? null
                    : vid -> new CatalogException(
                                    ErrorCode.NO_LEADER,
                                    "The group's leader changed while the commit was replicated, and another "
                                            + "commit took its version; nothing was committed")
                            .with("vid", vid);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            failure = cause instanceof CatalogException refused && refused.code() == ErrorCode.NO_LEADER
                    ? vid -> refused
                    : vid -> unknownOutcome(vid, cause);
        } catch (TimeoutException e) {
            failure = vid -> unknownOutcome(vid, e).with("timeoutMillis", replicationTimeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = vid -> unknownOutcome(vid, e);
        } catch (RuntimeException | Error e) {
            LOG.error("Replicated commit failed unexpectedly", e);
            failure = vid -> unknownOutcome(vid, e);
        }
        if (failure != null) {
            // Not installed, or not known to be: the entry's changes never happened as far as validation
            // knows. If the group installs it after all, noteUnrecorded sees vids it did not record.
            log.discardAfter(entry.baseVid());
            for (Staged commit : staged) {
                commit.request()
                        .done()
                        .completeExceptionally(failure.apply(commit.prepared().vid()));
            }
            return;
        }
        // Installed and published by the group's apply, with the changes validation already holds.
        recordedThrough = lastVid;
        afterCommit(lastVid);
        for (Staged commit : staged) {
            commit.request().done().complete(commit.prepared().result());
        }
    }

    /** Sends a commit to the leader; the caller hears when this node has installed it. Never blocks. */
    private void forward(Request request, CommitReplicator group) {
        CompletableFuture<CommitResult> forwarded;
        try {
            forwarded = group.forward(ForwardedCommit.first(
                    request.scanSet(), request.readVid(), request.writes(), request.validate(), tree.lastVid()));
        } catch (RuntimeException e) {
            forwarded = CompletableFuture.failedFuture(e);
        }
        // The caller's future is answered here; the chained stage itself carries nothing more.
        var unused = forwarded.whenComplete((result, failure) -> {
            if (failure == null) {
                request.done().complete(result);
            } else {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                request.done().completeExceptionally(cause);
            }
        });
    }

    /** Marks the validation log incomplete through {@code installed} if it has vids the sequencer did not record. */
    private boolean noteUnrecorded(long installed) {
        if (installed <= recordedThrough) {
            return false;
        }
        log.untrackedThrough(installed);
        recordedThrough = installed;
        return true;
    }

    private static CatalogException unknownOutcome(long vid, Throwable cause) {
        return new CatalogException(
                        ErrorCode.COMMIT_STATE_UNKNOWN,
                        "The group did not confirm the commit; it may or may not be committed: " + cause,
                        cause)
                .with("vid", vid);
    }

    /**
     * Housekeeping after a commit (collecting the validation log). The commits are durable and published
     * whatever happens here, so they are answered as such.
     */
    private void afterCommit(long vid) {
        try {
            afterCommit.accept(vid);
        } catch (RuntimeException | Error e) {
            LOG.error("After-commit housekeeping failed", e);
        }
    }

    private void failed(CatalogException cause) {
        LOG.error("A commit's write or sync failed with an unknown outcome; refusing further commits", cause);
        failure = new CatalogException(
                ErrorCode.STORAGE_FAILURE,
                "Commits are refused: an earlier commit's write or sync failed and its outcome is unknown; "
                        + "restart the server to recover",
                cause);
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
                try {
                    syncGroup(group);
                } catch (Throwable e) {
                    LOG.error("Commit sync failed unexpectedly", e);
                    CatalogException unknown =
                            new CatalogException(ErrorCode.COMMIT_STATE_UNKNOWN, "Commit failed unexpectedly: " + e, e);
                    failed(unknown);
                    group.forEach(written -> written.done().completeExceptionally(unknown));
                }
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
            } catch (RuntimeException | Error e) {
                CatalogException unknown = new CatalogException(
                        ErrorCode.COMMIT_STATE_UNKNOWN,
                        "The write-ahead log could not be synced; the commit may or may not be durable",
                        e);
                failed(unknown);
                group.forEach(written ->
                        written.done().completeExceptionally(written.isCommit() ? unknown : written.refusal()));
                return;
            }
            tree.publish(newest);
            afterCommit(newest);
        }
        group.forEach(Written::answer);
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
