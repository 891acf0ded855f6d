package io.treecat.core.service;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.version.ReadPins;

/**
 * Counts the rows a cursor streams and reports the query when the cursor closes; holds the cursor's
 * read pin until then.
 */
final class MeasuredCursor implements QueryCursor {
    private final QueryCursor delegate;
    private final CatalogMetrics metrics;
    private final ReadPins.Pin pin;
    private final long started = System.nanoTime();
    private long rows;
    private boolean closed;

    MeasuredCursor(QueryCursor delegate, CatalogMetrics metrics, ReadPins.Pin pin) {
        this.delegate = delegate;
        this.metrics = metrics;
        this.pin = pin;
    }

    @Override
    public boolean advance() {
        try {
            boolean advanced = delegate.advance();
            if (advanced) {
                rows++;
            }
            return advanced;
        } catch (CatalogException e) {
            metrics.queryFailed(e.code());
            throw e;
        }
    }

    @Override
    public QueryPage page(int limit) {
        try {
            QueryPage page = delegate.page(limit);
            rows += page.rows().size();
            return page;
        } catch (CatalogException e) {
            metrics.queryFailed(e.code());
            throw e;
        }
    }

    @Override
    public CatalogObject current() {
        return delegate.current();
    }

    @Override
    public long vid() {
        return delegate.vid();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                delegate.close();
            } finally {
                pin.close();
            }
            metrics.queryCompleted(System.nanoTime() - started, rows);
        }
    }
}
