package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.ScanListener;
import io.treecat.core.query.plan.IdRange;
import io.treecat.core.query.plan.IdRanges;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.query.tree.ComparisonOperator;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Operand;
import io.treecat.core.query.tree.Step;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serializable MVOCC transactions over the versioned tree (paper §5): sessions with a read vid,
 * scan sets recorded by their queries, validation at commit with the configured protocol, and the
 * pipelined group commit. Every commit, transactional or not, goes through here, so vids stay in
 * commit order.
 *
 * <p>Read-only transactions read the snapshot at their read vid: they never abort and never block.
 * Read-write transactions are validated with OSPL (default) or OSL, or run under MGL locks.
 */
public final class TransactionManager implements AutoCloseable {
    private final VersionedTree tree;
    private final TransactionConfig config;
    private final Clock clock;
    private final ChangeLog log;
    private final CommitPipeline pipeline;
    /** The group this node replicates through, once {@link #replicateThrough} ran. */
    private volatile CommitReplicator group;

    private final LockManager locks;
    private final ExecutorService validationPool;
    private final ScheduledExecutorService sweeper;
    private final Map<TransactionId, Transaction> sessions = new ConcurrentHashMap<>();
    private final AtomicLong startSequence = new AtomicLong();
    private final AtomicLong commitsSinceCollect = new AtomicLong();
    /** Orders read-write begins against garbage collection, so no new reader falls below the watermark. */
    private final Object watermarkLock = new Object();
    /** Why the server ended a transaction, for its next call; the newest few thousand are kept. */
    private final Map<TransactionId, CatalogException> abortedByServer =
            Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<TransactionId, CatalogException> eldest) {
                    return size() > 4096;
                }
            });

    public TransactionManager(VersionedTree tree, TransactionConfig config, Clock clock) {
        this.tree = requireNonNull(tree, "tree is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.log = new ChangeLog(tree.lastVid());
        this.validationPool = Executors.newFixedThreadPool(config.validationThreads(), daemon("treecat-validation"));
        this.pipeline = new CommitPipeline(
                tree,
                log,
                new Validator(
                        log,
                        config.protocol(),
                        validationPool,
                        config.validationThreads(),
                        config.parallelValidationThreshold()),
                this::afterCommit);
        this.locks = new LockManager(config.lockTimeout());
        this.sweeper = Executors.newSingleThreadScheduledExecutor(daemon("treecat-session-sweeper"));
        long period = Math.max(100, Math.min(config.idleTimeout().toMillis() / 2, 10_000));
        sweeper.scheduleWithFixedDelay(this::expireIdleSessions, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Makes this node's commits go through a replicated group (catalog-replication): the sequencer
     * validates and prepares each commit as on a single node and the group installs it on every node.
     * Call once, before the first commit, on a tree that {@link VersionedTree#startReplicating
     * replicates}.
     *
     * @param timeout how long a commit waits for the group before its outcome is reported unknown
     */
    public void replicateThrough(CommitReplicator group, Duration timeout) {
        requireNonNull(group, "group is null");
        if (config.protocol() == ConcurrencyProtocol.MGL) {
            // MGL's locks live in one node's memory: a replica's transaction would lock nothing the leader sees.
            throw new CatalogException(
                            ErrorCode.NOT_REPLICATED,
                            "A replicated catalog validates optimistically; configure OSPL or OSL, not MGL")
                    .with("operation", "MGL");
        }
        pipeline.replicateThrough(group, timeout.toMillis());
        group.serveForwarded(this::sequenceForwarded);
        this.group = group;
    }

    /**
     * Applies an operation that is not a commit (a named snapshot made or dropped) on every node of the
     * group ({@link CommitReplicator#apply}); returns once this node has applied it. The group bounds the
     * wait by its commit timeout.
     *
     * @throws CatalogException the refusal every node made alike, {@code NO_LEADER} (nothing applied) or
     *     {@code COMMIT_STATE_UNKNOWN}
     */
    public void applyInGroup(GroupOperation operation) {
        CommitReplicator replicator = group;
        if (replicator == null) {
            throw new IllegalStateException("applyInGroup needs replicateThrough()");
        }
        await(replicator.apply(operation), "group's " + operation.kind() + " operation");
    }

    /** A replica's commit, while this node leads: validated and sequenced like one of its own. */
    private CompletableFuture<CommitResult> sequenceForwarded(ForwardedCommit commit) {
        return pipeline.submitForwarded(commit);
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    public ConcurrencyProtocol protocol() {
        return config.protocol();
    }

    public VersionedTree tree() {
        return tree;
    }

    /**
     * Opens a session.
     *
     * @param atVid read at this committed vid instead of the newest; a read-write transaction can only
     *     start at a vid whose later commits are still in the validation log
     */
    public Transaction begin(TransactionMode mode, OptionalLong atVid) {
        requireNonNull(mode, "mode is null");
        if (mode == TransactionMode.READ_ONLY) {
            long readVid = atVid.isPresent() ? tree.checkReadable(atVid.getAsLong()) : tree.lastVid();
            return register(mode, readVid);
        }
        synchronized (watermarkLock) {
            long readVid = atVid.isPresent() ? tree.checkReadable(atVid.getAsLong()) : tree.lastVid();
            if (readVid < log.floor()) {
                throw new CatalogException(
                                ErrorCode.INVALID_QUERY_OPTION,
                                "A read-write transaction cannot start at version " + readVid
                                        + ": commits after it are no longer tracked (oldest: " + log.floor() + ")")
                        .with("vid", readVid)
                        .with("oldestVid", log.floor());
            }
            return register(mode, readVid);
        }
    }

    private Transaction register(TransactionMode mode, long readVid) {
        // Registered before the session exists: the collector keeps what the read vid sees until it ends.
        Transaction txn = new Transaction(
                TransactionId.create(),
                mode,
                readVid,
                startSequence.incrementAndGet(),
                clock.instant(),
                tree.pin(readVid));
        sessions.put(txn.id(), txn);
        return txn;
    }

    /** The open session with this id; {@code TRANSACTION_NOT_FOUND} if it ended or expired. */
    public Transaction find(TransactionId id) {
        Transaction txn = sessions.get(requireNonNull(id, "id is null"));
        if (txn == null) {
            CatalogException aborted = abortedByServer.get(id);
            if (aborted != null) {
                throw aborted;
            }
            throw new CatalogException(
                            ErrorCode.TRANSACTION_NOT_FOUND,
                            "No open transaction " + id + " (it committed, aborted or expired)")
                    .with("transaction", id);
        }
        txn.touch(clock.instant());
        return txn;
    }

    /**
     * What a query in {@code txn} must tell the manager of each scan: a read-write transaction
     * records it in its scan set (OSPL, OSL) or takes a shared lock on the scanned parent and reads the
     * newest state (MGL). Read-only transactions record nothing.
     */
    public ScanListener scanListener(Transaction txn) {
        if (txn.mode() == TransactionMode.READ_ONLY) {
            return ScanListener.NONE;
        }
        if (config.protocol() == ConcurrencyProtocol.MGL) {
            return (parent, step, kinds, returnsObjects, vid) -> {
                lockScan(txn, parent, step);
                return tree.lastVid();
            };
        }
        return (parent, step, kinds, returnsObjects, vid) -> {
            txn.recordScan(new ScanEntry(parent, step, kinds, returnsObjects));
            return vid;
        };
    }

    /** Records a point read of {@code path} (a get), which conflicts with any later change to it. */
    public long recordRead(Transaction txn, ObjectPath path) {
        if (txn.mode() == TransactionMode.READ_ONLY || path.isRoot()) {
            return txn.readVid();
        }
        if (config.protocol() == ConcurrencyProtocol.MGL) {
            // A point read locks the object's value, and by the intention lock its existence.
            lockOrAbort(txn, LockManager.Resource.value(path), LockMode.S);
            return tree.lastVid();
        }
        PlanStep pointRead = new PlanStep(
                path.depth(),
                new Step.Filter(
                        new Expr.Comparison(
                                Operand.FieldRef.objectId(), ComparisonOperator.EQ, Operand.Literal.of(path.id())),
                        1),
                IdRanges.of(IdRange.point(path.id())),
                false);
        return scanListener(txn).onScan(path.parent(), pointRead, ChildKinds.BOTH, true, txn.readVid());
    }

    /**
     * Validates and commits the transaction's writes, ending the session either way.
     *
     * @return the commit; a read-write transaction without writes commits at its read vid
     * @throws CatalogException {@code COMMIT_CONFLICT} naming the conflicting path and predicate,
     *     {@code LOCK_TIMEOUT} with MGL, or the failed precondition of a write
     */
    public CommitResult commit(TransactionId id, WriteSet writes) {
        Transaction txn = find(id);
        if (!txn.startCommit()) {
            // Expired, aborted or already committing between find and here.
            throw new CatalogException(
                            ErrorCode.TRANSACTION_NOT_FOUND,
                            "No open transaction " + id + " (it committed, aborted or expired)")
                    .with("transaction", id);
        }
        try {
            if (writes == null || writes.ops().isEmpty()) {
                return new CommitResult(txn.readVid(), List.of());
            }
            if (txn.mode() == TransactionMode.READ_ONLY) {
                throw new CatalogException(ErrorCode.TRANSACTION_READ_ONLY, "A read-only transaction cannot write")
                        .with("transaction", id);
            }
            if (config.protocol() == ConcurrencyProtocol.MGL) {
                lockWrites(txn, writes);
                return await(pipeline.submit(List.of(), txn.readVid(), writes, false));
            }
            return await(pipeline.submit(txn.scanSet(), txn.readVid(), writes, true));
        } finally {
            end(txn);
        }
    }

    /** Commits writes outside any session: validated against nothing, ordered with everything else. */
    public CommitResult commit(WriteSet writes) {
        requireNonNull(writes, "writes is null");
        if (config.protocol() == ConcurrencyProtocol.MGL) {
            Transaction txn = begin(TransactionMode.READ_WRITE, OptionalLong.empty());
            return commit(txn.id(), writes);
        }
        return await(pipeline.submit(List.of(), tree.lastVid(), writes, false));
    }

    public void abort(TransactionId id) {
        Transaction txn = find(id);
        if (!txn.endIfNotCommitting()) {
            if (txn.isCommitting()) {
                throw new CatalogException(
                                ErrorCode.INVALID_REQUEST,
                                "Transaction " + id + " is committing and can no longer be aborted")
                        .with("transaction", id);
            }
            return; // ended meanwhile: aborting twice is no error
        }
        end(txn);
    }

    private void end(Transaction txn) {
        txn.markEnded();
        sessions.remove(txn.id());
        txn.unpin();
        if (config.protocol() == ConcurrencyProtocol.MGL) {
            locks.releaseAll(txn);
        }
    }

    /**
     * A scan of a parent's children locks the whole parent subtree shared, except a scan of named
     * children (obj_id = ..., in (...)), which locks just those: their existence (intention-shared on
     * each), and their values when the predicate reads them.
     */
    private void lockScan(Transaction txn, ObjectPath parent, PlanStep step) {
        List<String> named = pointIds(step.idRanges());
        if (named == null) {
            lockOrAbort(txn, LockManager.Resource.subtree(parent), LockMode.S);
            return;
        }
        for (String id : named) {
            ObjectPath child = parent.child(id);
            if (step.needsValue()) {
                lockOrAbort(txn, LockManager.Resource.value(child), LockMode.S);
            } else {
                lockOrAbort(txn, LockManager.Resource.subtree(child), LockMode.IS);
            }
        }
    }

    /** The ids of a set of single-id ranges, or null if any range spans more than one id. */
    private static List<String> pointIds(IdRanges ranges) {
        List<String> ids = new ArrayList<>();
        for (IdRange range : ranges.ranges()) {
            byte[] lower = range.lowerInclusive();
            byte[] upper = range.upperExclusive();
            // A point is [escaped + 0x00, escaped + 0x01): see IdOrder.
            if (lower == null
                    || upper == null
                    || lower.length != upper.length
                    || lower[lower.length - 1] != 0x00
                    || upper[upper.length - 1] != 0x01
                    || !Arrays.equals(lower, 0, lower.length - 1, upper, 0, upper.length - 1)) {
                return null;
            }
            ids.add(IdOrder.decode(lower, 0));
        }
        return ids;
    }

    /** Value changes lock the value; creating, replacing or removing an object locks its subtree. */
    private void lockWrites(Transaction txn, WriteSet writes) {
        for (WriteOp op : writes.ops()) {
            LockManager.Resource resource = op instanceof WriteOp.Merge
                    ? LockManager.Resource.value(op.path())
                    : LockManager.Resource.subtree(op.path());
            lockOrAbort(txn, resource, LockMode.X);
        }
    }

    private void lockOrAbort(Transaction txn, LockManager.Resource resource, LockMode mode) {
        try {
            locks.lockHierarchy(txn, resource, mode);
        } catch (CatalogException e) {
            end(txn);
            throw e.with("transaction", txn.id());
        }
    }

    private static CommitResult await(CompletableFuture<CommitResult> done) {
        return await(done, "commit");
    }

    /**
     * The outcome of {@code what} (a noun, "commit"): its refusal as it is, any other failure as an unknown
     * outcome.
     */
    private static <T> T await(CompletableFuture<T> done, String what) {
        try {
            return done.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CatalogException catalogException) {
                throw catalogException;
            }
            throw new CatalogException(
                    ErrorCode.COMMIT_STATE_UNKNOWN,
                    Character.toUpperCase(what.charAt(0)) + what.substring(1) + " failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CatalogException(
                    ErrorCode.COMMIT_STATE_UNKNOWN,
                    "Interrupted while waiting for the " + what + "; it may still complete");
        }
    }

    /** Aborts sessions idle for longer than the configured timeout, freeing their resources. */
    public int expireIdleSessions() {
        Instant cutoff = clock.instant().minus(config.idleTimeout());
        int expired = 0;
        for (Transaction txn : new ArrayList<>(sessions.values())) {
            if (txn.lastActivity().isBefore(cutoff) && txn.endIfNotCommitting()) {
                end(txn);
                expired++;
            }
        }
        collectGarbage();
        return expired;
    }

    private void afterCommit(long vid) {
        if (commitsSinceCollect.incrementAndGet() >= 64) {
            commitsSinceCollect.set(0);
            collectGarbage();
        }
    }

    /**
     * Drops validation state below the watermark: the oldest read vid of an open read-write
     * transaction, or the newest vid if there is none.
     */
    public void collectGarbage() {
        synchronized (watermarkLock) {
            log.collect(watermark());
            while (log.size() > config.maxTrackedChanges() && abortOldestReader()) {
                log.collect(watermark());
            }
        }
    }

    private long watermark() {
        long watermark = tree.lastVid();
        for (Transaction txn : sessions.values()) {
            if (txn.mode() == TransactionMode.READ_WRITE) {
                watermark = Math.min(watermark, txn.readVid());
            }
        }
        return watermark;
    }

    /**
     * Aborts the read-write transactions holding the oldest read vid, so that the changes only they
     * could conflict with can be dropped: the validation log stays bounded however long a client holds
     * a transaction open while others commit. One committing is left alone (it is about to end).
     *
     * @return false if there was none to abort
     */
    private boolean abortOldestReader() {
        long oldest = Long.MAX_VALUE;
        for (Transaction txn : sessions.values()) {
            if (txn.mode() == TransactionMode.READ_WRITE && !txn.isCommitting()) {
                oldest = Math.min(oldest, txn.readVid());
            }
        }
        if (oldest == Long.MAX_VALUE || oldest >= tree.lastVid()) {
            return false;
        }
        int tracked = log.size();
        for (Transaction txn : new ArrayList<>(sessions.values())) {
            if (txn.mode() == TransactionMode.READ_WRITE && txn.readVid() == oldest && txn.endIfNotCommitting()) {
                end(txn);
                abortedByServer.put(
                        txn.id(),
                        new CatalogException(
                                        ErrorCode.TRANSACTION_ABORTED,
                                        "Transaction " + txn.id() + " was aborted: it read at version " + oldest
                                                + " while " + tracked + " changes were committed after it, more "
                                                + "than the validation log holds (transactions.max-tracked-changes, "
                                                + config.maxTrackedChanges() + "); start a new transaction")
                                .with("transaction", txn.id())
                                .with("readVid", oldest)
                                .with("limit", "transactions.max-tracked-changes"));
            }
        }
        return true;
    }

    /** Open sessions, for metrics and tests. */
    public int openSessions() {
        return sessions.size();
    }

    /** Changes held for validation, for metrics and tests. */
    public int trackedChanges() {
        return log.size();
    }

    public Duration idleTimeout() {
        return config.idleTimeout();
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        pipeline.close();
        validationPool.shutdownNow();
    }
}
