package io.treecat.replication;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.replication.ReplicatedCommit;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.PathKeys;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tree as Ratis's state machine, on every node of the group: installs agreed commits in log order
 * ({@link VersionedTree#applyReplicated}) and publishes them.
 *
 * <p>An entry (one or more commits at consecutive vids, a group commit) is installed only when its first
 * vid is the node's next one; any other is skipped, alike on
 * every node since all apply the same log in the same order (see {@link CommitReplicator}). The log
 * position of each installed entry is written in the entry's own batch, so after a crash the node
 * knows exactly which entries its store holds and skips them when Ratis replays its log.
 *
 * <p>The store is the state: a snapshot is only a marker file naming the log position the store
 * holds durably (its WAL synced first), as in Apache Ozone. Ratis may then drop the log before it.
 *
 * <p>A node that needs entries the leader's log no longer has (a new node, or one away for long) is
 * told so by Ratis ({@link #notifyInstallSnapshotFromLeader}: Ratis's own file transfer is off). It
 * receives a RocksDB checkpoint of the leader's store ({@link CheckpointShipping}), installs it into
 * its own, which stays open and readable ({@link VersionedTree#installCheckpoint}), and goes on from the
 * log position the checkpoint holds.
 */
final class TreeCatStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCatStateMachine.class);
    /** The log position (term, index) of the newest entry whose writes the store holds. */
    static final byte[] APPLIED_KEY = "raft_applied".getBytes(StandardCharsets.UTF_8);

    static final Message INSTALLED = Message.valueOf(ByteString.copyFrom(new byte[] {'I'}));
    static final Message SKIPPED = Message.valueOf(ByteString.copyFrom(new byte[] {'S'}));

    private final VersionedTree tree;
    private final CheckpointShipping shipping;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** Installing an entry and installing a checkpoint exclude each other. */
    private final Object installLock = new Object();
    /** Makes checkpoints for other nodes, and receives and installs one for this node: slow, off Ratis's threads. */
    private final ExecutorService checkpoints = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "treecat-checkpoints");
        thread.setDaemon(true);
        return thread;
    });
    /** Sends one step of a checkpoint transfer to the named node and returns its answer. */
    private volatile BiFunction<RaftPeerId, BsonDocument, BsonDocument> checkpointChannel;

    private final AtomicLong checkpointsInstalled = new AtomicLong();
    /** Where forwarded commits go while this node leads: its transaction manager. */
    private volatile Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer;
    /** Who waits for the log to be applied through an index ({@link #awaitApplied}), by index. */
    private final ConcurrentSkipListMap<Long, Queue<CompletableFuture<Void>>> appliedWaiters =
            new ConcurrentSkipListMap<>();
    /** The newest log position the store holds, as read at start; entries up to it are replays. */
    private volatile TermIndex stored;

    TreeCatStateMachine(VersionedTree tree, CheckpointShipping shipping) {
        this.tree = tree;
        this.shipping = shipping;
    }

    void receiveCheckpointsThrough(BiFunction<RaftPeerId, BsonDocument, BsonDocument> channel) {
        this.checkpointChannel = channel;
    }

    /** How many checkpoints this node installed since it started, for metrics. */
    long checkpointsInstalled() {
        return checkpointsInstalled.get();
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        byte[] applied = tree.store().get(KeySpace.META, APPLIED_KEY);
        stored = applied == null
                ? TermIndex.INITIAL_VALUE
                : TermIndex.valueOf(PathKeys.readLong(applied, 0), PathKeys.readLong(applied, 8));
        // The applied position stays Ratis's own (it replays the log from its last snapshot, conf entries
        // included); entries up to `stored` are recognised as replays in applyTransaction.
        LOG.info("Replicated tree at vid {} holds the group's log through {}", tree.appliedVid(), stored);
        // Running, so that Ratis can pause it (and reinitialize it) around a checkpoint's installation.
        getLifeCycle().startAndTransition(() -> {});
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public SingleFileSnapshotInfo getLatestSnapshot() {
        return storage.getLatestSnapshot();
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        synchronized (installLock) {
            return install(trx.getLogEntry());
        }
    }

    private CompletableFuture<Message> install(LogEntryProto entry) {
        TermIndex position = TermIndex.valueOf(entry);
        if (position.getIndex() <= stored.getIndex()) {
            // A replay after a restart: the store already holds it (or skipped it alike before).
            updateLastAppliedTermIndex(position);
            return CompletableFuture.completedFuture(SKIPPED);
        }
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        if (GroupOperation.isOperation(data)) {
            return apply(GroupOperation.decode(data), position);
        }
        List<ReplicatedCommit> commits = ReplicatedCommit.decodeAll(data);
        long firstVid = commits.get(0).vid();
        if (firstVid != tree.appliedVid() + 1) {
            LOG.info(
                    "Skipping the entry at {} for vids {} to {}: the node is at vid {} (a leader change raced it)",
                    position,
                    firstVid,
                    commits.get(commits.size() - 1).vid(),
                    tree.appliedVid());
            updateLastAppliedTermIndex(position);
            return CompletableFuture.completedFuture(SKIPPED);
        }
        byte[] positionBytes = bytes(position);
        // A failure here throws out of the updater: Ratis stops this node rather than let it go on with a
        // store that may or may not hold the entry.
        tree.applyReplicated(commits, batch -> batch.put(KeySpace.META, APPLIED_KEY, positionBytes));
        tree.publish(commits.get(commits.size() - 1).vid());
        updateLastAppliedTermIndex(position);
        return CompletableFuture.completedFuture(INSTALLED);
    }

    /**
     * Applies an operation that is not a commit (a named snapshot made or dropped, an agreed horizon).
     * Every node checks it against what it holds at this point of the log, so all decide alike; the
     * answer, the refusal or "applied", goes back to whoever submitted it.
     */
    private CompletableFuture<Message> apply(GroupOperation operation, TermIndex position) {
        // A failure to write throws out of the updater, as for commits: Ratis stops this node.
        CatalogException refusal =
                tree.applyOperation(operation, batch -> batch.put(KeySpace.META, APPLIED_KEY, bytes(position)));
        if (refusal != null) {
            LOG.info(
                    "Refused the group's {} of '{}' at {}: {}",
                    operation.kind(),
                    operation.name(),
                    position,
                    refusal.getMessage());
        }
        updateLastAppliedTermIndex(position);
        return CompletableFuture.completedFuture(
                Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeOperationOutcome(refusal, tree.lastVid()))));
    }

    private static byte[] bytes(TermIndex position) {
        byte[] positionBytes = new byte[16];
        ByteBuffer.wrap(positionBytes).putLong(position.getTerm()).putLong(position.getIndex());
        return positionBytes;
    }

    /**
     * Completes once this node has applied the log through {@code index} (at once if it has): a node
     * waits here for the operations it submitted, so that the caller sees them on this node.
     */
    CompletableFuture<Void> awaitApplied(long index) {
        CompletableFuture<Void> applied = new CompletableFuture<>();
        appliedWaiters
                .computeIfAbsent(index, i -> new ConcurrentLinkedQueue<>())
                .add(applied);
        // Applied meanwhile: nothing else would complete it.
        releaseAppliedWaiters();
        return applied;
    }

    @Override
    protected boolean updateLastAppliedTermIndex(long term, long index) {
        boolean updated = super.updateLastAppliedTermIndex(term, index);
        releaseAppliedWaiters();
        return updated;
    }

    private void releaseAppliedWaiters() {
        TermIndex last = getLastAppliedTermIndex();
        long applied = last == null ? -1 : last.getIndex();
        for (var head = appliedWaiters.firstEntry();
                head != null && head.getKey() <= applied;
                head = appliedWaiters.firstEntry()) {
            if (appliedWaiters.remove(head.getKey(), head.getValue())) {
                head.getValue().forEach(waiter -> waiter.complete(null));
            }
        }
    }

    /**
     * A replica's forwarded commit, on the leader (Ratis sends it here only while this node leads: it
     * travels as a leader-only read, which Ratis never retries on another node by itself). Answered with
     * the commit or the refusal, encoded; never fails the Ratis call.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer = this.sequencer;
        CompletableFuture<CommitResult> committed;
        ForwardedCommit commit;
        try {
            BsonDocument document =
                    ForwardingCodec.document(request.getContent().asReadOnlyByteBuffer());
            if (document.containsKey(ReplicaNode.BARRIER)) {
                // A linearizable read point: Ratis calls this once the node applied the leader's read index.
                return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(
                        ForwardingCodec.bytes(new BsonDocument("vid", new BsonInt64(tree.lastVid()))))));
            }
            if (CheckpointShipping.isCheckpointRequest(document)) {
                // A failure fails the Ratis call: the receiving node gives up this transfer and Ratis asks again.
                return CompletableFuture.supplyAsync(
                        () -> Message.valueOf(ByteString.copyFrom(ForwardingCodec.bytes(shipping.serve(document)))),
                        checkpoints);
            }
            commit = ForwardingCodec.decodeCommit(document);
        } catch (RuntimeException unreadable) {
            // Only nodes of the group send these: a node of another version, or a corrupt message.
            CatalogException refusal = new CatalogException(
                    ErrorCode.INVALID_REQUEST,
                    "The leader could not read a forwarded commit (are the nodes of one version?): " + unreadable
                            + "; nothing was committed");
            return CompletableFuture.completedFuture(
                    Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeRefusal(refusal, tree.lastVid()))));
        }
        try {
            committed = sequencer == null
                    ? CompletableFuture.failedFuture(new CatalogException(
                            ErrorCode.NO_LEADER, "The leader is not serving commits yet; nothing was committed"))
                    : sequencer.apply(commit);
        } catch (RuntimeException e) {
            committed = CompletableFuture.failedFuture(e);
        }
        return committed.handle((result, failure) -> {
            if (failure == null) {
                return Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeResult(result)));
            }
            Throwable cause = ReplicaNode.unwrap(failure);
            CatalogException refusal = cause instanceof CatalogException catalog
                    ? catalog
                    : new CatalogException(
                            ErrorCode.COMMIT_STATE_UNKNOWN, "The leader failed the forwarded commit: " + cause);
            return Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeRefusal(refusal, tree.lastVid())));
        });
    }

    void serveForwarded(Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer) {
        this.sequencer = sequencer;
    }

    /**
     * The leader no longer has the log entries this node needs next: receive a checkpoint of its store
     * and install it. Ratis asks again (of whoever leads then) if this fails; the store is left at a
     * consistent vid either way (see {@link VersionedTree#installCheckpoint}).
     *
     * @return the log position the installed checkpoint holds; Ratis goes on with the entries after it
     */
    @Override
    public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(
            RoleInfoProto role, TermIndex firstInLeaderLog) {
        RaftPeerId leader = RaftPeerId.valueOf(
                role.getFollowerInfo().getLeaderInfo().getId().getId());
        return CompletableFuture.supplyAsync(() -> installCheckpointFrom(leader, firstInLeaderLog), checkpoints);
    }

    private TermIndex installCheckpointFrom(RaftPeerId leader, TermIndex firstInLeaderLog) {
        TermIndex held = stored;
        if (held.getIndex() >= firstInLeaderLog.getIndex()) {
            // The store already holds what the log lacks (the node kept its store but lost its log). Holding
            // only the entry before the leader's log is not enough: the leader may no longer know that entry's
            // term, which its next append must name (CheckpointAwareRpc); a checkpoint takes the node past it.
            LOG.info(
                    "The store holds the group's log through {}; the leader's log starts at {}",
                    held,
                    firstInLeaderLog);
            return markSnapshot(held);
        }
        BiFunction<RaftPeerId, BsonDocument, BsonDocument> channel = checkpointChannel;
        if (channel == null) {
            throw new IllegalStateException("the node is not ready to receive a checkpoint yet");
        }
        LOG.info(
                "The leader {} no longer has the log after {} (its log starts at {}): receiving a checkpoint of its store",
                leader,
                held,
                firstInLeaderLog);
        long started = System.nanoTime();
        Path received;
        try {
            received = shipping.receive(request -> channel.apply(leader, request));
        } catch (IOException e) {
            throw new UncheckedIOException("could not receive a checkpoint from " + leader, e);
        }
        try (RocksKvStore checkpoint = RocksKvStore.open(received)) {
            byte[] applied = checkpoint.get(KeySpace.META, APPLIED_KEY);
            if (applied == null) {
                throw new IllegalStateException("the checkpoint from " + leader + " holds no log position");
            }
            TermIndex position = TermIndex.valueOf(PathKeys.readLong(applied, 0), PathKeys.readLong(applied, 8));
            if (position.getIndex() < firstInLeaderLog.getIndex() - 1) {
                throw new IllegalStateException("the checkpoint from " + leader + " holds the log through " + position
                        + ", short of the leader's log, which starts at " + firstInLeaderLog);
            }
            long vid;
            synchronized (installLock) {
                vid = tree.installCheckpoint(checkpoint, batch -> batch.put(KeySpace.META, APPLIED_KEY, applied));
                stored = position;
            }
            checkpointsInstalled.incrementAndGet();
            LOG.info(
                    "Installed the checkpoint from {} in {} ms: vid {}, the group's log through {}",
                    leader,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    vid,
                    position);
            return markSnapshot(position);
        } finally {
            CheckpointShipping.deleteRecursively(received);
        }
    }

    /** Records {@code position} as this node's newest snapshot: Ratis goes on from it after a reload. */
    private TermIndex markSnapshot(TermIndex position) {
        try {
            File marker = storage.getSnapshotFile(position.getTerm(), position.getIndex());
            Files.writeString(marker.toPath(), "vid " + tree.appliedVid() + "\n");
            storage.updateLatestSnapshot(new SingleFileSnapshotInfo(
                    new FileInfo(marker.toPath(), null), position.getTerm(), position.getIndex()));
            return position;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Before Ratis reloads this state machine after a checkpoint was installed. */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /**
     * After a checkpoint was installed: the store already holds it, so only the position Ratis goes on
     * from changes.
     */
    @Override
    public void reinitialize() {
        getLifeCycle().startAndTransition(() -> updateLastAppliedTermIndex(stored));
    }

    @Override
    public void close() throws IOException {
        checkpoints.shutdownNow();
        shipping.clear();
        super.close();
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        // Everything through `last` is in the store's WAL; sync it, then the log before it may go.
        tree.syncWal();
        File marker = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Files.writeString(marker.toPath(), "vid " + tree.appliedVid() + "\n");
        storage.updateLatestSnapshot(
                new SingleFileSnapshotInfo(new FileInfo(marker.toPath(), null), last.getTerm(), last.getIndex()));
        return last.getIndex();
    }
}
