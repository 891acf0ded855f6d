package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/** A commit as the commit path hands it to the log, before the log stamps its time. */
public record CommitEntry(long vid, CommitOrigin origin, List<PathChange> changes) {
    public CommitEntry {
        requireNonNull(origin, "origin is null");
        changes = ImmutableList.copyOf(changes);
    }
}
