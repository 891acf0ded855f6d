package io.treecat.core.query.parser;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.query.tree.Query;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the path query parser and planner (Jazzer, docs/robustness.md). On any
 * text the parser returns a query that renders and parses back to itself, or fails with {@code
 * QUERY_SYNTAX_ERROR} at a position inside the text ({@link TestQueryParserFuzz#check}); a parsed
 * query plans and explains, or fails with a client error. Never another exception, a stack
 * overflow, or a hang ({@link Timeout} is each input's limit, in fuzzing too).
 *
 * <p>Under {@code ./mvnw verify} it runs the stored inputs in {@code TestQueryParserFuzzingInputs/};
 * {@code JAZZER_FUZZ=1} fuzzes (bin/fuzz).
 */
class TestQueryParserFuzzing {
    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "/[",
        "]",
        "/*",
        " and ",
        " or ",
        "not ",
        " in (",
        "startswith(",
        "endswith(",
        "exists(",
        "obj_id",
        "'",
        "\"",
        "`",
        "\\u",
        "=",
        "!=",
        "<=",
        ">=",
        "~",
        "null",
        "true",
        "false",
        "1e308",
        "-0.5"
    })
    void queryTextParsesAndPlansOrIsASyntaxError(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        TestQueryParserFuzz.check(text);
        Query query;
        try {
            query = QueryParser.parse(text);
        } catch (CatalogException e) {
            return;
        }
        try {
            assertThat(QueryPlanner.plan(query).explain()).as(text).isNotEmpty();
        } catch (CatalogException e) {
            assertThat(e.category()).as(text).isEqualTo(ErrorCategory.INVALID_ARGUMENT);
        }
    }
}
