package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.core.query.parser.QueryLimits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * {@code query.*}: how long and how deeply nested a path query may be (docs/query-language.md,
 * "Limits"), on every interface that takes one (gRPC, HTTP) and for the queries the adapters build. A
 * query over a limit is {@code QUERY_SYNTAX_ERROR} (400, gRPC {@code INVALID_ARGUMENT}) naming the key.
 */
public final class QueryConfig {
    @Min(QueryLimits.MIN_TEXT_BYTES)
    @Max(QueryLimits.TEXT_BYTES_CEILING)
    @JsonProperty("max-length")
    private int maxLength = QueryLimits.DEFAULTS.maxTextBytes();

    @Min(1)
    @Max(QueryLimits.DEPTH_CEILING)
    @JsonProperty("max-depth")
    private int maxDepth = QueryLimits.DEFAULTS.maxDepth();

    public QueryLimits toLimits() {
        return new QueryLimits(maxLength, maxDepth);
    }
}
