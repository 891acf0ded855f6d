package io.treecat.core.query.exec;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.version.ChildKinds;
import java.util.List;
import java.util.Optional;

/**
 * How to run one query.
 *
 * @param vid the version to read at
 * @param results which kinds of objects the last step returns (earlier steps only ever pass inner
 *     objects on, as leaves have no children)
 * @param projection dotted field paths to keep in each value; empty keeps the whole value
 * @param after resume after this point (from a previous page's token); must read at the same vid
 * @param listener told of every scan, for transactions' scan sets
 */
public record QueryOptions(
        long vid, ChildKinds results, List<String> projection, Optional<Continuation> after, ScanListener listener) {
    public QueryOptions {
        requireNonNull(results, "results is null");
        projection = ImmutableList.copyOf(projection);
        requireNonNull(after, "after is null");
        requireNonNull(listener, "listener is null");
        for (String field : projection) {
            if (field.isEmpty() || field.startsWith(".") || field.endsWith(".") || field.contains("..")) {
                throw new CatalogException(ErrorCode.INVALID_QUERY_OPTION, "Invalid projection field: '" + field + "'")
                        .with("field", field);
            }
        }
        if (after.isPresent() && after.get().vid() != vid) {
            throw new CatalogException(
                            ErrorCode.INVALID_CONTINUATION,
                            "The continuation token belongs to version "
                                    + after.get().vid() + ", not " + vid)
                    .with("tokenVid", after.get().vid())
                    .with("vid", vid);
        }
    }

    public static QueryOptions at(long vid) {
        return new QueryOptions(vid, ChildKinds.BOTH, List.of(), Optional.empty(), ScanListener.NONE);
    }

    public QueryOptions withResults(ChildKinds kinds) {
        return new QueryOptions(vid, kinds, projection, after, listener);
    }

    public QueryOptions withProjection(List<String> fields) {
        return new QueryOptions(vid, results, fields, after, listener);
    }

    public QueryOptions after(Continuation continuation) {
        return new QueryOptions(vid, results, projection, Optional.of(continuation), listener);
    }

    public QueryOptions withListener(ScanListener scanListener) {
        return new QueryOptions(vid, results, projection, after, scanListener);
    }
}
