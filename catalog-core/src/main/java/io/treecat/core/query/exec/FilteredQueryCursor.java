package io.treecat.core.query.exec;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import java.util.function.Predicate;

/**
 * A cursor that skips the rows {@code keep} refuses: what an adapter filters a query's answer with, row by row, when
 * its caller may not see everything (docs/security.md, "Native path queries"). Skipped rows are still scanned, so a
 * page of a filtered query may take longer than its row count says; a continuation resumes after the last row kept.
 */
final class FilteredQueryCursor implements QueryCursor {
    private final QueryCursor rows;
    private final Predicate<CatalogObject> keep;

    FilteredQueryCursor(QueryCursor rows, Predicate<CatalogObject> keep) {
        this.rows = requireNonNull(rows, "rows is null");
        this.keep = requireNonNull(keep, "keep is null");
    }

    @Override
    public boolean advance() {
        while (rows.advance()) {
            if (keep.test(rows.current())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public CatalogObject current() {
        return rows.current();
    }

    @Override
    public long vid() {
        return rows.vid();
    }

    @Override
    public String continuation() {
        return rows.continuation();
    }

    @Override
    public void close() {
        rows.close();
    }
}
