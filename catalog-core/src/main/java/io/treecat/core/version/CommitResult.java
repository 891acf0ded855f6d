package io.treecat.core.version;

import com.google.common.collect.ImmutableList;
import java.util.List;

/** A committed write set: its vid and the changes it made, path by path. */
public record CommitResult(long vid, List<ObjectChange> changes) {
    public CommitResult {
        changes = ImmutableList.copyOf(changes);
    }
}
