package io.treecat.core.feed;

import com.google.common.collect.ImmutableList;
import io.treecat.core.history.CommitRecord;
import java.util.List;

/**
 * What one read of the change feed found: the matching records after the reader's position, in vid
 * order, and the new position (the vid to read after next time: every vid up to it was looked at,
 * matching or not). {@code caughtUp} when the position is the newest published vid at the time of
 * the read.
 */
public record FeedPage(List<CommitRecord> records, long position, boolean caughtUp) {
    public FeedPage {
        records = ImmutableList.copyOf(records);
    }
}
