package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.health.HealthCheck;
import io.treecat.replication.ReplicaNode;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Readiness of this node of a replicated group (docs/replication.md): healthy when it knows a leader
 * and has applied the group's log up to within {@code maxApplyLag} entries of what it knows was
 * agreed. A node without a leader cannot take a commit, and a node far behind would answer reads
 * from an old catalog, so either leaves the Service's endpoints (the chart's readiness probe is
 * {@code /healthcheck}, which runs every check) while its process stays alive. A single node, not
 * replicated, is always healthy here.
 */
public final class ReplicationHealthCheck extends HealthCheck {
    /** Applied entries may trail agreed ones by this many: one or two are in flight on a busy node. */
    public static final long DEFAULT_MAX_APPLY_LAG = 100;

    /** What the check reads from a node of the group. */
    public record Status(String node, Optional<String> leader, long commitIndex, long appliedIndex) {
        public Status {
            requireNonNull(node, "node is null");
            requireNonNull(leader, "leader is null");
        }

        /** How many agreed entries this node has not applied yet. */
        public long applyLag() {
            return Math.max(0, commitIndex - appliedIndex);
        }
    }

    // Null for a single node.
    private final Supplier<Optional<Status>> status;
    private final long maxApplyLag;

    private ReplicationHealthCheck(Supplier<Optional<Status>> status, long maxApplyLag) {
        if (maxApplyLag < 0) {
            throw new IllegalArgumentException("maxApplyLag is negative: " + maxApplyLag);
        }
        this.status = status;
        this.maxApplyLag = maxApplyLag;
    }

    /** For a server that is not replicated: always healthy. */
    public static ReplicationHealthCheck singleNode() {
        return new ReplicationHealthCheck(null, 0);
    }

    /**
     * For a node of a group.
     *
     * @param status this node's view of the group, read at each check; empty while its Raft server
     *     does not run (before start, after stop)
     */
    public static ReplicationHealthCheck member(Supplier<Optional<Status>> status, long maxApplyLag) {
        return new ReplicationHealthCheck(requireNonNull(status, "status is null"), maxApplyLag);
    }

    /** For a node of a group, over the server's replica (empty before start and after stop). */
    public static ReplicationHealthCheck ofReplica(Supplier<Optional<ReplicaNode>> replica, long maxApplyLag) {
        requireNonNull(replica, "replica is null");
        return member(() -> replica.get().map(ReplicationHealthCheck::status), maxApplyLag);
    }

    private static Status status(ReplicaNode node) {
        return new Status(node.id(), node.leader(), node.commitIndex(), node.appliedIndex());
    }

    @Override
    protected Result check() {
        if (status == null) {
            return Result.healthy("Not replicated: a single node");
        }
        Optional<Status> read = status.get();
        if (read.isEmpty()) {
            return Result.unhealthy("This node's Raft server is not running");
        }
        Status node = read.get();
        ResultBuilder result = Result.builder()
                .withDetail("node", node.node())
                .withDetail("commitIndex", node.commitIndex())
                .withDetail("appliedIndex", node.appliedIndex())
                .withDetail("maxApplyLag", maxApplyLag);
        if (node.leader().isEmpty()) {
            return result.unhealthy()
                    .withMessage("Node " + node.node() + " knows no leader (an election is under way, or a "
                            + "majority of the group is not reachable); commit index " + node.commitIndex()
                            + ", applied index " + node.appliedIndex())
                    .build();
        }
        String leader = node.leader().get();
        result.withDetail("leader", leader);
        String role = leader.equals(node.node()) ? "leads" : "follows leader " + leader;
        if (node.applyLag() > maxApplyLag) {
            return result.unhealthy()
                    .withMessage("Node " + node.node() + " " + role + " but is catching up: applied index "
                            + node.appliedIndex() + " of commit index " + node.commitIndex() + ", more than "
                            + maxApplyLag + " behind")
                    .build();
        }
        return result.healthy()
                .withMessage("Node " + node.node() + " " + role + "; applied index " + node.appliedIndex()
                        + " of commit index " + node.commitIndex())
                .build();
    }
}
