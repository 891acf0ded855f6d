package io.treecat.core.history;

import io.treecat.core.storage.KvBatch;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The durable log of commits, one record per vid. The commit path appends a commit's record to the
 * batch that installs the commit, before the batch is written, so the record and the new state are
 * durable together or not at all; a record is readable once its vid is published. The single-node
 * implementation is {@link StoreCommitLog}; a replicated log would implement {@link #append} by
 * agreeing on the record before the batch is applied.
 *
 * <p>A store created before the log existed has no records for its older vids: reads start at the
 * oldest record there is.
 */
public interface CommitLog {
    /** Commits with more changes than this get a compact record. */
    int FULL_RECORD_LIMIT = 1000;

    /**
     * Stamps the commit's time (monotonic per vid) and adds its record to {@code batch}, which the
     * caller writes atomically with the commit. Called in vid order, one commit at a time.
     */
    CommitRecord append(CommitEntry entry, KvBatch batch);

    /** The record of a published vid, if the log has one. */
    Optional<CommitRecord> find(long vid);

    /** Records matching {@code query}, among published vids. */
    CommitPage read(CommitQuery query);

    /**
     * The newest published vid committed at or before {@code epochMillis}; empty if that time is
     * before the oldest record.
     */
    OptionalLong vidAt(long epochMillis);

    /** The oldest record, if there is one. */
    Optional<CommitRecord> oldest();

    /** The newest published record, if there is one. */
    Optional<CommitRecord> newest();
}
