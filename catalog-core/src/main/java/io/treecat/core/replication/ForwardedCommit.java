package io.treecat.core.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.txn.ScanEntry;
import io.treecat.core.version.WriteSet;
import java.util.List;

/**
 * A commit a replica hands to the leader: what the transaction read (its scan set at its read vid,
 * which the leader validates against what was committed since) and what it writes. The transaction
 * ran on the replica, at a vid the leader has too.
 *
 * @param validate false for a commit that read nothing that validation checks (a plain write set)
 */
public record ForwardedCommit(List<ScanEntry> scanSet, long readVid, WriteSet writes, boolean validate) {
    public ForwardedCommit {
        scanSet = List.copyOf(requireNonNull(scanSet, "scanSet is null"));
        requireNonNull(writes, "writes is null");
    }
}
