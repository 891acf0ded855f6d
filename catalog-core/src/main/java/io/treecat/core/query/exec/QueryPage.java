package io.treecat.core.query.exec;

import com.google.common.collect.ImmutableList;
import io.treecat.core.model.CatalogObject;
import java.util.List;
import java.util.Optional;

/**
 * One page of results.
 *
 * @param vid the version the page was read at
 * @param continuation the token for the next page; empty when this page is the last
 */
public record QueryPage(long vid, List<CatalogObject> rows, Optional<String> continuation) {
    public QueryPage {
        rows = ImmutableList.copyOf(rows);
    }
}
