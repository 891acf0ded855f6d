package io.treecat.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitRecordCodec;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.replication.ReplicatedCommit;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvOp;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.VersionedTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.ratis.RaftConfigKeys;
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
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of a replicated TreeCat group: a Ratis server whose state machine is this node's tree, and
 * the {@link CommitReplicator} its commit sequencer hands entries to while it leads.
 */
public final class ReplicaNode implements CommitReplicator, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaNode.class);
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
     * @param snapshotEvery entries between snapshots (the store's WAL synced and the log before dropped);
     *     a node that needs entries from before the leader's last snapshot is sent a checkpoint instead
     * @param commitTimeout how long a commit waits for the group (and a forwarded one for the leader)
     *     before its outcome is reported unknown
     * @param logSegmentBytes the size of one file of the Raft log; the log is dropped a whole file at a
     *     time
     */
    public record Settings(
            String group,
            Duration electionTimeoutMin,
            Duration electionTimeoutMax,
            long snapshotEvery,
            Duration commitTimeout,
            long logSegmentBytes) {
        public static Settings defaults() {
            return new Settings(
                    "treecat",
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(2),
                    100_000,
                    Duration.ofSeconds(30),
                    32L << 20);
        }
    }

    private final RaftServer server;
    private final TreeCatStateMachine stateMachine;
    private final VersionedTree tree;
    /**
     * Carries this node's commits to the leader while it is a replica; replaced after a transport
     * failure, since Ratis keeps a failed peer's connection closed for a client that does not retry.
     */
    private volatile RaftClient client;

    private final RaftGroup group;
    private final ScheduledExecutorService forwardRetries;

    private final Duration commitTimeout;
    private final RaftGroupId groupId;
    private final RaftPeerId self;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    /** The highest horizon this node proposed while leading, so that passes do not propose it twice. */
    private final AtomicLong proposedHorizon = new AtomicLong();

    private ReplicaNode(
            RaftServer server,
            TreeCatStateMachine stateMachine,
            VersionedTree tree,
            RaftGroup group,
            RaftGroupId groupId,
            RaftPeerId self,
            Duration commitTimeout) {
        this.server = server;
        this.stateMachine = stateMachine;
        this.tree = tree;
        this.group = group;
        this.client = forwardingClient(group, commitTimeout);
        this.forwardRetries = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "treecat-forward-retries");
            thread.setDaemon(true);
            return thread;
        });
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
        RaftConfigKeys.Rpc.setType(properties, new CheckpointAwareRpc());
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, duration(settings.electionTimeoutMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, duration(settings.electionTimeoutMax()));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, settings.snapshotEvery());
        // The log is kept only back to the newest snapshot (Ozone does the same): a node that needs older
        // entries, a new one or one away for long, is told to install a snapshot, and receives a RocksDB
        // checkpoint of the leader's store (CheckpointShipping) rather than Ratis's own file transfer,
        // since a snapshot here is only a marker. CheckpointAwareRpc keeps the leader's log appender alive
        // when such a node's entries vanish under it.
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        RaftServerConfigKeys.Log.setPurgeGap(properties, (int) Math.min(1024, settings.snapshotEvery()));
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(settings.logSegmentBytes()));
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(properties, false);
        // Ratis holds back an append to a follower until 1 ms after the previous one, to send more entries
        // per request; here the sequencer has one entry in flight at a time, so the wait only delays the next
        // commit (in-process p50 2.9 -> 2.2 ms). A follower that stops answering is still paced, by Ratis's
        // slowness timeout.
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(properties, TimeDuration.ZERO);
        // Read-only requests go through Ratis's read index (linearizableVid); the leader answers its part
        // from its lease while it holds one, without a round of heartbeats.
        RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(properties, true);
        RaftServerConfigKeys.Read.setTimeout(properties, duration(settings.commitTimeout()));
        tree.startReplicating();
        TreeCatStateMachine stateMachine =
                new TreeCatStateMachine(tree, new CheckpointShipping(tree.store(), raftDirectory));
        try {
            RaftServer server = RaftServer.newBuilder()
                    .setServerId(RaftPeerId.valueOf(selfId))
                    .setGroup(group)
                    .setProperties(properties)
                    .setStateMachine(stateMachine)
                    .setOption(RaftStorage.StartupOption.RECOVER)
                    .build();
            server.start();
            ReplicaNode node = new ReplicaNode(
                    server, stateMachine, tree, group, groupId, RaftPeerId.valueOf(selfId), settings.commitTimeout());
            stateMachine.receiveCheckpointsThrough(node::askForCheckpoint);
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start replica " + selfId, e);
        }
    }

    /**
     * A client for forwarded commits, sent to the leader this node knows of. It never re-sends by
     * itself: {@link #forward} decides, since only it knows whether a failed request may have run.
     */
    private static RaftClient forwardingClient(RaftGroup group, Duration commitTimeout) {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, duration(commitTimeout));
        return RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                .setRetryPolicy(RetryPolicies.noRetry())
                .build();
    }

    private static TimeDuration duration(Duration duration) {
        return TimeDuration.valueOf(duration.toMillis(), TimeUnit.MILLISECONDS);
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

    /**
     * Waits until the group has a leader this node knows of (itself, ready to commit, or another), so
     * that what the server commits as it starts has somewhere to go. A group has a leader once a
     * majority of its nodes run: start them together, not one after another.
     *
     * @throws CatalogException {@code NO_LEADER} if none appeared within {@code timeout}
     */
    public void awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            var info = division().getInfo();
            boolean known = info.isLeader() ? info.isLeaderReady() : info.getLeaderId() != null;
            if (known) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new CatalogException(
                                ErrorCode.NO_LEADER,
                                "The replicated group elected no leader within " + timeout.toSeconds()
                                        + " s: is a majority of its peers running and reachable?")
                        .with("node", self.toString());
            }
            Thread.sleep(50);
        }
    }

    /** The current term, for metrics. */
    public long term() {
        return division().getInfo().getCurrentTerm();
    }

    /** The newest log index this node knows the group has agreed on. */
    public long commitIndex() {
        return division().getRaftLog().getLastCommittedIndex();
    }

    /**
     * On the leader, how many entries the furthest-behind follower lacks of the leader's log; 0 on a
     * follower (only the leader knows) and in a group of one.
     */
    public long maxFollowerLag() {
        var info = division().getInfo();
        if (!info.isLeader()) {
            return 0;
        }
        long next = division().getRaftLog().getNextIndex();
        long lag = 0;
        for (long match : info.getFollowerMatchIndices()) {
            lag = Math.max(lag, next - 1 - match);
        }
        return lag;
    }

    /**
     * On the leader, how many entries each follower lacks of the leader's log, by node id; empty on a follower
     * (only the leader knows) and in a group of one.
     */
    public Map<String, Long> followerLags() {
        var info = division().getInfo();
        if (!info.isLeader()) {
            return Map.of();
        }
        var followers = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
        long[] matches = info.getFollowerMatchIndices();
        if (matches == null || matches.length != followers.size()) {
            return Map.of(); // the membership changed between the two reads; the next sample has it
        }
        long last = division().getRaftLog().getNextIndex() - 1;
        Map<String, Long> lags = new TreeMap<>();
        for (int i = 0; i < matches.length; i++) {
            lags.put(RaftPeerId.valueOf(followers.get(i).getId().getId()).toString(), Math.max(0, last - matches[i]));
        }
        return lags;
    }

    /**
     * The first index this node's log still holds: entries before it were dropped after a snapshot, and a
     * node that needs them is sent a checkpoint.
     */
    public long logStartIndex() {
        return division().getRaftLog().getStartIndex();
    }

    /** The newest log index this node has applied. */
    public long appliedIndex() {
        return division().getInfo().getLastAppliedIndex();
    }

    @Override
    public CompletableFuture<Outcome> replicate(List<ReplicatedCommit> commits) {
        // The entry is installed whole or not at all: its first commit settles it.
        ReplicatedCommit commit = commits.get(0);
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(self)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(ReplicatedCommit.encodeAll(commits))))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request).thenCompose(reply -> {
                if (reply.getNotLeaderException() != null) {
                    return settle(commit, reply.getNotLeaderException());
                }
                return CompletableFuture.completedFuture(outcome(reply, commit));
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(
                    noLeader("This node could not hand the commit to the group; nothing was committed", e));
        }
    }

    @Override
    public CompletableFuture<Void> apply(GroupOperation operation) {
        return apply(operation, callIds.incrementAndGet());
    }

    /** Applies {@code operation} as this node's call {@code callId}: the same call again is the same invocation. */
    CompletableFuture<Void> apply(GroupOperation operation, long callId) {
        Message request = Message.valueOf(ByteString.copyFrom(operation.encode()));
        CompletableFuture<RaftClientReply> answered = new CompletableFuture<>();
        // A write request: the leader puts the operation in the log, and answers once it has applied it. Every
        // send is the same invocation (client id and call id), so Ratis's retry cache, which every node fills as
        // it applies the log, answers a re-send of one that ran with its first reply instead of running it again.
        toLeader(new LeaderCall<>(
                send -> request,
                RaftClientRequest.writeRequestType(),
                "operation",
                "applied",
                true,
                new Invocation(clientId, callId),
                System.nanoTime() + commitTimeout.toNanos(),
                answered,
                (reply, call) -> answered.complete(reply),
                new Sends()));
        return answered.thenCompose(reply -> {
            CatalogException refusal = ForwardingCodec.decodeOperationOutcome(
                    reply.getMessage().getContent().asReadOnlyByteBuffer());
            // Answered once this node has applied it too (refused or not), so the caller sees it here.
            CompletableFuture<Void> here = stateMachine
                    .awaitApplied(reply.getLogIndex())
                    .completeOnTimeout(null, commitTimeout.toMillis(), TimeUnit.MILLISECONDS);
            return refusal == null
                    ? here
                    : here.thenRun(() -> {
                        throw refusal;
                    });
        });
    }

    @Override
    public void proposeHorizon(long horizon) {
        if (!leading() || horizon <= tree.agreedHorizon() || horizon <= proposedHorizon.get()) {
            return;
        }
        proposedHorizon.accumulateAndGet(horizon, Math::max);
        CompletableFuture<Void> agreed = apply(GroupOperation.agreeHorizon(horizon));
        var unused = agreed.whenComplete((done, failure) -> {
            if (failure != null) {
                // The next pass proposes again (a proposal that did land is not repeated: the agreed horizon moved).
                proposedHorizon.accumulateAndGet(tree.agreedHorizon(), Math::min);
                LOG.debug(
                        "The group did not agree on horizon {}: {}",
                        horizon,
                        unwrap(failure).toString());
            }
        });
    }

    /** The field that marks a read-point request to the state machine. */
    static final String BARRIER = "barrier";

    @Override
    public CompletableFuture<Long> linearizableVid() {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(self)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(
                        ByteString.copyFrom(ForwardingCodec.bytes(new BsonDocument(BARRIER, BsonBoolean.TRUE)))))
                .setType(RaftClientRequest.readRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request).handle((reply, failure) -> {
                if (failure != null || !reply.isSuccess()) {
                    // No leader known, or it could not be reached (the read index travels to it).
                    throw noLeader(
                            "No leader confirmed the group's newest version for a linearizable read",
                            failure != null ? unwrap(failure) : reply.getException());
                }
                return ForwardingCodec.document(reply.getMessage().getContent().asReadOnlyByteBuffer())
                        .getInt64("vid")
                        .getValue();
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(
                    noLeader("No leader confirmed the group's newest version for a linearizable read", e));
        }
    }

    @Override
    public CompletableFuture<CommitResult> forward(ForwardedCommit commit) {
        CompletableFuture<CommitResult> answered = new CompletableFuture<>();
        // A non-linearizable read: the leader runs it at once if it leads (the commit goes through Raft
        // there, which is the leadership check that counts), with no read-index round first. That also
        // avoids how a read index fails on a leader that just lost the lead: Ratis answers a ReadException
        // caused by a NotLeaderException, its Java serialization of the cause fails (RaftPeer is not
        // Serializable), and no readable reply arrives, so a commit that never ran looked like one of
        // unknown outcome.
        // A re-send says so: the leader then looks for the first send in the commit log (ResentCommits).
        toLeader(new LeaderCall<>(
                send -> Message.valueOf(
                        ByteString.copyFrom(ForwardingCodec.encodeCommit(send == 0 ? commit : commit.resend()))),
                RaftClientRequest.readRequestType(true),
                "commit",
                "committed",
                true,
                null,
                System.nanoTime() + commitTimeout.toNanos(),
                answered,
                (reply, call) -> settleForwarded(reply, call, answered),
                new Sends()));
        // Answered once this node can read it too, so the caller reads its own write here.
        return answered.thenCompose(result -> tree.awaitPublished(result.vid())
                .completeOnTimeout(null, commitTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .thenApply(installed -> result));
    }

    /**
     * One request this node sends to the group's leader: a forwarded commit, or a group operation. Sent
     * one send at a time.
     *
     * @param message the message of each send, numbered from 0
     * @param what the request, in messages ("commit")
     * @param outcome what it does when it runs, in messages ("committed")
     * @param resendable whether a leader recognises a re-send of a request that ran (a forwarded commit by its
     *     request id, a group operation by its invocation), so that a send lost in transit may be sent again
     * @param invocation the client and call id of every send, or null for new ones per send
     * @param onReply what a successful reply means; it completes {@code answered}, or calls {@link
     *     #retryOrGiveUp} when the reply says the request never ran
     */
    private record LeaderCall<T>(
            IntFunction<Message> message,
            RaftClientRequest.Type type,
            String what,
            String outcome,
            boolean resendable,
            Invocation invocation,
            long deadline,
            CompletableFuture<T> answered,
            BiConsumer<RaftClientReply, LeaderCall<T>> onReply,
            Sends sends) {}

    /** How often a call was sent, and the failure of a send that may have run, if one did. */
    private static final class Sends {
        final AtomicInteger count = new AtomicInteger();
        final AtomicReference<Throwable> mayHaveRun = new AtomicReference<>();
    }

    /** The client id and call id Ratis knows a request by, in its retry cache. */
    private record Invocation(ClientId clientId, long callId) {}

    /**
     * Sends {@code call} to the leader this node knows of, and again to the next leader as long as the
     * failure says the request never ran (the node did not lead, was not ready, or could not be reached
     * at all), until its deadline. A resendable call is sent again after a failure in transit as well (the
     * connection broke, the leader stopped): the leader that takes the re-send answers with what the first
     * send did if it ran. After any other failure it may have run: the outcome is unknown and it is not sent
     * again.
     */
    private <T> void toLeader(LeaderCall<T> call) {
        RaftPeerId leader = division().getInfo().getLeaderId();
        if (leader == null) {
            retryOrGiveUp(call, null);
            return;
        }
        RaftClient current = client;
        // Unordered: these requests are independent, and Ratis's ordered stream closes for good after one
        // failure. Through the client's RPC directly: AsyncApi sends a non-linearizable read only on the
        // ordered stream, and only to the leader the client thinks of.
        Invocation invocation = call.invocation() != null
                ? call.invocation()
                : new Invocation(current.getId(), callIds.incrementAndGet());
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(invocation.clientId())
                .setServerId(leader)
                .setGroupId(groupId)
                .setCallId(invocation.callId())
                .setMessage(call.message().apply(call.sends().count.getAndIncrement()))
                .setType(call.type())
                .build();
        // `answered` is completed in every branch below; the chained stage carries nothing more.
        var unused = current.getClientRpc().sendRequestAsyncUnordered(request).whenComplete((reply, failure) -> {
            Throwable cause = failure != null ? unwrap(failure) : reply.isSuccess() ? null : reply.getException();
            if (cause == null) {
                call.onReply().accept(reply, call);
            } else if (neverRan(cause) || (call.resendable() && inTransit(cause))) {
                if (!(cause instanceof NotLeaderException) && !(cause instanceof LeaderNotReadyException)) {
                    renewClient(current);
                }
                if (call.resendable() && !neverSent(cause)) {
                    // Perhaps another request's answer (see neverRan): this one may have run.
                    call.sends().mayHaveRun.set(cause);
                }
                retryOrGiveUp(call, cause);
            } else {
                renewClient(current);
                call.answered()
                        .completeExceptionally(new CatalogException(
                                        ErrorCode.COMMIT_STATE_UNKNOWN,
                                        "The " + call.what() + " was sent to the group's leader but no answer came"
                                                + " back; it may or may not be " + call.outcome() + ": " + cause,
                                        cause)
                                .with("leader", leader.toString()));
            }
        });
    }

    private <T> void retryOrGiveUp(LeaderCall<T> call, Throwable cause) {
        Throwable lost = call.sends().mayHaveRun.get();
        if (System.nanoTime() > call.deadline() && lost != null) {
            call.answered()
                    .completeExceptionally(new CatalogException(
                            ErrorCode.COMMIT_STATE_UNKNOWN,
                            "The " + call.what() + " was sent to the group's leader, no answer came back, and no"
                                    + " leader took it again within " + commitTimeout.toSeconds()
                                    + " s (replication.commit-timeout); it may or may not be " + call.outcome()
                                    + ": " + lost,
                            lost));
            return;
        }
        if (System.nanoTime() > call.deadline()) {
            call.answered()
                    .completeExceptionally(noLeader(
                            "No leader of the group took the " + call.what() + " within "
                                    + commitTimeout.toSeconds() + " s (replication.commit-timeout); nothing was "
                                    + call.outcome(),
                            cause));
            return;
        }
        try {
            var unused = forwardRetries.schedule(() -> toLeader(call), 50, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            call.answered()
                    .completeExceptionally(noLeader(
                            "This node is stopping; the " + call.what() + " was not sent, nothing was "
                                    + call.outcome(),
                            cause));
        }
    }

    /** The leader's answer to a forwarded commit: the commit, a refusal, or "I no longer lead" (sent again). */
    private void settleForwarded(
            RaftClientReply reply, LeaderCall<CommitResult> call, CompletableFuture<CommitResult> answered) {
        ForwardingCodec.Answer answer;
        try {
            answer =
                    ForwardingCodec.decodeAnswer(reply.getMessage().getContent().asReadOnlyByteBuffer());
        } catch (RuntimeException unreadable) {
            answered.completeExceptionally(unreadable);
            return;
        }
        CatalogException refusal = answer.refusal();
        if (refusal == null) {
            answered.complete(answer.result());
        } else if (refusal.code() == ErrorCode.NO_LEADER) {
            // The node had stopped leading: it committed nothing, so the next leader may take it.
            retryOrGiveUp(call, refusal);
        } else {
            // Refused once this node has what the leader had then: a caller who retries after a
            // conflict reads the write it conflicted with here, instead of conflicting again.
            var settled = tree.awaitPublished(answer.leaderVid())
                    .completeOnTimeout(null, commitTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((installed, failed) -> answered.completeExceptionally(refusal));
        }
    }

    /** Whether the request never left this node: no connection to the leader could be made. */
    private static boolean neverSent(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a request failed in transit: the connection broke or the stream closed under it (gRPC's
     * failures, as Ratis's client reports them), not an answer of the leader's.
     */
    private static boolean inTransit(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof IOException && !(t instanceof RaftException)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a failure says the request never reached a leader that could have run it: the node did not
     * lead, was not ready, or could not be reached at all. For the request that got that answer it is true;
     * but Ratis's client fails every request waiting on the same stream with the NotLeaderException or
     * LeaderNotReadyException one of them got, and with AlreadyClosedException when the server closes the
     * stream, whether or not the others ran. Only a resendable call, which a leader recognises when sent again,
     * is safe against that ({@link #neverSent} is the one failure that holds for every request).
     */
    private static boolean neverRan(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof NotLeaderException
                    || t instanceof LeaderNotReadyException
                    || t instanceof AlreadyClosedException
                    || t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    private synchronized void renewClient(RaftClient failed) {
        if (client != failed) {
            return; // another failure renewed it already
        }
        client = forwardingClient(group, commitTimeout);
        // Closed only once the requests still in flight on it are answered or timed out: closing it now would fail
        // them with AlreadyClosedException, which must keep meaning "never ran" (a closing server), since a
        // request failed that way is sent again.
        try {
            var unused = forwardRetries.schedule(
                    () -> closeQuietly(failed), commitTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            closeQuietly(failed);
        }
    }

    private static void closeQuietly(RaftClient dropped) {
        try {
            dropped.close();
        } catch (IOException | RuntimeException e) {
            // A failed client's close may fail as well: it is dropped either way.
        }
    }

    /** The failure a future's wrappers carry. */
    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * How long one step of a checkpoint transfer may take (a 4 MiB chunk, or making the checkpoint: hard
     * links after a memtable flush). A node that receives one does not acknowledge entries meanwhile, so
     * with another node down the group waits for it: when the sending node freezes or dies mid-transfer,
     * the receiver gives up soon and Ratis tells it again, naming the leader it has by then.
     */
    private static final Duration CHECKPOINT_STEP_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Sends one step of a checkpoint transfer to {@code peer} and waits for its answer (each step is a
     * file chunk at most): on the thread that installs checkpoints, never on Ratis's own.
     */
    private BsonDocument askForCheckpoint(RaftPeerId peer, BsonDocument request) {
        Message message = Message.valueOf(ByteString.copyFrom(ForwardingCodec.bytes(request)));
        RaftClient current = client;
        // A stale read (minimum index 0), unordered, to that node: a step reads the files of a checkpoint the node
        // made, which needs neither its lead nor a read index. A linearizable read paid a read-index round per 4 MiB
        // chunk, and on a node that had just lost the lead failed with Ratis's unreadable ReadException (see send).
        RaftClientRequest step = RaftClientRequest.newBuilder()
                .setClientId(current.getId())
                .setServerId(peer)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(RaftClientRequest.staleReadRequestType(0))
                .build();
        try {
            RaftClientReply reply = current.getClientRpc()
                    .sendRequestAsyncUnordered(step)
                    .get(Math.min(commitTimeout.toMillis(), CHECKPOINT_STEP_TIMEOUT.toMillis()), TimeUnit.MILLISECONDS);
            if (!reply.isSuccess()) {
                throw new IllegalStateException(
                        "node " + peer + " refused the checkpoint step: " + reply.getException());
            }
            return ForwardingCodec.document(reply.getMessage().getContent().asReadOnlyByteBuffer());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while receiving a checkpoint", e);
        } catch (ExecutionException | TimeoutException e) {
            renewClient(current);
            throw new IllegalStateException("node " + peer + " did not answer a checkpoint step: " + unwrap(e), e);
        }
    }

    /** The group's members as this node knows them (its newest configuration). */
    public List<Peer> members() {
        return division().getGroup().getPeers().stream()
                .map(peer -> new Peer(peer.getId().toString(), peer.getAddress()))
                .sorted(Comparator.comparing(Peer::id))
                .toList();
    }

    /**
     * Adds a node to the group. The node must be running (started with the new member list): the leader
     * first brings it up to date, from a checkpoint of its store if its log no longer covers what the
     * node lacks, and only then makes it a member. Adding a member that is already one, at the same
     * address, changes nothing.
     *
     * @return the members afterwards
     * @throws CatalogException {@code INVALID_REQUEST} for an id that is a member at another address;
     *     {@code NO_LEADER} if the group did not take the change (nothing changed then, or it may still
     *     complete: list the members)
     */
    public List<Peer> addMember(Peer peer, Duration timeout) {
        List<Peer> now = members();
        for (Peer member : now) {
            if (member.id().equals(peer.id())) {
                if (member.address().equals(peer.address())) {
                    return now;
                }
                throw new CatalogException(
                                ErrorCode.INVALID_REQUEST, "The node is a member already, at another address")
                        .with("node", peer.id())
                        .with("address", member.address());
            }
        }
        List<Peer> next = new ArrayList<>(now);
        next.add(peer);
        return reconfigure(next, timeout, "add " + peer.id());
    }

    /**
     * Removes a node from the group (the leader too: it hands over first). Stop the removed node's server
     * afterwards. Removing a node that is no member changes nothing.
     *
     * @return the members afterwards
     * @throws CatalogException {@code INVALID_REQUEST} when it would leave no member
     */
    public List<Peer> removeMember(String id, Duration timeout) {
        List<Peer> now = members();
        List<Peer> next = now.stream().filter(member -> !member.id().equals(id)).toList();
        if (next.size() == now.size()) {
            return now;
        }
        if (next.isEmpty()) {
            throw new CatalogException(ErrorCode.INVALID_REQUEST, "A group keeps at least one member").with("node", id);
        }
        return reconfigure(next, timeout, "remove " + id);
    }

    private List<Peer> reconfigure(List<Peer> members, Duration timeout, String change) {
        List<RaftPeer> peers = members.stream()
                .map(member -> RaftPeer.newBuilder()
                        .setId(member.id())
                        .setAddress(member.address())
                        .build())
                .toList();
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, duration(timeout));
        // Ratis's client finds the leader itself (redirects and retries) for this one call.
        try (RaftClient admin = RaftClient.newBuilder()
                .setRaftGroup(division().getGroup())
                .setProperties(properties)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        20, TimeDuration.valueOf(500, TimeUnit.MILLISECONDS)))
                .build()) {
            RaftClientReply reply = admin.admin().setConfiguration(peers);
            if (!reply.isSuccess()) {
                throw noLeader("The group did not take the membership change (" + change + ")", reply.getException());
            }
        } catch (IOException e) {
            throw noLeader("The group did not take the membership change (" + change + ")", e);
        }
        return members();
    }

    /** How many checkpoints of another node's store this node installed since it started. */
    public long checkpointsInstalled() {
        return stateMachine.checkpointsInstalled();
    }

    @Override
    public void serveForwarded(Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer) {
        stateMachine.serveForwarded(sequencer);
    }

    /**
     * The outcome of an entry whose leader stepped down before the group confirmed it. Ratis answers it "not
     * leader" whether or not the entry made it into the log, and an entry in the log may still be committed by
     * the next leader. The entry's vid settles it: once this node has installed that vid, either this entry is
     * the one installed there, or another one is and this one is skipped wherever it turns up. Unknown if the vid
     * is not installed within the commit timeout.
     */
    private CompletableFuture<Outcome> settle(ReplicatedCommit commit, Throwable notLeader) {
        byte[] ours = commit.ops().stream()
                .filter(op -> op.space() == KeySpace.COMMIT_LOG && op.kind() == KvOp.Kind.PUT)
                .map(KvOp::value)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("a replicated commit without its commit record"));
        CompletableFuture<Void> decided = tree.awaitPublished(commit.vid());
        return decided.orTimeout(commitTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .handle((installed, failure) -> {
                    if (failure != null) {
                        throw new CatalogException(
                                        ErrorCode.COMMIT_STATE_UNKNOWN,
                                        "This node stopped leading before the group confirmed the commit of version "
                                                + commit.vid() + ", and the group has not settled that version within "
                                                + commitTimeout.toSeconds() + " s; it may or may not be committed",
                                        notLeader)
                                .with("vid", commit.vid());
                    }
                    byte[] record = tree.store().get(KeySpace.COMMIT_LOG, CommitRecordCodec.key(commit.vid()));
                    if (Arrays.equals(record, ours)) {
                        return Outcome.INSTALLED;
                    }
                    throw noLeader(
                            "This node stopped leading before the group confirmed the commit, and another commit took "
                                    + "its version " + commit.vid() + "; nothing was committed",
                            notLeader);
                });
    }

    private Outcome outcome(RaftClientReply reply, ReplicatedCommit commit) {
        if (reply.getLeaderNotReadyException() != null) {
            // Refused before it entered the log.
            throw noLeader(
                    "This node was not ready to lead when the commit came; nothing was committed",
                    reply.getException());
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

    private CatalogException noLeader(String message, Throwable cause) {
        CatalogException e = new CatalogException(ErrorCode.NO_LEADER, message, cause);
        leader().ifPresent(id -> e.with("leader", id));
        return e;
    }

    @Override
    public void close() {
        try {
            forwardRetries.shutdownNow();
            client.close();
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
