package io.treecat.replication;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.ReplicatedCommit;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.PathKeys;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tree as Ratis's state machine, on every node of the group: installs agreed commits in log order
 * ({@link VersionedTree#applyReplicated}) and publishes them.
 *
 * <p>An entry is installed only when its vid is the node's next one; any other is skipped, alike on
 * every node since all apply the same log in the same order (see {@link CommitReplicator}). The log
 * position of each installed entry is written in the entry's own batch, so after a crash the node
 * knows exactly which entries its store holds and skips them when Ratis replays its log.
 *
 * <p>The store is the state: a snapshot is only a marker file naming the log position the store
 * holds durably (its WAL synced first), as in Apache Ozone. Ratis may then drop the log before it.
 */
final class TreeCatStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCatStateMachine.class);
    /** The log position (term, index) of the newest entry whose writes the store holds. */
    static final byte[] APPLIED_KEY = "raft_applied".getBytes(StandardCharsets.UTF_8);

    static final Message INSTALLED = Message.valueOf(ByteString.copyFrom(new byte[] {'I'}));
    static final Message SKIPPED = Message.valueOf(ByteString.copyFrom(new byte[] {'S'}));

    private final VersionedTree tree;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** Where forwarded commits go while this node leads: its transaction manager. */
    private volatile Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer;
    /** The newest log position the store holds, as read at start; entries up to it are replays. */
    private volatile TermIndex stored;

    TreeCatStateMachine(VersionedTree tree) {
        this.tree = tree;
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
        LogEntryProto entry = trx.getLogEntry();
        TermIndex position = TermIndex.valueOf(entry);
        if (position.getIndex() <= stored.getIndex()) {
            // A replay after a restart: the store already holds it (or skipped it alike before).
            updateLastAppliedTermIndex(position);
            return CompletableFuture.completedFuture(SKIPPED);
        }
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        ReplicatedCommit commit = ReplicatedCommit.decode(data);
        if (commit.vid() != tree.appliedVid() + 1) {
            LOG.info(
                    "Skipping the entry at {} for vid {}: the node is at vid {} (a leader change raced it)",
                    position,
                    commit.vid(),
                    tree.appliedVid());
            updateLastAppliedTermIndex(position);
            return CompletableFuture.completedFuture(SKIPPED);
        }
        byte[] positionBytes = new byte[16];
        ByteBuffer.wrap(positionBytes).putLong(position.getTerm()).putLong(position.getIndex());
        // A failure here throws out of the updater: Ratis stops this node rather than let it go on with a
        // store that may or may not hold the entry.
        tree.applyReplicated(commit, batch -> batch.put(KeySpace.META, APPLIED_KEY, positionBytes));
        tree.publish(commit.vid());
        updateLastAppliedTermIndex(position);
        return CompletableFuture.completedFuture(INSTALLED);
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
            commit = ForwardingCodec.decodeCommit(request.getContent().asReadOnlyByteBuffer());
        } catch (RuntimeException unreadable) {
            // Only nodes of the group send these: a node of another version, or a corrupt message.
            CatalogException refusal = new CatalogException(
                    ErrorCode.INVALID_REQUEST,
                    "The leader could not read a forwarded commit (are the nodes of one version?): " + unreadable
                            + "; nothing was committed");
            return CompletableFuture.completedFuture(
                    Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeRefusal(refusal))));
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
            return Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeRefusal(refusal)));
        });
    }

    void serveForwarded(Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer) {
        this.sequencer = sequencer;
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
