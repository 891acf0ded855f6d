package io.treecat.core.replication;

import io.treecat.core.version.CommitResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The group a replicated node belongs to, as the commit path sees it. The leader's commit sequencer
 * validates and prepares each commit as today, then hands its entry here instead of writing it; every
 * node, the leader included, installs agreed entries in log order with {@link
 * io.treecat.core.version.VersionedTree#applyReplicated}.
 *
 * <p>An entry is installed only if its vid is the next one when its turn comes in the log; otherwise
 * every node skips it alike. So an entry that a deposed leader appended, and that the group agreed on
 * later than a newer leader's, changes nothing, and no two nodes ever differ at a vid.
 */
public interface CommitReplicator {
    /** Whether this node leads the group now, and so may sequence commits. */
    boolean leading();

    /**
     * Replicates the commits of one log entry (a group commit: consecutive vids, installed together or not
     * at all). Completes once the group has agreed on the entry and this node has installed and published
     * it ({@link Outcome#INSTALLED}), or skipped it because another commit took its first vid first
     * ({@link Outcome#SKIPPED}). Completes exceptionally with {@code NO_LEADER} if the
     * entry was refused before it entered the log (nothing committed), with anything else if the
     * outcome is unknown.
     */
    CompletableFuture<Outcome> replicate(List<ReplicatedCommit> commits);

    /**
     * A replica's commit, sent to the leader to validate and sequence there. Completes with the commit
     * once this node has installed it too, so the caller reads its own write here; exceptionally with
     * the leader's refusal, with {@code NO_LEADER} if no leader took it (nothing committed), or with
     * {@code COMMIT_STATE_UNKNOWN}.
     */
    CompletableFuture<CommitResult> forward(ForwardedCommit commit);

    /**
     * A linearizable read point: completes with a vid this node has published and that is at least every
     * vid the group had committed when this was called (Ratis's read index: the leader confirms it still
     * leads and names its commit index, and this node waits until it has applied that far). A read at it
     * sees every commit acknowledged before the call, through any node. Exceptionally with {@code
     * NO_LEADER} when no leader could confirm it.
     */
    CompletableFuture<Long> linearizableVid();

    /**
     * Applies an operation ({@link GroupOperation}: a named snapshot made or dropped) on every node, from
     * any node: it goes to the leader, into the log, and every node checks and applies it in its turn.
     * Completes once this node has applied it too, so the caller sees it here; exceptionally with the
     * refusal every node made alike (the name is taken, the vid expired, …), with {@code NO_LEADER} if no
     * leader took it (nothing applied), or with {@code COMMIT_STATE_UNKNOWN}.
     */
    CompletableFuture<Void> apply(GroupOperation operation);

    /**
     * Proposes that every node may collect the versions below {@code horizon} ({@link
     * GroupOperation#agreeHorizon}), if this node leads and the group has not agreed on that much yet;
     * otherwise does nothing. Never waits for the group: the collector proposes, and collects once the
     * agreement is applied here.
     */
    void proposeHorizon(long horizon);

    /** Where commits forwarded to this node are sequenced while it leads: its transaction manager. */
    void serveForwarded(Function<ForwardedCommit, CompletableFuture<CommitResult>> sequencer);

    enum Outcome {
        INSTALLED,
        SKIPPED
    }
}
