package io.treecat.grpc;

import io.treecat.core.service.CatalogMetrics;
import java.util.concurrent.atomic.AtomicLong;

/** Counts closed query cursors, so a test can see that the server released a query. */
final class CountingMetrics implements CatalogMetrics {
    final AtomicLong queriesClosed = new AtomicLong();
    final AtomicLong rowsStreamed = new AtomicLong();

    @Override
    public void queryCompleted(long nanos, long rows) {
        queriesClosed.incrementAndGet();
        rowsStreamed.addAndGet(rows);
    }
}
