package io.treecat.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.ReplicatedCommit;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.retry.ExceptionDependentRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * One node of a replicated TreeCat group: a Ratis server whose state machine is this node's tree, and
 * the {@link CommitReplicator} its commit sequencer hands entries to while it leads.
 */
public final class ReplicaNode implements CommitReplicator, AutoCloseable {
    /** A member of the group: its id and the host:port its Raft transport listens on. */
    public record Peer(String id, String address) {
        public Peer {
            requireNonNull(id, "id is null");
            requireNonNull(address, "address is null");
        }
    }

    /**
     * How the group runs.
     *
     * @param group the group's name: the same on every node; its Raft group id is derived from it
     * @param electionTimeoutMin a follower that hears nothing from a leader for a random time between
     *     min and max stands for election
     * @param snapshotEvery entries between snapshots (the store's WAL synced and the log before dropped)
     * @param commitTimeout how long a commit waits for the group (and a forwarded one for the leader)
     *     before its outcome is reported unknown
     */
    public record Settings(
            String group,
            java.time.Duration electionTimeoutMin,
            java.time.Duration electionTimeoutMax,
            long snapshotEvery,
            java.time.Duration commitTimeout) {
        public static Settings defaults() {
            return new Settings(
                    "treecat",
                    java.time.Duration.ofSeconds(1),
                    java.time.Duration.ofSeconds(2),
                    100_000,
                    java.time.Duration.ofSeconds(30));
        }
    }

    private final RaftServer server;
    private final TreeCatStateMachine stateMachine;
    private final VersionedTree tree;
    /** Carries this node's commits to the leader while it is a replica. */
    private final RaftClient client;

    private final java.time.Duration commitTimeout;
    private final RaftGroupId groupId;
    private final RaftPeerId self;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();

    private ReplicaNode(
            RaftServer server,
            TreeCatStateMachine stateMachine,
            VersionedTree tree,
            RaftClient client,
            RaftGroupId groupId,
            RaftPeerId self,
            java.time.Duration commitTimeout) {
        this.server = server;
        this.stateMachine = stateMachine;
        this.tree = tree;
        this.client = client;
        this.groupId = groupId;
        this.self = self;
        this.commitTimeout = commitTimeout;
    }

    /**
     * Starts this node of the group. The tree starts replicating: from now on it changes only through
     * the group.
     *
     * @param raftDirectory where this node keeps the group's log; created if missing
     */
    public static ReplicaNode start(
            VersionedTree tree, String selfId, List<Peer> peers, Path raftDirectory, Settings settings) {
        Peer me = peers.stream()
                .filter(peer -> peer.id().equals(selfId))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException("node " + selfId + " is not one of the peers " + peers));
        RaftGroupId groupId =
                RaftGroupId.valueOf(UUID.nameUUIDFromBytes(settings.group().getBytes(StandardCharsets.UTF_8)));
        RaftGroup group = RaftGroup.valueOf(
                groupId,
                peers.stream()
                        .map(peer -> RaftPeer.newBuilder()
                                .setId(peer.id())
                                .setAddress(peer.address())
                                .build())
                        .toList());
        RaftProperties properties = new RaftProperties();
        try {
            Files.createDirectories(raftDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RaftServerConfigKeys.setStorageDir(properties, List.of(raftDirectory.toFile()));
        int port = Integer.parseInt(me.address().substring(me.address().lastIndexOf(':') + 1));
        GrpcConfigKeys.Server.setPort(properties, port);
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, duration(settings.electionTimeoutMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, duration(settings.electionTimeoutMax()));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, settings.snapshotEvery());
        tree.startReplicating();
        TreeCatStateMachine stateMachine = new TreeCatStateMachine(tree);
        try {
            RaftServer server = RaftServer.newBuilder()
                    .setServerId(RaftPeerId.valueOf(selfId))
                    .setGroup(group)
                    .setProperties(properties)
                    .setStateMachine(stateMachine)
                    .setOption(RaftStorage.StartupOption.RECOVER)
                    .build();
            server.start();
            return new ReplicaNode(
                    server,
                    stateMachine,
                    tree,
                    forwardingClient(group, settings),
                    groupId,
                    RaftPeerId.valueOf(selfId),
                    settings.commitTimeout());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start replica " + selfId, e);
        }
    }

    /**
     * The client that carries this node's commits to the leader. It follows a leader change only where
     * the request surely did not run (the node it reached did not lead, or was not ready); after any
     * other failure the request may have run on the leader, so it is not sent again and the commit's
     * outcome is unknown.
     */
    private static RaftClient forwardingClient(RaftGroup group, Settings settings) {
        RetryPolicy untilALeaderTakesIt = RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                (int) Math.max(1, settings.commitTimeout().toMillis() / 100),
                TimeDuration.valueOf(100, java.util.concurrent.TimeUnit.MILLISECONDS));
        RetryPolicy policy = ExceptionDependentRetry.newBuilder()
                .setExceptionToPolicy(NotLeaderException.class, untilALeaderTakesIt)
                .setExceptionToPolicy(LeaderNotReadyException.class, untilALeaderTakesIt)
                .setDefaultPolicy(RetryPolicies.noRetry())
                .build();
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, duration(settings.commitTimeout()));
        return RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                .setRetryPolicy(policy)
                .build();
    }

    private static TimeDuration duration(java.time.Duration duration) {
        return TimeDuration.valueOf(duration.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private RaftServer.Division division() {
        try {
            return server.getDivision(groupId);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String id() {
        return self.toString();
    }

    @Override
    public boolean leading() {
        var info = division().getInfo();
        return info.isLeader() && info.isLeaderReady();
    }

    /** The id of the leader this node knows of, if any. */
    public Optional<String> leader() {
        return Optional.ofNullable(division().getInfo().getLeaderId()).map(RaftPeerId::toString);
    }

    /** The current term, for metrics. */
    public long term() {
        return division().getInfo().getCurrentTerm();
    }

    /** The newest log index this node has applied. */
    public long appliedIndex() {
        return division().getInfo().getLastAppliedIndex();
    }

    @Override
    public CompletableFuture<Outcome> replicate(ReplicatedCommit commit) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(self)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(commit.encode())))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request).thenApply(reply -> outcome(reply, commit));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(noLeader(e));
        }
    }

    @Override
    public CompletableFuture<CommitResult> forward(ForwardedCommit commit) {
        Message request = Message.valueOf(ByteString.copyFrom(ForwardingCodec.encodeCommit(commit)));
        return client.async()
                .sendReadOnlyNonLinearizable(request)
                .handle((reply, failure) -> {
                    if (failure != null || !reply.isSuccess()) {
                        throw forwardFailed(failure != null ? failure : reply.getException());
                    }
                    return ForwardingCodec.decodeAnswer(
                            reply.getMessage().getContent().asReadOnlyByteBuffer());
                })
                // Answered once this node can read it too, so the caller reads its own write here.
                .thenCompose(result -> tree.awaitPublished(result.vid())
                        .completeOnTimeout(null, commitTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                        .thenApply(installed -> result));
    }

    private CatalogException forwardFailed(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        if (cause instanceof NotLeaderException || cause instanceof LeaderNotReadyException) {
            return noLeader(cause);
        }
        return new CatalogException(
                ErrorCode.COMMIT_STATE_UNKNOWN,
                "The commit was sent to the group's leader but no answer came back; it may or may not be committed: "
                        + cause,
                cause);
    }

    @Override
    public void serveForwarded(Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer) {
        stateMachine.serveForwarded(sequencer);
    }

    private Outcome outcome(RaftClientReply reply, ReplicatedCommit commit) {
        if (reply.getNotLeaderException() != null || reply.getLeaderNotReadyException() != null) {
            throw noLeader(reply.getException());
        }
        if (!reply.isSuccess()) {
            throw new CatalogException(
                            ErrorCode.COMMIT_STATE_UNKNOWN,
                            "The group failed the commit of version " + commit.vid() + ": " + reply.getException(),
                            reply.getException())
                    .with("vid", commit.vid());
        }
        ByteString answer = reply.getMessage().getContent();
        return answer.equals(TreeCatStateMachine.INSTALLED.getContent()) ? Outcome.INSTALLED : Outcome.SKIPPED;
    }

    private CatalogException noLeader(Throwable cause) {
        CatalogException e = new CatalogException(
                ErrorCode.NO_LEADER, "This node does not lead the group; nothing was committed", cause);
        leader().ifPresent(id -> e.with("leader", id));
        return e;
    }

    @Override
    public void close() {
        try {
            client.close();
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
