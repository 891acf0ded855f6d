package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;

/**
 * Which records to read: vids in [{@code fromVid}, {@code toVid}] (both inclusive; {@code toVid}
 * is clamped to the newest published vid), those touching {@code prefix} (the root for all), at
 * most {@code limit}, oldest first or newest first.
 */
public record CommitQuery(long fromVid, long toVid, ObjectPath prefix, int limit, boolean newestFirst) {
    /** The largest page. */
    public static final int MAX_LIMIT = 1000;

    public CommitQuery {
        requireNonNull(prefix, "prefix is null");
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ": " + limit);
        }
    }

    public static CommitQuery all(int limit) {
        return new CommitQuery(1, Long.MAX_VALUE, ObjectPath.ROOT, limit, false);
    }
}
