package io.treecat.core.query.plan;

import static java.util.Objects.requireNonNull;

import io.treecat.core.query.tree.Predicates;
import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a query into a plan. Pure and deterministic: the same query always gives the same plan, and
 * planning touches no storage, so plans can be explained and tested without a store.
 */
public final class QueryPlanner {
    private QueryPlanner() {}

    public static QueryPlan plan(Query query) {
        requireNonNull(query, "query is null");
        List<PlanStep> steps = new ArrayList<>();
        int depth = 1;
        for (Step step : query.steps()) {
            if (step instanceof Step.Filter filter) {
                steps.add(new PlanStep(depth, step, IdBounds.of(filter.expr()), Predicates.needsValue(filter.expr())));
            } else {
                steps.add(new PlanStep(depth, step, IdRanges.ALL, false));
            }
            depth++;
        }
        return new QueryPlan(query, steps);
    }
}
