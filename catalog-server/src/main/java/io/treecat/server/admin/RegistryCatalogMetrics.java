package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.service.CatalogMetrics;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Core's metric hooks over Dropwizard's registry, so they show on the admin port's {@code /metrics}
 * and in Prometheus text at {@code /metrics/prometheus}. Every metric is created up front (one
 * failure meter per error code), so scrapes see zeros rather than missing series, and the request
 * path does no map lookups.
 */
public final class RegistryCatalogMetrics implements CatalogMetrics {
    static final String COMMITS = "treecat.commits";
    static final String COMMIT_CHANGES = "treecat.commits.changes";
    static final String COMMITS_FAILED = "treecat.commits.failed";
    static final String QUERIES = "treecat.queries";
    static final String QUERY_ROWS = "treecat.queries.rows";
    static final String QUERY_ROWS_PER_QUERY = "treecat.queries.rows-per-query";
    static final String QUERIES_FAILED = "treecat.queries.failed";

    private final Timer commits;
    private final Histogram commitChanges;
    private final Timer failedCommits;
    private final Map<ErrorCode, Meter> commitFailures = new EnumMap<>(ErrorCode.class);
    private final Timer queries;
    private final Meter queryRows;
    private final Histogram rowsPerQuery;
    private final Map<ErrorCode, Meter> queryFailures = new EnumMap<>(ErrorCode.class);

    public RegistryCatalogMetrics(MetricRegistry registry) {
        requireNonNull(registry, "registry is null");
        commits = registry.timer(COMMITS);
        commitChanges = registry.histogram(COMMIT_CHANGES);
        failedCommits = registry.timer(COMMITS_FAILED);
        queries = registry.timer(QUERIES);
        queryRows = registry.meter(QUERY_ROWS);
        rowsPerQuery = registry.histogram(QUERY_ROWS_PER_QUERY);
        for (ErrorCode code : ErrorCode.values()) {
            commitFailures.put(code, registry.meter(MetricRegistry.name(COMMITS_FAILED, code.name())));
            queryFailures.put(code, registry.meter(MetricRegistry.name(QUERIES_FAILED, code.name())));
        }
    }

    @Override
    public void commitSucceeded(long nanos, int changes) {
        commits.update(nanos, TimeUnit.NANOSECONDS);
        commitChanges.update(changes);
    }

    @Override
    public void commitFailed(ErrorCode reason, long nanos) {
        failedCommits.update(nanos, TimeUnit.NANOSECONDS);
        commitFailures.get(reason).mark();
    }

    @Override
    public void queryCompleted(long nanos, long rows) {
        queries.update(nanos, TimeUnit.NANOSECONDS);
        queryRows.mark(rows);
        rowsPerQuery.update(rows);
    }

    @Override
    public void queryFailed(ErrorCode reason) {
        queryFailures.get(reason).mark();
    }
}
