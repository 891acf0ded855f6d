package io.treecat.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.SerializabilityOracle;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes of a group in one JVM, each with its own RocksDB and Raft log on loopback: commits are
 * installed on every node at the same vid with the same content; a replica's commits and transactions
 * go to the leader, which validates them against what they read; a new leader takes over when the old
 * one stops; a node that was away catches up when it comes back.
 */
class TestReplicatedGroup {
    private static final ReplicaNode.Settings FAST = new ReplicaNode.Settings(
            "test", Duration.ofMillis(300), Duration.ofMillis(600), 100_000, Duration.ofSeconds(10), 32L << 20);

    @TempDir
    Path directory;

    private ReplicaNode.Settings settings = FAST;

    private final List<ReplicaNode.Peer> peers = new ArrayList<>();
    private final Map<String, Node> nodes = new HashMap<>();

    /** One running node: its catalog (store, tree, transactions) and its Raft server. */
    private record Node(CatalogService catalog, ReplicaNode replica) implements AutoCloseable {
        VersionedTree tree() {
            return catalog.tree();
        }

        @Override
        public void close() {
            replica.close();
            catalog.close();
        }
    }

    @AfterEach
    void stopAll() {
        nodes.values().forEach(Node::close);
    }

    private void startGroup() throws IOException {
        for (String id : List.of("n1", "n2", "n3")) {
            peers.add(new ReplicaNode.Peer(id, "127.0.0.1:" + freePort()));
        }
        for (ReplicaNode.Peer peer : peers) {
            start(peer.id());
        }
    }

    private Node start(String id) {
        VersionedTree tree =
                VersionedTree.open(RocksKvStore.open(directory.resolve(id).resolve("store")));
        CatalogService catalog = new CatalogService(tree, TransactionConfig.defaults(), Clock.systemUTC());
        ReplicaNode replica =
                ReplicaNode.start(tree, id, peers, directory.resolve(id).resolve("raft"), settings);
        catalog.transactions().replicateThrough(replica, Duration.ofSeconds(10));
        Node node = new Node(catalog, replica);
        nodes.put(id, node);
        return node;
    }

    private void stop(String id) {
        nodes.remove(id).close();
    }

    private Node awaitLeader() {
        until(() -> nodes.values().stream().filter(n -> n.replica().leading()).count() == 1, "one leader");
        return nodes.values().stream()
                .filter(n -> n.replica().leading())
                .findFirst()
                .orElseThrow();
    }

    private Node aReplica(Node leader) {
        return nodes.values().stream()
                .filter(n -> !n.replica().id().equals(leader.replica().id()))
                .findFirst()
                .orElseThrow();
    }

    private static CommitResult add(Node node, String path) {
        return node.catalog()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'database'}"))));
    }

    private static CommitResult addFile(Node node, String path, int size) {
        return node.catalog()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.parse(path),
                        ObjectKind.LEAF,
                        new BsonDocument("size", new org.bson.BsonInt32(size)))));
    }

    @Test
    void commitsOnTheLeaderAreInstalledOnEveryNodeAtTheSameVid() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        List<Long> vids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            vids.add(add(leader, "/db" + i).vid());
        }
        assertThat(vids).isSorted().doesNotHaveDuplicates();
        long last = vids.get(vids.size() - 1);
        // The leader knows each follower's lag; the followers have it all soon.
        assertThat(leader.replica().followerLags())
                .containsOnlyKeys(nodes.keySet().stream()
                        .filter(id -> !id.equals(leader.replica().id()))
                        .toList());
        until(() -> leader.replica().followerLags().values().stream().allMatch(lag -> lag == 0), "no lag");
        assertThat(aReplica(leader).replica().followerLags()).isEmpty();
        assertThat(leader.tree().lastVid()).isEqualTo(last); // acknowledged means readable on the leader
        for (Node node : nodes.values()) {
            until(() -> node.tree().lastVid() >= last, "every node at vid " + last);
            for (int i = 0; i < 20; i++) {
                assertThat(node.tree().read(ObjectPath.parse("/db" + i), vids.get(i)))
                        .as("/db%d on %s", i, node.replica().id())
                        .isPresent();
                assertThat(node.tree().read(ObjectPath.parse("/db" + i), vids.get(i) - 1))
                        .isEmpty();
            }
        }
    }

    @Test
    void commitsThatWaitTogetherShareOneEntryOfTheLogAndLandAlikeOnEveryNode() throws Exception {
        startGroup();
        Node leader = awaitLeader();
        add(leader, "/db");
        long firstIndex = leader.replica().appliedIndex();
        long firstVid = leader.tree().appliedVid();
        int threads = 8;
        int each = 25;
        ExecutorService writers = Executors.newFixedThreadPool(threads);
        List<Future<List<Long>>> written = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            written.add(writers.submit(() -> {
                List<Long> vids = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    vids.add(add(leader, "/db/w" + thread + "_" + i).vid());
                }
                return vids;
            }));
        }
        Map<Long, String> byVid = new TreeMap<>();
        for (int t = 0; t < threads; t++) {
            List<Long> vids = written.get(t).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < each; i++) {
                assertThat(byVid.put(vids.get(i), "/db/w" + t + "_" + i))
                        .as("vid %d taken twice", vids.get(i))
                        .isNull();
            }
        }
        writers.shutdown();
        long commits = (long) threads * each;
        long lastVid = firstVid + commits;
        assertThat(byVid.keySet())
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(firstVid + 1, lastVid).boxed().toList());
        // Group commits: fewer log entries than commits.
        assertThat(leader.replica().appliedIndex() - firstIndex).isLessThan(commits);
        for (Node node : nodes.values()) {
            until(() -> node.tree().lastVid() >= lastVid, "every node at vid " + lastVid);
            byVid.forEach((vid, path) -> {
                assertThat(node.tree().read(ObjectPath.parse(path), vid))
                        .as("%s at its vid %d on %s", path, vid, node.replica().id())
                        .isPresent();
                assertThat(node.tree().read(ObjectPath.parse(path), vid - 1)).isEmpty();
            });
            assertThat(node.tree().log().find(lastVid))
                    .isEqualTo(leader.tree().log().find(lastVid));
        }
    }

    @Test
    void aReplicaForwardsItsCommitsToTheLeaderAndReadsThemAtOnce() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        Node replica = aReplica(leader);
        CommitResult forwarded = add(replica, "/from_replica");
        // Acknowledged on the replica only once it can read it there.
        assertThat(replica.tree().lastVid()).isGreaterThanOrEqualTo(forwarded.vid());
        assertThat(replica.tree().read(ObjectPath.parse("/from_replica"), forwarded.vid()))
                .isPresent();
        assertThat(leader.tree().read(ObjectPath.parse("/from_replica"), forwarded.vid()))
                .isPresent();
        assertThat(forwarded.changes()).singleElement().satisfies(change -> {
            assertThat(change.path()).isEqualTo(ObjectPath.parse("/from_replica"));
            assertThat(change.after().getString("obj_type").getValue()).isEqualTo("database");
        });
        // A precondition the leader checks comes back as the same error.
        assertThatThrownBy(() -> add(replica, "/from_replica"))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_ALREADY_EXISTS));
    }

    @Test
    void aReplicasTransactionIsValidatedOnTheLeaderAgainstWhatItRead() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        Node replica = aReplica(leader);
        add(leader, "/t");
        long seeded = addFile(leader, "/t/f1", 20).vid();
        until(() -> replica.tree().lastVid() >= seeded, "the replica caught up");

        // The replica's transaction reads the big files of /t, then writes elsewhere; meanwhile a big
        // file is added through the leader: a phantom in what it read.
        Transaction reader = replica.catalog().begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(replica.catalog()
                        .query(reader.id(), QueryRequest.of("/[obj_id='t']/[size > 10]"))
                        .rows())
                .hasSize(1);
        addFile(leader, "/t/f2", 30);
        assertThatThrownBy(() -> replica.catalog().commit(reader.id(), WriteSet.of(summary(1))))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));

        // The refusal came once the replica had what the leader had then: the retry reads the file it
        // conflicted with at once. A small file is outside the predicate: no conflict.
        Transaction second = replica.catalog().begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        assertThat(replica.catalog()
                        .query(second.id(), QueryRequest.of("/[obj_id='t']/[size > 10]"))
                        .rows())
                .hasSize(2);
        addFile(leader, "/t/f3", 1);
        long committed =
                replica.catalog().commit(second.id(), WriteSet.of(summary(2))).vid();
        assertThat(leader.tree().read(ObjectPath.parse("/summary"), committed)).isPresent();
    }

    /**
     * A replica sends a commit again when the answer to the first send was lost (Ratis's client fails every
     * request waiting on a connection with the "not leader" answer one of them got): the same leader, or the
     * next one, answers every send with the one commit the first made.
     */
    @Test
    void aForwardedCommitSentAgainCommitsOnceAndEverySendIsAnsweredWithIt() throws Exception {
        startGroup();
        Node leader = awaitLeader();
        long seeded = add(leader, "/db").vid();
        Node replica = aReplica(leader);
        until(() -> replica.tree().lastVid() >= seeded, "the replica caught up");
        ForwardedCommit commit = ForwardedCommit.first(
                List.of(),
                seeded,
                WriteSet.of(
                        new WriteOp.Add(
                                ObjectPath.parse("/db/t"), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'table'}")),
                        new WriteOp.Update(
                                ObjectPath.parse("/db"),
                                ObjectKind.INNER,
                                BsonDocument.parse("{obj_type: 'database', n: 2}"))),
                false,
                seeded);

        CommitResult first = replica.replica().forward(commit).get(10, TimeUnit.SECONDS);
        assertThat(first.changes()).hasSize(2);
        // Sent again to the leader that ran it, and at once twice more, as a first send and as a re-send.
        assertSameCommit(replica.replica().forward(commit.resend()).get(10, TimeUnit.SECONDS), first);
        var together =
                List.of(replica.replica().forward(commit), replica.replica().forward(commit.resend()));
        for (var answer : together) {
            assertSameCommit(answer.get(10, TimeUnit.SECONDS), first);
        }

        // And to the next leader, which finds it in the commit log.
        String firstLeader = leader.replica().id();
        stop(firstLeader);
        Node next = awaitLeader();
        Node sender =
                nodes.values().stream().filter(node -> node != next).findFirst().orElseThrow();
        assertSameCommit(sender.replica().forward(commit.resend()).get(10, TimeUnit.SECONDS), first);

        for (Node node : nodes.values()) {
            until(
                    () -> node.tree().lastVid() >= first.vid(),
                    "node " + node.replica().id() + " caught up");
            assertThat(node.tree().lastVid()).as("no second commit").isEqualTo(first.vid());
            assertThat(node.tree()
                            .log()
                            .find(first.vid())
                            .orElseThrow()
                            .origin()
                            .requestId())
                    .isEqualTo(commit.requestId());
        }

        // A re-send whose first send never reached a leader commits, once.
        ForwardedCommit lost = ForwardedCommit.first(
                List.of(),
                first.vid(),
                WriteSet.of(new WriteOp.Add(
                        ObjectPath.parse("/db/u"), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'table'}"))),
                false,
                first.vid());
        CommitResult committed = sender.replica().forward(lost.resend()).get(10, TimeUnit.SECONDS);
        assertThat(committed.vid()).isEqualTo(first.vid() + 1);
        assertSameCommit(sender.replica().forward(lost.resend()).get(10, TimeUnit.SECONDS), committed);
        assertThat(next.tree().lastVid()).isEqualTo(committed.vid());
    }

    /**
     * A group operation sent again (the same Ratis invocation: this node's client id and the call's id) is
     * answered by Ratis's retry cache with its first reply, on the leader that ran it and on the next one,
     * instead of running twice: a second "create snapshot" is not refused as taken.
     */
    @Test
    void aGroupOperationSentAgainRunsOnce() throws Exception {
        startGroup();
        Node leader = awaitLeader();
        long vid = add(leader, "/a").vid();
        Node replica = aReplica(leader);
        until(() -> replica.tree().lastVid() >= vid, "the replica caught up");
        GroupOperation create = GroupOperation.createSnapshot("once", vid);

        replica.replica().apply(create, 1_000_001).get(10, TimeUnit.SECONDS);
        replica.replica().apply(create, 1_000_001).get(10, TimeUnit.SECONDS);
        // The replica may lead now: it sends to itself then, and its cache, filled as it applied the log, answers.
        stop(leader.replica().id());
        awaitLeader();
        replica.replica().apply(create, 1_000_001).get(10, TimeUnit.SECONDS);
        for (Node node : nodes.values()) {
            assertThat(node.tree().listSnapshots())
                    .singleElement()
                    .satisfies(snapshot -> assertThat(snapshot.vid()).isEqualTo(vid));
        }
        // Another call of the same operation is a new one: refused, the name is taken.
        assertThatThrownBy(() -> replica.replica().apply(create).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(CatalogException.class)
                .cause()
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.SNAPSHOT_ALREADY_EXISTS));
    }

    /** The same commit, its changes with the objects before and after (in any order: the log keeps path order). */
    private static void assertSameCommit(CommitResult answer, CommitResult commit) {
        assertThat(answer.vid()).isEqualTo(commit.vid());
        assertThat(answer.changes()).containsExactlyInAnyOrderElementsOf(commit.changes());
    }

    private static WriteOp summary(int files) {
        return new WriteOp.Add(
                ObjectPath.parse("/summary"),
                ObjectKind.INNER,
                new BsonDocument("files", new org.bson.BsonInt32(files)));
    }

    @Test
    void aNewLeaderTakesOverAndTheOldOneCatchesUpWhenItReturns() throws IOException {
        startGroup();
        Node first = awaitLeader();
        long before = add(first, "/before").vid();
        String firstId = first.replica().id();
        stop(firstId);

        Node second = awaitLeader();
        assertThat(second.replica().id()).isNotEqualTo(firstId);
        assertThat(second.tree().read(ObjectPath.parse("/before"), second.tree().lastVid()))
                .isPresent();
        long after = add(second, "/after").vid();
        assertThat(after).isGreaterThan(before);

        Node back = start(firstId);
        until(() -> back.tree().lastVid() >= after, "the returning node at vid " + after);
        assertThat(back.tree().read(ObjectPath.parse("/after"), after)).isPresent();
        assertThat(back.tree().read(ObjectPath.parse("/before"), before)).isPresent();
        // And it forwards its own commits to the new leader.
        long third = add(back, "/back").vid();
        assertThat(second.tree().read(ObjectPath.parse("/back"), third)).isPresent();
    }

    @Test
    void aLinearizableReadPointOnAReplicaCoversEveryCommitAcknowledgedBeforeIt() throws Exception {
        startGroup();
        Node leader = awaitLeader();
        Node replica = aReplica(leader);
        for (int i = 0; i < 50; i++) {
            long committed = add(leader, "/linearizable" + i).vid();
            long point = replica.replica().linearizableVid().get(10, TimeUnit.SECONDS);
            assertThat(point).isGreaterThanOrEqualTo(committed);
            assertThat(replica.tree().lastVid()).isGreaterThanOrEqualTo(point);
            assertThat(replica.tree().read(ObjectPath.parse("/linearizable" + i), point))
                    .isPresent();
        }
        // Without a majority no leader can confirm a read point.
        String alone = replica.replica().id();
        for (String id : List.copyOf(nodes.keySet())) {
            if (!id.equals(alone)) {
                stop(id);
            }
        }
        assertThatThrownBy(() -> replica.replica().linearizableVid().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NO_LEADER));
    }

    @Test
    void transactionsThroughEveryNodeReplaySeriallyInVidOrderAndEveryStoreEndsTheSame() throws Exception {
        startGroup();
        awaitLeader();
        List<CatalogService> catalogs =
                nodes.values().stream().map(Node::catalog).toList();
        // Two threads per node: a replica's transactions read its own store and are validated on the leader.
        SerializabilityOracle.Outcome outcome = SerializabilityOracle.run(catalogs, 6, 1_500, 200, 0, "group");
        System.out.printf(
                "group of 3: %d attempts, %d committed, %d aborted, %d read-only%n",
                outcome.attempts(), outcome.committed(), outcome.aborted(), outcome.readOnly());
    }

    /** Snapshots every 20 entries and small log files, so that the leader drops its log early. */
    @Test
    void aSnapshotNamedThroughAnyNodeNamesTheSameVidOnEveryNodeAndIsDroppedEverywhere() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        long withoutB = add(leader, "/a").vid();
        long last = add(leader, "/b").vid();
        Node replica = aReplica(leader);
        until(() -> replica.tree().lastVid() >= last, "the replica at vid " + last);

        // Made through a replica: the leader puts it in the log, and the replica has it when the call returns.
        assertThat(replica.catalog()
                        .createSnapshot("before_b", ReadPoint.vid(withoutB))
                        .vid())
                .isEqualTo(withoutB);
        assertThat(replica.tree().snapshotVid("before_b")).isEqualTo(withoutB);
        for (Node node : nodes.values()) {
            until(
                    () -> node.tree().findSnapshot("before_b").isPresent(),
                    "the snapshot on " + node.replica().id());
            long vid = node.tree().snapshotVid("before_b");
            assertThat(vid).isEqualTo(withoutB);
            assertThat(node.tree().read(ObjectPath.parse("/a"), vid)).isPresent();
            assertThat(node.tree().read(ObjectPath.parse("/b"), vid)).isEmpty();
        }
        // The name is taken on every node: refused alike, wherever it is asked.
        for (Node node : nodes.values()) {
            assertThatThrownBy(() -> node.catalog().createSnapshot("before_b", ReadPoint.LATEST))
                    .isInstanceOfSatisfying(
                            CatalogException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.SNAPSHOT_ALREADY_EXISTS));
        }
        assertThatThrownBy(() -> replica.catalog().createSnapshot("bad\nname", ReadPoint.LATEST))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SNAPSHOT_NAME));
        assertThat(leader.tree().listSnapshots()).hasSize(1);

        // Dropped through the leader: gone on every node; dropping it again is refused on any.
        leader.catalog().dropSnapshot("before_b");
        assertThat(leader.tree().findSnapshot("before_b")).isEmpty();
        for (Node node : nodes.values()) {
            until(
                    () -> node.tree().findSnapshot("before_b").isEmpty(),
                    "the drop on " + node.replica().id());
        }
        assertThatThrownBy(() -> replica.catalog().dropSnapshot("before_b"))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SNAPSHOT_NOT_FOUND));
        // And the name can be taken again, for another vid.
        assertThat(replica.catalog()
                        .createSnapshot("before_b", ReadPoint.vid(last))
                        .vid())
                .isEqualTo(last);
        assertThat(leader.tree().lastVid()).isEqualTo(last); // naming a vid commits nothing
    }

    @Test
    void theNodesCollectInStepAndNoneCollectsPastASnapshotOfTheGroup() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        Node replica = aReplica(leader);
        List<GarbageCollector> collectors = new ArrayList<>();
        try {
            for (Node node : nodes.values()) {
                // Each node keeps only its newest version, by its own rules; the group decides how far it goes.
                GarbageCollector collector = keepingOneVersion(node.tree());
                collector.agreeThrough(node.replica()::proposeHorizon);
                collectors.add(collector);
            }
            List<Long> vids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                vids.add(add(leader, "/v" + i).vid());
            }
            long kept = vids.get(1);
            // Named through a replica: it names a vid that replica has installed.
            until(() -> replica.tree().lastVid() >= kept, "the replica at vid " + kept);
            replica.catalog().createSnapshot("kept", ReadPoint.vid(kept));
            long last = add(leader, "/after").vid();

            // Every node collects up to the snapshot, and no further, once the leader's proposal is agreed.
            until(
                    () -> {
                        collectors.forEach(GarbageCollector::collect);
                        return nodes.values().stream().allMatch(n -> n.tree().horizon() == kept);
                    },
                    "every node's horizon at the snapshot's vid " + kept);
            for (Node node : nodes.values()) {
                assertThat(node.tree().agreedHorizon()).isEqualTo(kept);
                assertThat(node.tree().read(ObjectPath.parse("/v1"), kept)).isPresent();
                assertThat(node.tree().read(ObjectPath.parse("/v2"), kept)).isEmpty();
            }
            // A vid the group may have collected cannot be named, through any node: every node refuses it alike.
            assertThatThrownBy(() -> replica.catalog().createSnapshot("too_old", ReadPoint.vid(vids.get(0))))
                    .isInstanceOfSatisfying(
                            CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VERSION_EXPIRED));
            for (Node node : nodes.values()) {
                until(() -> node.tree().lastVid() >= last, "every node at vid " + last);
                assertThat(node.tree().findSnapshot("too_old")).isEmpty();
            }

            // Dropped, the snapshot holds nothing back: the group agrees on the newest vid and every node collects.
            leader.catalog().dropSnapshot("kept");
            until(
                    () -> {
                        collectors.forEach(GarbageCollector::collect);
                        return nodes.values().stream().allMatch(n -> n.tree().horizon() == last);
                    },
                    "every node's horizon at vid " + last);
            for (Node node : nodes.values()) {
                assertThat(node.tree().horizon())
                        .isLessThanOrEqualTo(node.tree().agreedHorizon());
                assertThatThrownBy(() -> node.tree().read(ObjectPath.parse("/v1"), kept))
                        .isInstanceOfSatisfying(
                                CatalogException.class,
                                e -> assertThat(e.code()).isEqualTo(ErrorCode.VERSION_EXPIRED));
            }
        } finally {
            collectors.forEach(GarbageCollector::close);
        }
    }

    @Test
    void aCollectorOfAGroupWithNoOneToProposeToCollectsNothing() throws IOException {
        startGroup();
        Node leader = awaitLeader();
        add(leader, "/a");
        add(leader, "/b");
        try (GarbageCollector collector = keepingOneVersion(leader.tree())) {
            // Its own rules would keep only the newest version, but the group agreed on nothing.
            assertThat(collector.collect().horizon()).isZero();
        }
    }

    private static final ReplicaNode.Settings SHORT_LOG = new ReplicaNode.Settings(
            "test", Duration.ofMillis(300), Duration.ofMillis(600), 20, Duration.ofSeconds(10), 64 << 10);

    /** Commits through {@code leader} until its log no longer holds the entries {@code away} would need. */
    private static long commitPastTheLog(Node leader, String prefix, long awayAppliedIndex) {
        long last = 0;
        for (int i = 0; leader.replica().logStartIndex() <= awayAppliedIndex + 1 || i < 50; i++) {
            last = add(leader, "/" + prefix + i).vid();
            assertThat(i).as("commits before the leader dropped its log").isLessThan(5_000);
        }
        return last;
    }

    @Test
    void aWipedNodeCatchesUpFromACheckpointOfTheLeadersStore() throws IOException {
        settings = SHORT_LOG;
        startGroup();
        Node leader = awaitLeader();
        long early = add(leader, "/early").vid();
        Node away = aReplica(leader);
        String awayId = away.replica().id();
        until(() -> away.tree().lastVid() >= early, "the replica has the first commit");
        stop(awayId);
        CheckpointShipping.deleteRecursively(directory.resolve(awayId));

        leader.catalog().createSnapshot("made_while_away", ReadPoint.vid(early));
        long last = commitPastTheLog(leader, "while_away_", 0);

        Node back = start(awayId);
        until(() -> back.tree().lastVid() >= last, "the wiped node at vid " + last);
        assertThat(back.replica().checkpointsInstalled()).isEqualTo(1);
        assertThat(back.tree().read(ObjectPath.parse("/early"), last)).isPresent();
        assertThat(back.tree().read(ObjectPath.parse("/while_away_0"), last)).isPresent();
        assertThat(back.tree().log().find(last)).isEqualTo(leader.tree().log().find(last));
        // The group's named snapshots come with the checkpoint.
        assertThat(back.tree().listSnapshots()).isEqualTo(leader.tree().listSnapshots());
        assertThat(back.tree().snapshotVid("made_while_away")).isEqualTo(early);
        // It goes on from the log after the checkpoint, and forwards its own commits.
        long after = add(leader, "/after").vid();
        until(() -> back.tree().lastVid() >= after, "the node installs entries after the checkpoint");
        long own = add(back, "/from_the_wiped_node").vid();
        assertThat(leader.tree().read(ObjectPath.parse("/from_the_wiped_node"), own))
                .isPresent();
    }

    @Test
    void aNodeAwayForLongGetsWhatTheLeaderRemovedAndCollectedMeanwhile() throws IOException {
        settings = SHORT_LOG;
        startGroup();
        Node leader = awaitLeader();
        add(leader, "/t");
        long seeded = addFile(leader, "/t/dropped", 1).vid();
        add(leader, "/gone");
        Node away = aReplica(leader);
        String awayId = away.replica().id();
        until(() -> away.tree().lastVid() >= seeded + 1, "the replica has the seed");
        long awayApplied = away.replica().appliedIndex();
        stop(awayId);

        leader.catalog().commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse("/t/dropped"))));
        leader.catalog().commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse("/gone"))));
        long last = commitPastTheLog(leader, "meanwhile_", awayApplied);
        // The leader collects every version but the newest: the removed objects leave no row behind.
        try (GarbageCollector collector = keepingOneVersion(leader.tree())) {
            // The leader proposes its horizon to the group and collects once the group agreed on it.
            collector.agreeThrough(leader.replica()::proposeHorizon);
            collector.collect();
            until(() -> leader.tree().agreedHorizon() == last, "the group agrees on horizon " + last);
            assertThat(collector.collect().horizon()).isEqualTo(last);
        }

        Node back = start(awayId);
        until(() -> back.tree().lastVid() >= last, "the returning node at vid " + last);
        assertThat(back.replica().checkpointsInstalled()).isEqualTo(1);
        assertThat(back.tree().read(ObjectPath.parse("/t/dropped"), last)).isEmpty();
        assertThat(back.tree().read(ObjectPath.parse("/gone"), last)).isEmpty();
        assertThat(back.tree().read(ObjectPath.parse("/t"), last)).isPresent();
        assertThat(back.tree().horizon()).isEqualTo(last);
        // What it held before is gone group-wide: a read there is refused, not answered without it.
        assertThatThrownBy(() -> back.tree().read(ObjectPath.parse("/t/dropped"), seeded))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VERSION_EXPIRED));
    }

    @Test
    void aNodeIsAddedAtRunTimeCatchesUpAndIsRemovedAgain() throws IOException {
        settings = SHORT_LOG;
        startGroup();
        Node leader = awaitLeader();
        long last = commitPastTheLog(leader, "before_n4_", 0);

        ReplicaNode.Peer fourth = new ReplicaNode.Peer("n4", "127.0.0.1:" + freePort());
        peers.add(fourth);
        Node added = start("n4");
        assertThat(leader.replica().addMember(fourth, Duration.ofSeconds(30)))
                .extracting(ReplicaNode.Peer::id)
                .containsExactly("n1", "n2", "n3", "n4");
        until(() -> added.tree().lastVid() >= last, "the new node at vid " + last);
        assertThat(added.replica().checkpointsInstalled()).isEqualTo(1);
        assertThat(added.tree().read(ObjectPath.parse("/before_n4_0"), last)).isPresent();
        // A member now: it takes part in commits, and forwards its own.
        long own = add(added, "/from_n4").vid();
        for (Node node : nodes.values()) {
            until(() -> node.tree().lastVid() >= own, "every node has the new node's commit");
        }
        // Adding it again changes nothing; the same id at another address is refused.
        assertThat(leader.replica().addMember(fourth, Duration.ofSeconds(30))).hasSize(4);
        assertThatThrownBy(() ->
                        leader.replica().addMember(new ReplicaNode.Peer("n4", "127.0.0.1:1"), Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST));

        Node through = aReplica(leader).replica().id().equals("n4") ? leader : aReplica(leader);
        assertThat(through.replica().removeMember("n4", Duration.ofSeconds(30)))
                .extracting(ReplicaNode.Peer::id)
                .containsExactly("n1", "n2", "n3");
        stop("n4");
        long after = add(awaitLeader(), "/after_n4").vid();
        assertThat(after).isGreaterThan(own);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A collector of {@code tree} whose own rules keep only the newest version. */
    private static GarbageCollector keepingOneVersion(VersionedTree tree) {
        return new GarbageCollector(
                tree,
                new RetentionConfig(
                        true, Optional.empty(), OptionalLong.of(1), Duration.ofMinutes(1), 1_000_000, 1_000, false),
                Clock.systemUTC());
    }

    private static void until(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
