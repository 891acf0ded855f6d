package io.treecat.core.query.plan;

import static java.util.Objects.requireNonNull;

import io.treecat.core.query.tree.Step;

/**
 * What the executor does at one level of the tree.
 *
 * @param depth the 1-based depth of the objects this step matches (step 1 scans the root's children)
 * @param step the query step, whose predicate the executor must still test on every candidate
 * @param idRanges the only ids the predicate can accept: iterator bounds, not a filter
 * @param needsValue whether the predicate reads a field other than {@code obj_id}, so candidates
 *     must have their value loaded
 */
public record PlanStep(int depth, Step step, IdRanges idRanges, boolean needsValue) {
    public PlanStep {
        requireNonNull(step, "step is null");
        requireNonNull(idRanges, "idRanges is null");
        if (depth < 1) {
            throw new IllegalArgumentException("depth is 1-based: " + depth);
        }
    }

    /** One line of {@link QueryPlan#explain}. */
    String explain() {
        StringBuilder line = new StringBuilder().append(depth).append(": scan children");
        if (depth == 1) {
            line.append(" of /");
        }
        line.append(" ids ");
        line.append(idRanges.isAll() || idRanges.isEmpty() ? idRanges.toString() : "in " + idRanges);
        if (step instanceof Step.Filter filter) {
            line.append(" filter ").append(filter.expr());
        }
        if (needsValue) {
            line.append(" [reads value]");
        }
        return line.toString();
    }
}
