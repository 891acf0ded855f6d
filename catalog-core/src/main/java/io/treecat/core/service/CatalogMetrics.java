package io.treecat.core.service;

import io.treecat.core.error.ErrorCode;

/**
 * What the service reports as it works, for an adapter to turn into metrics. Core stays free of any
 * metrics library; the server implements this over its registry. Implementations must be thread
 * safe and fast: they run on the request path.
 */
public interface CatalogMetrics {
    CatalogMetrics NONE = new CatalogMetrics() {};

    /** A commit (transactional or not) became durable. */
    default void commitSucceeded(long nanos, int changes) {}

    /** A commit failed: a conflict, a lock timeout, a failed precondition, a storage error. */
    default void commitFailed(ErrorCode reason, long nanos) {}

    /** A query cursor was closed after streaming {@code rows} rows. */
    default void queryCompleted(long nanos, long rows) {}

    /** A query failed before or while streaming. */
    default void queryFailed(ErrorCode reason) {}
}
