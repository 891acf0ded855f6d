package io.treecat.core.service;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.exec.QueryPage;

/** Counts the rows a cursor streams and reports the query when the cursor closes. */
final class MeasuredCursor implements QueryCursor {
    private final QueryCursor delegate;
    private final CatalogMetrics metrics;
    private final long started = System.nanoTime();
    private long rows;
    private boolean closed;

    MeasuredCursor(QueryCursor delegate, CatalogMetrics metrics) {
        this.delegate = delegate;
        this.metrics = metrics;
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
            delegate.close();
            metrics.queryCompleted(System.nanoTime() - started, rows);
        }
    }
}
