package io.treecat.core.query.tree;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * A parsed path query: step <i>i</i> filters the children of the objects that step <i>i-1</i>
 * matched, starting from the root.
 *
 * @param steps at least one step, in query order
 * @param text the text the query was parsed from, kept for error messages and explain; {@link
 *     #toString} renders the canonical text from the steps instead
 */
public record Query(List<Step> steps, String text) {
    public Query {
        requireNonNull(steps, "steps is null");
        requireNonNull(text, "text is null");
        steps = ImmutableList.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a query has at least one step");
        }
    }

    /** The canonical query text: parsing it gives back these steps (positions aside). */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Step step : steps) {
            out.append('/').append(step);
        }
        return out.toString();
    }
}
