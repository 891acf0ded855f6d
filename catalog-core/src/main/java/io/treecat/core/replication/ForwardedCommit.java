package io.treecat.core.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.txn.ScanEntry;
import io.treecat.core.version.WriteSet;
import java.util.List;
import java.util.UUID;

/**
 * A commit a replica hands to the leader: what the transaction read (its scan set at its read vid,
 * which the leader validates against what was committed since) and what it writes. The transaction
 * ran on the replica, at a vid the leader has too.
 *
 * <p>The replica may send it more than once: a failure in transit does not always say whether the leader
 * it reached ran it. So the commit carries an id, the same on every send ({@link
 * io.treecat.core.history.CommitOrigin#requestId} of its write set, which the commit log keeps), and a
 * re-send says so: the leader first looks for that id among the commits after {@code sentAfterVid}, and
 * answers with the one it finds instead of committing the write set twice.
 *
 * @param validate false for a commit that read nothing that validation checks (a plain write set)
 * @param sentAfterVid the newest vid the replica had published when it first sent the commit: the commit
 *     cannot have committed at or before it
 * @param resent whether the replica sent this commit before
 */
public record ForwardedCommit(
        List<ScanEntry> scanSet, long readVid, WriteSet writes, boolean validate, long sentAfterVid, boolean resent) {
    public ForwardedCommit {
        scanSet = List.copyOf(requireNonNull(scanSet, "scanSet is null"));
        requireNonNull(writes, "writes is null");
        if (writes.origin().requestId() == null) {
            throw new IllegalArgumentException("a forwarded commit needs a request id");
        }
    }

    /** A commit about to be forwarded for the first time, with a new request id. */
    public static ForwardedCommit first(
            List<ScanEntry> scanSet, long readVid, WriteSet writes, boolean validate, long sentAfterVid) {
        WriteSet identified = writes.withOrigin(
                writes.origin().withRequestId(UUID.randomUUID().toString()));
        return new ForwardedCommit(scanSet, readVid, identified, validate, sentAfterVid, false);
    }

    /** The same commit, sent again. */
    public ForwardedCommit resend() {
        return new ForwardedCommit(scanSet, readVid, writes, validate, sentAfterVid, true);
    }

    public String requestId() {
        return writes.origin().requestId();
    }
}
