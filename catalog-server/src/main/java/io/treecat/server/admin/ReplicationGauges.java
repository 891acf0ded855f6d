package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.treecat.replication.ReplicaNode;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The replicated group as this node sees it, on the admin port's metrics (and Prometheus): whether it
 * leads, the term, the log indexes agreed and applied, and on the leader how far each follower, and the
 * slowest, lags. A single node reports -1 for each.
 */
public final class ReplicationGauges {
    private ReplicationGauges() {}

    /**
     * @param peerIds the configured members: each gets {@code treecat.replication.follower-lag.<id>}, the entries
     *     it lacks as the leader sees it (0 on a follower, which does not know; -1 on a single node)
     */
    public static void register(MetricRegistry registry, Supplier<Optional<ReplicaNode>> node, List<String> peerIds) {
        requireNonNull(registry, "registry is null");
        requireNonNull(node, "node is null");
        for (String peer : peerIds) {
            gauge(
                    registry,
                    "treecat.replication.follower-lag." + peer,
                    node,
                    replica -> replica.followerLags().getOrDefault(peer, 0L));
        }
        gauge(registry, "treecat.replication.leader", node, replica -> replica.leading() ? 1 : 0);
        gauge(registry, "treecat.replication.term", node, ReplicaNode::term);
        gauge(registry, "treecat.replication.commit-index", node, ReplicaNode::commitIndex);
        gauge(registry, "treecat.replication.applied-index", node, ReplicaNode::appliedIndex);
        gauge(registry, "treecat.replication.max-follower-lag", node, ReplicaNode::maxFollowerLag);
        gauge(registry, "treecat.replication.log-start-index", node, ReplicaNode::logStartIndex);
        gauge(registry, "treecat.replication.checkpoints-installed", node, ReplicaNode::checkpointsInstalled);
    }

    private static void gauge(
            MetricRegistry registry,
            String name,
            Supplier<Optional<ReplicaNode>> node,
            ToLongFunction<ReplicaNode> value) {
        registry.gauge(name, () -> (Gauge<Long>) () -> {
            try {
                return node.get().map(value::applyAsLong).orElse(-1L);
            } catch (RuntimeException stopping) {
                return -1L;
            }
        });
    }
}
