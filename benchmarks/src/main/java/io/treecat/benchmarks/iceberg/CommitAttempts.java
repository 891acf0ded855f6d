package io.treecat.benchmarks.iceberg;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * Counts the attempts of every committed Iceberg operation, by table, from the client's own commit reports ({@code
 * metrics-reporter-impl}): the same count whatever the catalog, since the client's retry loop makes it. A table's
 * retries are its attempts less its commits.
 */
public final class CommitAttempts implements MetricsReporter {
    private static final Map<String, LongAdder> ATTEMPTS = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> COMMITS = new ConcurrentHashMap<>();

    @Override
    public void report(MetricsReport report) {
        if (report instanceof CommitReport commit) {
            CounterResult attempts = commit.commitMetrics().attempts();
            String table = commit.tableName();
            ATTEMPTS.computeIfAbsent(table, ignored -> new LongAdder()).add(attempts == null ? 1 : attempts.value());
            COMMITS.computeIfAbsent(table, ignored -> new LongAdder()).increment();
        }
    }

    /** Mean retries per committed operation on one table, named as its catalog reports it; 0 when none committed. */
    static double meanRetries(String table) {
        long attempts = sum(ATTEMPTS, table);
        long commits = sum(COMMITS, table);
        return commits == 0 ? 0 : (double) (attempts - commits) / commits;
    }

    private static long sum(Map<String, LongAdder> counters, String table) {
        LongAdder counter = counters.get(table);
        return counter == null ? 0 : counter.sum();
    }
}
