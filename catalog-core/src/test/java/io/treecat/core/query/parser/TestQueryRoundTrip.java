package io.treecat.core.query.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** toString of every tree is query text that parses back to the same tree. */
class TestQueryRoundTrip {
    @Test
    void randomTreesSurviveRenderingAndParsing() {
        Random random = new Random(20251122L);
        RandomQueries queries = new RandomQueries(random);
        for (int i = 0; i < 5_000; i++) {
            Query query = queries.query();
            String text = query.toString();

            Query parsed = QueryParser.parse(text);

            assertThat(structure(parsed)).as(text).isEqualTo(structure(query));
            assertThat(parsed.toString()).isEqualTo(text);
            assertThat(parsed.text()).isEqualTo(text);
        }
    }

    @Test
    void positionsPointAtEachStepsSlash() {
        Query query = QueryParser.parse("/[a = 1]/*/[b = 2]");

        assertThat(query.steps()).extracting(Step::position).containsExactly(1, 9, 11);
    }

    /** The steps without their positions, which depend on spacing. */
    static List<Object> structure(Query query) {
        return query.steps().stream()
                .map(step -> step instanceof Step.Filter filter ? filter.expr() : "*")
                .collect(Collectors.toList());
    }
}
