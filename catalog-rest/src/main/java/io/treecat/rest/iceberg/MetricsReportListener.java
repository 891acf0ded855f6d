package io.treecat.rest.iceberg;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Receives the scan and commit reports Iceberg clients post to {@code …/tables/{table}/metrics},
 * for the server to count. Called on the request path: implementations must be thread safe and fast.
 */
@FunctionalInterface
public interface MetricsReportListener {
    MetricsReportListener NONE = (table, reportType) -> {};

    /**
     * @param reportType {@code scan-report}, {@code commit-report}, or {@code unknown} for a kind this
     *     Iceberg version does not know
     */
    void reported(TableIdentifier table, String reportType);
}
