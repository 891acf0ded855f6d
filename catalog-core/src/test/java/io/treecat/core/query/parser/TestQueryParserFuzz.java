package io.treecat.core.query.parser;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.query.tree.Query;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** On any input the parser returns a query or throws a syntax error, never another exception. */
class TestQueryParserFuzz {
    private static final String ALPHABET = "/[]()*,.=!<>~'\"`\\ \n\tabcdeinotruflsxwhy_$-0123456789EeU@é😀\u0000";
    private static final String[] SEEDS = {
        TestQueryParser.PAPER_QUERY,
        TestQueryParser.PAPER_QUERY_ACROSS_LINES,
        "/[obj_id='retail']/[obj_id='sales']/*/*/*",
        "/[1 < obj_id and obj_id < 100]",
        "/[not (a = 1 or b in (1, 2.5, 'x', true, null)) and startswith(obj_id, 'p') and exists(`x y`.z)]",
        "/[a = '\\u00e9\\n\\'' or endswith(b, \"q\\\"\") or c >= -1e-3]",
    };

    @Test
    void randomStringsParseOrFailWithSyntaxError() {
        Random random = new Random(1L);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text = new StringBuilder(random.nextBoolean() ? "/" : "");
            int length = random.nextInt(40);
            for (int j = 0; j < length; j++) {
                text.appendCodePoint(ALPHABET.codePointAt(
                        ALPHABET.offsetByCodePoints(0, random.nextInt(ALPHABET.codePointCount(0, ALPHABET.length())))));
            }
            check(text.toString());
        }
    }

    @Test
    void mutationsOfValidQueriesParseOrFailWithSyntaxError() {
        Random random = new Random(2L);
        for (int i = 0; i < 30_000; i++) {
            StringBuilder text = new StringBuilder(SEEDS[random.nextInt(SEEDS.length)]);
            int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations && text.length() > 0; m++) {
                int at = random.nextInt(text.length());
                char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
                switch (random.nextInt(4)) {
                    case 0 -> text.deleteCharAt(at);
                    case 1 -> text.insert(at, c);
                    case 2 -> text.setCharAt(at, c);
                    default -> text.setLength(at);
                }
            }
            check(text.toString());
        }
    }

    static void check(String text) {
        Query query;
        try {
            query = QueryParser.parse(text);
        } catch (CatalogException e) {
            assertThat(e.code()).as(text).isEqualTo(ErrorCode.QUERY_SYNTAX_ERROR);
            assertThat(e.getMessage())
                    .as(text)
                    .matches("(?s)Syntax error at line \\d+, column \\d+: expected .+ but found .+");
            assertThat(e.context()).as(text).containsKeys("position", "line", "column");
            int position = Integer.parseInt((String) e.context().get("position"));
            assertThat(position).as(text).isBetween(1, text.length() + 1);
            return;
        }
        assertThat(TestQueryRoundTrip.structure(QueryParser.parse(query.toString())))
                .as(text)
                .isEqualTo(TestQueryRoundTrip.structure(query));
    }
}
