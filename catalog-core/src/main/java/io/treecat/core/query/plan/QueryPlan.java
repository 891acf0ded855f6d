package io.treecat.core.query.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.query.tree.Query;
import java.util.List;
import java.util.stream.Collectors;

/** A query with one {@link PlanStep} per query step, in order. */
public record QueryPlan(Query query, List<PlanStep> steps) {
    public QueryPlan {
        requireNonNull(query, "query is null");
        requireNonNull(steps, "steps is null");
        steps = ImmutableList.copyOf(steps);
        if (steps.size() != query.steps().size()) {
            throw new IllegalArgumentException("a plan has one step per query step");
        }
    }

    /** True when some step can match nothing, so the query has no results whatever the data. */
    public boolean isEmpty() {
        return steps.stream().anyMatch(step -> step.idRanges().isEmpty());
    }

    /** One line per step, deterministic, for users and golden tests. */
    public String explain() {
        return steps.stream().map(PlanStep::explain).collect(Collectors.joining("\n"));
    }
}
