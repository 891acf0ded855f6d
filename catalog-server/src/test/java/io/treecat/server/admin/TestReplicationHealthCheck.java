package io.treecat.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.health.HealthCheck.Result;
import io.treecat.server.admin.ReplicationHealthCheck.Status;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Readiness of a node of a replicated group: it knows a leader and has applied what was agreed. */
class TestReplicationHealthCheck {
    private final AtomicReference<Optional<Status>> status = new AtomicReference<>(Optional.empty());
    private final ReplicationHealthCheck check = ReplicationHealthCheck.member(status::get, 10);

    private Result check(Status node) {
        status.set(Optional.of(node));
        return check.execute();
    }

    @Test
    void aSingleNodeIsHealthy() {
        Result result = ReplicationHealthCheck.singleNode().execute();

        assertThat(result.isHealthy()).isTrue();
        assertThat(result.getMessage()).isEqualTo("Not replicated: a single node");
    }

    @Test
    void aFollowerThatKnowsTheLeaderAndIsCaughtUpIsHealthy() {
        Result result = check(new Status("treecat-1", Optional.of("treecat-0"), 1200, 1199));

        assertThat(result.isHealthy()).isTrue();
        assertThat(result.getMessage())
                .isEqualTo("Node treecat-1 follows leader treecat-0; applied index 1199 of commit index 1200");
        assertThat(result.getDetails())
                .containsEntry("node", "treecat-1")
                .containsEntry("leader", "treecat-0")
                .containsEntry("commitIndex", 1200L)
                .containsEntry("appliedIndex", 1199L)
                .containsEntry("maxApplyLag", 10L);
    }

    @Test
    void theLeaderIsHealthy() {
        Result result = check(new Status("treecat-0", Optional.of("treecat-0"), 1200, 1200));

        assertThat(result.isHealthy()).isTrue();
        assertThat(result.getMessage()).isEqualTo("Node treecat-0 leads; applied index 1200 of commit index 1200");
    }

    @Test
    void aNodeExactlyAtTheAllowedLagIsHealthy() {
        assertThat(check(new Status("treecat-1", Optional.of("treecat-0"), 110, 100))
                        .isHealthy())
                .isTrue();
    }

    @Test
    void aNodeWithoutALeaderIsUnhealthy() {
        Result result = check(new Status("treecat-2", Optional.empty(), 1200, 1200));

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage())
                .isEqualTo("Node treecat-2 knows no leader (an election is under way, or a majority of the group"
                        + " is not reachable); commit index 1200, applied index 1200");
        assertThat(result.getDetails()).containsEntry("node", "treecat-2").doesNotContainKey("leader");
    }

    @Test
    void aNodeThatIsCatchingUpIsUnhealthy() {
        Result result = check(new Status("treecat-2", Optional.of("treecat-0"), 5000, 4989));

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage())
                .isEqualTo("Node treecat-2 follows leader treecat-0 but is catching up: applied index 4989 of"
                        + " commit index 5000, more than 10 behind");
        assertThat(result.getDetails()).containsEntry("leader", "treecat-0").containsEntry("appliedIndex", 4989L);
    }

    @Test
    void aNodeBecomesReadyOnceItHasCaughtUp() {
        assertThat(check(new Status("treecat-2", Optional.empty(), 0, 0)).isHealthy())
                .isFalse();
        assertThat(check(new Status("treecat-2", Optional.of("treecat-0"), 900, 12))
                        .isHealthy())
                .isFalse();
        assertThat(check(new Status("treecat-2", Optional.of("treecat-0"), 905, 900))
                        .isHealthy())
                .isTrue();
    }

    @Test
    void aGroupNodeWhoseRaftServerDoesNotRunIsUnhealthy() {
        Result result = check.execute();

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).isEqualTo("This node's Raft server is not running");
    }

    @Test
    void aNodeThatCannotBeReadIsUnhealthy() {
        ReplicationHealthCheck closing = ReplicationHealthCheck.member(
                () -> {
                    throw new IllegalStateException("the Raft server is closing");
                },
                10);

        Result result = closing.execute();

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).isEqualTo("the Raft server is closing");
    }

    @Test
    void aGroupNodeWithoutAReplicaIsUnhealthy() {
        Result result = ReplicationHealthCheck.ofReplica(Optional::empty, 10).execute();

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).isEqualTo("This node's Raft server is not running");
    }

    @Test
    void refusesANegativeLag() {
        assertThatThrownBy(() -> ReplicationHealthCheck.member(Optional::empty, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxApplyLag is negative: -1");
    }
}
