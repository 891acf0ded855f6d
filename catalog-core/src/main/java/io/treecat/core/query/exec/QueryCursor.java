package io.treecat.core.query.exec;

import io.treecat.core.model.CatalogObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The streaming result of a query: rows in path order, pulled one at a time from the chain of
 * correlated scans. Holds storage iterators while open: close it.
 */
public interface QueryCursor extends AutoCloseable {
    /** Moves to the next row; false when there are no more. */
    boolean advance();

    CatalogObject current();

    /** The vid every row is read at. */
    long vid();

    /** The token that resumes after the current row. */
    default String continuation() {
        return new Continuation(vid(), current().path()).encode();
    }

    /**
     * Reads up to {@code limit} rows. The page has a continuation only if more rows follow, so a
     * client never fetches an empty last page.
     */
    default QueryPage page(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive");
        }
        List<CatalogObject> rows = new ArrayList<>(Math.min(limit, 1024));
        while (rows.size() < limit && advance()) {
            rows.add(current());
        }
        Optional<String> next = Optional.empty();
        if (rows.size() == limit && advance()) {
            next = Optional.of(new Continuation(vid(), rows.get(rows.size() - 1).path()).encode());
        }
        return new QueryPage(vid(), rows, next);
    }

    /** This cursor without the rows {@code keep} refuses; closing it closes this one. */
    default QueryCursor filtered(Predicate<CatalogObject> keep) {
        return new FilteredQueryCursor(this, keep);
    }

    @Override
    void close();
}
