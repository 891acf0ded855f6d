package io.treecat.core.history;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.OptionalLong;

/**
 * One page of commit records, in the order asked for, and the vid to continue from if the scan
 * stopped before its end (a full page, or the scan budget spent on records the filter refused).
 */
public record CommitPage(List<CommitRecord> records, OptionalLong nextVid) {
    public CommitPage {
        records = ImmutableList.copyOf(records);
    }
}
