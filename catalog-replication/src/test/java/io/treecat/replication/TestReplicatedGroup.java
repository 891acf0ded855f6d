package io.treecat.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.txn.TransactionManager;
import io.treecat.core.version.CommitResult;
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
import java.util.function.BooleanSupplier;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes of a group in one JVM, each with its own RocksDB and Raft log on loopback: commits made on
 * the leader are installed on every node at the same vid with the same content; a new leader takes over
 * when the old one stops; a node that was away catches up when it comes back.
 */
class TestReplicatedGroup {
    private static final ReplicaNode.Settings FAST =
            new ReplicaNode.Settings("test", Duration.ofMillis(300), Duration.ofMillis(600), 100_000);

    @TempDir
    Path directory;

    private final List<ReplicaNode.Peer> peers = new ArrayList<>();
    private final Map<String, Node> nodes = new HashMap<>();

    /** One running node: its store, tree, transaction manager and Raft server. */
    private record Node(VersionedTree tree, TransactionManager transactions, ReplicaNode replica)
            implements AutoCloseable {
        @Override
        public void close() {
            replica.close();
            transactions.close();
            tree.close();
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
        TransactionManager transactions = new TransactionManager(tree, TransactionConfig.defaults(), Clock.systemUTC());
        ReplicaNode replica =
                ReplicaNode.start(tree, id, peers, directory.resolve(id).resolve("raft"), FAST);
        transactions.replicateThrough(replica, Duration.ofSeconds(10));
        Node node = new Node(tree, transactions, replica);
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

    private static CommitResult add(Node node, String path) {
        return node.transactions()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'database'}"))));
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
        // A follower's sequencer refuses: it does not lead, and nothing is written.
        Node follower =
                nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        assertThatThrownBy(() -> add(follower, "/elsewhere"))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NO_LEADER));
        assertThat(leader.tree()
                        .read(ObjectPath.parse("/elsewhere"), leader.tree().lastVid()))
                .isEmpty();
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
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
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
