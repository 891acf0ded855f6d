package io.treecat.grpc.client;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.ChildKinds;
import java.util.List;
import java.util.Optional;

/**
 * A query as the client sends it. Unlike core's {@code QueryRequest}, which describes one page, a
 * spec may ask for every result ({@code limit} 0), streamed.
 *
 * @param readPoint ignored inside a transaction, which reads at its own vid
 * @param limit the most objects to return; 0 for all
 * @param pageToken where an earlier page stopped
 * @param batchSize objects per streamed batch; 0 for the server's default
 */
public record QuerySpec(
        String query,
        ReadPoint readPoint,
        ChildKinds results,
        List<String> projection,
        int limit,
        Optional<String> pageToken,
        int batchSize) {
    public QuerySpec {
        requireNonNull(query, "query is null");
        requireNonNull(readPoint, "readPoint is null");
        requireNonNull(results, "results is null");
        projection = ImmutableList.copyOf(projection);
        requireNonNull(pageToken, "pageToken is null");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        if (batchSize < 0) {
            throw new IllegalArgumentException("batchSize must not be negative: " + batchSize);
        }
    }

    /** Every result of {@code query}, at the newest vid, whole values, inner objects and leaves. */
    public static QuerySpec of(String query) {
        return new QuerySpec(query, ReadPoint.LATEST, ChildKinds.BOTH, List.of(), 0, Optional.empty(), 0);
    }

    public QuerySpec at(ReadPoint point) {
        return new QuerySpec(query, point, results, projection, limit, pageToken, batchSize);
    }

    public QuerySpec withResults(ChildKinds kinds) {
        return new QuerySpec(query, readPoint, kinds, projection, limit, pageToken, batchSize);
    }

    public QuerySpec withProjection(List<String> fields) {
        return new QuerySpec(query, readPoint, results, fields, limit, pageToken, batchSize);
    }

    public QuerySpec withLimit(int objects) {
        return new QuerySpec(query, readPoint, results, projection, objects, pageToken, batchSize);
    }

    public QuerySpec withPageToken(String token) {
        return new QuerySpec(query, readPoint, results, projection, limit, Optional.of(token), batchSize);
    }

    public QuerySpec withBatchSize(int objects) {
        return new QuerySpec(query, readPoint, results, projection, limit, pageToken, objects);
    }
}
