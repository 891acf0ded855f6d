package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.version.ChildKinds;
import java.util.List;
import java.util.Optional;

/**
 * A query as a client asks for it.
 *
 * @param readPoint the version to read; ignored in favour of the token's when a page token is given
 *     and the read point is {@link ReadPoint#LATEST}
 * @param results which kinds of objects to return from the last step
 * @param projection dotted fields to keep; empty keeps whole values
 * @param limit the most rows in one page
 * @param pageToken the continuation of a previous page, if any
 */
public record QueryRequest(
        String query,
        ReadPoint readPoint,
        ChildKinds results,
        List<String> projection,
        int limit,
        Optional<String> pageToken) {
    public static final int MAX_LIMIT = 100_000;
    public static final int DEFAULT_LIMIT = 1000;

    public QueryRequest {
        requireNonNull(query, "query is null");
        requireNonNull(readPoint, "readPoint is null");
        requireNonNull(results, "results is null");
        projection = ImmutableList.copyOf(projection);
        requireNonNull(pageToken, "pageToken is null");
        if (limit <= 0 || limit > MAX_LIMIT) {
            throw new CatalogException(ErrorCode.INVALID_QUERY_OPTION, "limit must be between 1 and " + MAX_LIMIT)
                    .with("limit", limit);
        }
    }

    public static QueryRequest of(String query) {
        return new QueryRequest(query, ReadPoint.LATEST, ChildKinds.BOTH, List.of(), DEFAULT_LIMIT, Optional.empty());
    }

    public QueryRequest at(ReadPoint point) {
        return new QueryRequest(query, point, results, projection, limit, pageToken);
    }

    public QueryRequest withResults(ChildKinds kinds) {
        return new QueryRequest(query, readPoint, kinds, projection, limit, pageToken);
    }

    public QueryRequest withProjection(List<String> fields) {
        return new QueryRequest(query, readPoint, results, fields, limit, pageToken);
    }

    public QueryRequest withLimit(int rows) {
        return new QueryRequest(query, readPoint, results, projection, rows, pageToken);
    }

    public QueryRequest withPageToken(String token) {
        return new QueryRequest(query, readPoint, results, projection, limit, Optional.of(token));
    }
}
