package io.treecat.core.service;

import com.google.common.collect.ImmutableList;
import io.treecat.core.history.CommitRecord;
import java.util.List;
import java.util.Optional;

/** One page of commit history and the token for the next, if the history goes on. */
public record HistoryPage(List<CommitRecord> commits, Optional<String> nextPageToken) {
    public HistoryPage {
        commits = ImmutableList.copyOf(commits);
    }
}
