package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.model.ObjectPath;
import java.time.Instant;
import java.util.List;

/**
 * What the commit log keeps for one vid. A full record lists every path the commit touched; a
 * compact one (a bulk-load chunk, or a commit of more than {@link CommitLog#FULL_RECORD_LIMIT}
 * changes) keeps only the counts per change kind and up to {@link #MAX_PREFIXES} common path
 * prefixes, under which every touched path lies.
 *
 * @param commitTimeMillis server time of the commit, epoch milliseconds; never less than the
 *     previous vid's, even if the clock stepped back
 * @param changes every path touched, in path order; empty when {@code compact}
 * @param prefixes common prefixes of the touched paths when {@code compact}; empty otherwise
 */
public record CommitRecord(
        long vid,
        long commitTimeMillis,
        CommitOrigin origin,
        boolean compact,
        int added,
        int updated,
        int removed,
        List<PathChange> changes,
        List<ObjectPath> prefixes) {
    /** The most prefixes a compact record keeps. */
    public static final int MAX_PREFIXES = 16;

    public CommitRecord {
        requireNonNull(origin, "origin is null");
        changes = ImmutableList.copyOf(changes);
        prefixes = ImmutableList.copyOf(prefixes);
        if (vid <= 0) {
            throw new IllegalArgumentException("vid must be positive: " + vid);
        }
        if (added < 0 || updated < 0 || removed < 0) {
            throw new IllegalArgumentException("negative change count");
        }
        if (compact ? !changes.isEmpty() : !prefixes.isEmpty()) {
            throw new IllegalArgumentException("a compact record has prefixes, a full record has paths");
        }
    }

    public Instant commitTime() {
        return Instant.ofEpochMilli(commitTimeMillis);
    }

    /** The number of paths the commit touched. */
    public int changeCount() {
        return added + updated + removed;
    }

    /**
     * Whether the commit touched a path at or under {@code prefix}. A compact record answers from
     * its prefixes, so it may match a subtree it only came near (never the reverse: it never misses
     * a subtree it touched).
     */
    public boolean touches(ObjectPath prefix) {
        if (prefix.isRoot()) {
            return true;
        }
        if (compact) {
            for (ObjectPath common : prefixes) {
                if (prefix.isAncestorOrSelf(common) || common.isAncestorOrSelf(prefix)) {
                    return true;
                }
            }
            return false;
        }
        for (PathChange change : changes) {
            if (prefix.isAncestorOrSelf(change.path())) {
                return true;
            }
        }
        return false;
    }
}
