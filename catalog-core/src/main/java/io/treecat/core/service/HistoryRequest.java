package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.model.ObjectPath;
import java.util.Optional;

/**
 * A request for a page of commit history ({@code ListCommits}, {@code treecat log}): commits that
 * touched a path at or under {@code path}, from {@code since} to {@code until} (each a vid or a
 * time, both inclusive; null for unbounded), oldest first unless {@code newestFirst}.
 *
 * @param pageToken the {@code nextPageToken} of the previous page of the same request, or null
 */
public record HistoryRequest(
        ObjectPath path, ReadPoint since, ReadPoint until, int limit, boolean newestFirst, String pageToken) {
    public static final int DEFAULT_LIMIT = 100;

    public HistoryRequest {
        requireNonNull(path, "path is null");
        checkBound("since", since);
        checkBound("until", until);
        if (limit < 1 || limit > CommitQuery.MAX_LIMIT) {
            throw new CatalogException(
                            ErrorCode.INVALID_QUERY_OPTION, "limit must be between 1 and " + CommitQuery.MAX_LIMIT)
                    .with("limit", limit);
        }
    }

    public static HistoryRequest all() {
        return new HistoryRequest(ObjectPath.ROOT, null, null, DEFAULT_LIMIT, false, null);
    }

    /**
     * A history bound as the CLI and the JSON mirror take it: digits are a vid, anything else an
     * RFC 3339 time; null or empty is no bound.
     */
    public static ReadPoint bound(String text, String field) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        if (text.length() <= 19 && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return ReadPoint.vid(Long.parseLong(text));
        }
        return ReadPoint.time(ReadPoint.parseTime(text, field));
    }

    public Optional<String> token() {
        return Optional.ofNullable(pageToken);
    }

    private static void checkBound(String field, ReadPoint bound) {
        if (bound != null && !(bound instanceof ReadPoint.AtVid) && !(bound instanceof ReadPoint.AtTime)) {
            throw new CatalogException(ErrorCode.INVALID_QUERY_OPTION, field + " must be a vid or a time")
                    .with("field", field);
        }
    }
}
