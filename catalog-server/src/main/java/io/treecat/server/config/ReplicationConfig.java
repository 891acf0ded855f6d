package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.DataSizeUnit;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.treecat.replication.ReplicaNode;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code replication.*}: this server as one node of a Raft group (docs/replication.md). Off when
 * {@code peers} is empty, the default: a single node, with no Raft in the commit path.
 *
 * <pre>
 * replication:
 *   node-id: n1
 *   peers:
 *     - n1=treecat-0.treecat:9190
 *     - n2=treecat-1.treecat:9190
 *     - n3=treecat-2.treecat:9190
 * </pre>
 */
public final class ReplicationConfig {
    private static final String PEER = "[A-Za-z0-9_.-]{1,64}=[^\\s:=]+:[0-9]{1,5}";

    @JsonProperty("node-id")
    private String nodeId;

    /**
     * Every member as {@code id=host:port}, the port its Raft transport listens on; a list in YAML, or
     * comma-separated in an override ({@code -Ddw.replication.peers=n1=a:9190,n2=b:9190,n3=c:9190}).
     */
    @NotNull
    @JsonProperty("peers")
    private List<
                    @Pattern(
                            regexp = PEER,
                            message = "must be id=host:port (id: 1-64 letters, digits, '_', '.' or '-')")
                    String>
            peers = new ArrayList<>();

    /** Where this node keeps the group's log; by default {@code raft} beside the store's directory. */
    @JsonProperty("log-dir")
    private String logDir;

    @NotEmpty
    @JsonProperty("group")
    private String group = "treecat";

    @NotNull
    @MinDuration(value = 50, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
    @JsonProperty("election-timeout-min")
    private Duration electionTimeoutMin = Duration.seconds(1);

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 2, unit = TimeUnit.MINUTES)
    @JsonProperty("election-timeout-max")
    private Duration electionTimeoutMax = Duration.seconds(2);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
    @JsonProperty("commit-timeout")
    private Duration commitTimeout = Duration.seconds(30);

    /** How long a starting node waits for the group to have a leader before it gives up. */
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @JsonProperty("startup-timeout")
    private Duration startupTimeout = Duration.minutes(5);

    /** How long a request with {@code X-TreeCat-Min-Vid} waits for this node to publish that vid. */
    @NotNull
    @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
    @JsonProperty("min-vid-wait")
    private Duration minVidWait = Duration.seconds(10);

    @Min(100)
    @JsonProperty("snapshot-every")
    private long snapshotEvery = 100_000;

    /**
     * Whether Iceberg REST reads on a node of a group wait for a linearizable read point (Ratis's read
     * index), so that an Iceberg client never reads older metadata through one node than it committed
     * through another.
     */
    @JsonProperty("linearizable-iceberg-reads")
    private boolean linearizableIcebergReads = true;

    /** One file of the Raft log; the log before a snapshot is dropped a whole file at a time. */
    @NotNull
    @MinDataSize(value = 64, unit = DataSizeUnit.KIBIBYTES)
    @MaxDataSize(value = 1, unit = DataSizeUnit.GIBIBYTES)
    @JsonProperty("log-segment-size")
    private DataSize logSegmentSize = DataSize.mebibytes(32);

    public boolean enabled() {
        return !peers.isEmpty();
    }

    public String nodeId() {
        return nodeId;
    }

    public List<ReplicaNode.Peer> peers() {
        return peers.stream()
                .map(peer -> new ReplicaNode.Peer(
                        peer.substring(0, peer.indexOf('=')), peer.substring(peer.indexOf('=') + 1)))
                .toList();
    }

    public Path logDir(Path dataDir) {
        return logDir != null ? Path.of(logDir) : dataDir.toAbsolutePath().resolveSibling("raft");
    }

    public boolean linearizableIcebergReads() {
        return linearizableIcebergReads;
    }

    public java.time.Duration commitTimeout() {
        return commitTimeout.toJavaDuration();
    }

    public java.time.Duration minVidWait() {
        return minVidWait.toJavaDuration();
    }

    public java.time.Duration startupTimeout() {
        return startupTimeout.toJavaDuration();
    }

    public ReplicaNode.Settings toSettings() {
        return new ReplicaNode.Settings(
                group,
                electionTimeoutMin.toJavaDuration(),
                electionTimeoutMax.toJavaDuration(),
                snapshotEvery,
                commitTimeout.toJavaDuration(),
                logSegmentSize.toBytes());
    }

    @ValidationMethod(
            message = "replication: node-id must name one of the peers, peer ids must be unique, and "
                    + "election-timeout-min must be below election-timeout-max")
    public boolean isConsistent() {
        if (peers.isEmpty()) {
            return true;
        }
        Set<String> ids = new HashSet<>();
        for (String peer : peers) {
            if (peer == null || !peer.matches(PEER) || !ids.add(peer.substring(0, peer.indexOf('=')))) {
                return false;
            }
        }
        return nodeId != null
                && ids.contains(nodeId)
                && electionTimeoutMin.toMilliseconds() < electionTimeoutMax.toMilliseconds();
    }
}
