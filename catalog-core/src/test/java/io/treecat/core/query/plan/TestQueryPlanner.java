package io.treecat.core.query.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.tree.Query;
import org.junit.jupiter.api.Test;

class TestQueryPlanner {
    @Test
    void explainsThePaperQuery() {
        QueryPlan plan = plan("/[obj_id='retail']/[obj_id='sales' and\n  obj_type='table']/[part_val='US']\n"
                + "  /[part_val > '2025-01-01']/[stats.price.min > 5]");

        assertThat(plan.explain()).isEqualTo("""
            1: scan children of / ids in ['retail', 'retail'] filter obj_id = 'retail'
            2: scan children ids in ['sales', 'sales'] filter (obj_id = 'sales' and obj_type = 'table') [reads value]
            3: scan children ids all filter part_val = 'US' [reads value]
            4: scan children ids all filter part_val > '2025-01-01' [reads value]
            5: scan children ids all filter stats.price.min > 5 [reads value]""");
        assertThat(plan.isEmpty()).isFalse();
    }

    @Test
    void explainsWildcards() {
        assertThat(plan("/[obj_id='retail']/[obj_id='sales']/*/*/*").explain()).isEqualTo("""
            1: scan children of / ids in ['retail', 'retail'] filter obj_id = 'retail'
            2: scan children ids in ['sales', 'sales'] filter obj_id = 'sales'
            3: scan children ids all
            4: scan children ids all
            5: scan children ids all""");
    }

    @Test
    void explainsRangesPrefixesListsAndEmptySteps() {
        QueryPlan plan = plan(
                "/[obj_id > '2025-01-01' and obj_id <= '2025-12-31']/[startswith(obj_id, 'ab') or obj_id in ('x', 'y')]"
                        + "/[1 < obj_id and obj_id < 100]/[obj_id != 'a']");

        assertThat(plan.explain()).isEqualTo("""
            1: scan children of / ids in ('2025-01-01', '2025-12-31'] filter (obj_id > '2025-01-01' and obj_id <= '2025-12-31')
            2: scan children ids in ['ab', 'ab'…] or ['x', 'x'] or ['y', 'y'] filter (startswith(obj_id, 'ab') or obj_id in ('x', 'y'))
            3: scan children ids none filter (1 < obj_id and obj_id < 100)
            4: scan children ids in (-∞, 'a') or ('a', +∞) filter obj_id != 'a'""");
        assertThat(plan.isEmpty()).isTrue();
    }

    @Test
    void plansOneStepPerQueryStep() {
        Query query = QueryParser.parse("/[obj_id = 'a']/*/[x = 1]");

        QueryPlan plan = QueryPlanner.plan(query);

        assertThat(plan.query()).isSameAs(query);
        assertThat(plan.steps()).extracting(PlanStep::depth).containsExactly(1, 2, 3);
        assertThat(plan.steps()).extracting(PlanStep::step).containsExactlyElementsOf(query.steps());
        assertThat(plan.steps()).extracting(PlanStep::needsValue).containsExactly(false, false, true);
        assertThat(plan.steps())
                .extracting(PlanStep::idRanges)
                .containsExactly(IdRanges.of(IdRange.point("a")), IdRanges.ALL, IdRanges.ALL);
    }

    @Test
    void isDeterministic() {
        String text = "/[obj_id in ('c', 'a', 'b') and not x = 1]/[startswith(obj_id, 'p')]";

        assertThat(plan(text).explain()).isEqualTo(plan(text).explain());
        assertThat(plan(text)).isEqualTo(plan(text));
    }

    private static QueryPlan plan(String text) {
        return QueryPlanner.plan(QueryParser.parse(text));
    }
}
