package io.treecat.core.query.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.query.tree.ComparisonOperator;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.Exists;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Not;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import java.util.List;
import java.util.stream.Collectors;
import org.bson.BsonBoolean;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TestQueryParser {
    static final String PAPER_QUERY =
            "/[obj_id='retail']/[obj_id='sales' and obj_type='table']/[part_val='US']/[part_val > '2025-01-01']/[stats.price.min > 5]";
    static final String PAPER_QUERY_ACROSS_LINES =
            "/[obj_id='retail']/[obj_id='sales' and\n  obj_type='table']/[part_val='US']\n  /[part_val > '2025-01-01']/[stats.price.min > 5]";

    @Test
    void parsesThePaperQuery() {
        Query query = QueryParser.parse(PAPER_QUERY);

        assertThat(query.text()).isEqualTo(PAPER_QUERY);
        assertThat(query.steps())
                .containsExactly(
                        new Step.Filter(eq(field("obj_id"), string("retail")), 1),
                        new Step.Filter(
                                And.of(eq(field("obj_id"), string("sales")), eq(field("obj_type"), string("table"))),
                                19),
                        new Step.Filter(eq(field("part_val"), string("US")), 57),
                        new Step.Filter(
                                new Comparison(field("part_val"), ComparisonOperator.GT, string("2025-01-01")), 73),
                        new Step.Filter(
                                new Comparison(field("stats", "price", "min"), ComparisonOperator.GT, number(5)), 99));
        assertThat(query.toString())
                .isEqualTo("/[obj_id = 'retail']/[(obj_id = 'sales' and obj_type = 'table')]/[part_val = 'US']"
                        + "/[part_val > '2025-01-01']/[stats.price.min > 5]");
    }

    @Test
    void parsesThePaperQueryWrittenAcrossLines() {
        Query query = QueryParser.parse(PAPER_QUERY_ACROSS_LINES);

        assertThat(exprs(query)).isEqualTo(exprs(QueryParser.parse(PAPER_QUERY)));
        assertThat(query.steps()).extracting(Step::position).containsExactly(1, 19, 59, 78, 104);
    }

    @Test
    void parsesWildcards() {
        Query query = QueryParser.parse("/[obj_id='retail']/[obj_id='sales']/*/*/*");

        assertThat(query.steps())
                .containsExactly(
                        new Step.Filter(eq(field("obj_id"), string("retail")), 1),
                        new Step.Filter(eq(field("obj_id"), string("sales")), 19),
                        new Step.Wildcard(36),
                        new Step.Wildcard(38),
                        new Step.Wildcard(40));
        assertThat(QueryParser.parse("/*").steps()).containsExactly(new Step.Wildcard(1));
    }

    @Test
    void parsesTwoLevelQuery() {
        assertThat(exprs(QueryParser.parse("/[obj_id='retail']/[obj_id='sales' and obj_type='table']")))
                .containsExactly(
                        eq(field("obj_id"), string("retail")),
                        And.of(eq(field("obj_id"), string("sales")), eq(field("obj_type"), string("table"))));
    }

    @Test
    void parsesLiteralOnTheLeft() {
        assertThat(exprs(QueryParser.parse("/[1 < obj_id and obj_id < 100]")))
                .containsExactly(And.of(
                        new Comparison(number(1), ComparisonOperator.LT, field("obj_id")),
                        new Comparison(field("obj_id"), ComparisonOperator.LT, number(100))));
    }

    @Test
    void readsKeywordsInAnyCase() {
        assertThat(
                        exprs(
                                QueryParser.parse(
                                        "/[NOT a = TRUE AnD b In (NULL, False) Or StartsWith(c, 'x') OR EXISTS(d) or ENDSWITH(e,'y')]")))
                .containsExactly(Or.of(
                        And.of(
                                new Not(eq(field("a"), new Literal(BsonBoolean.TRUE))),
                                new InList(
                                        field("b"),
                                        List.of(new Literal(BsonNull.VALUE), new Literal(BsonBoolean.FALSE)))),
                        new StringMatch(StringMatch.Kind.STARTS_WITH, field("c"), "x"),
                        new Exists(field("d")),
                        new StringMatch(StringMatch.Kind.ENDS_WITH, field("e"), "y")));
    }

    @Test
    void bindsNotTighterThanAndTighterThanOr() {
        assertThat(expr("a = 1 or b = 2 and not c = 3"))
                .isEqualTo(Or.of(
                        eq(field("a"), number(1)),
                        And.of(eq(field("b"), number(2)), new Not(eq(field("c"), number(3))))));
        assertThat(expr("(a = 1 or b = 2) and c = 3"))
                .isEqualTo(
                        And.of(Or.of(eq(field("a"), number(1)), eq(field("b"), number(2))), eq(field("c"), number(3))));
        assertThat(expr("not not (a = 1)")).isEqualTo(new Not(new Not(eq(field("a"), number(1)))));
        assertThat(expr("a = 1 and (b = 2 and c = 3)"))
                .isEqualTo(And.of(
                        eq(field("a"), number(1)), And.of(eq(field("b"), number(2)), eq(field("c"), number(3)))));
    }

    @Test
    void readsEveryOperator() {
        for (ComparisonOperator operator : ComparisonOperator.values()) {
            assertThat(expr("a" + operator.symbol() + "1")).isEqualTo(new Comparison(field("a"), operator, number(1)));
        }
    }

    @Test
    void readsStringsWithEscapes() {
        assertThat(literalValue("'it\\'s'")).isEqualTo(new BsonString("it's"));
        assertThat(literalValue("\"say \\\"hi\\\"\"")).isEqualTo(new BsonString("say \"hi\""));
        assertThat(literalValue("\"it's\"")).isEqualTo(new BsonString("it's"));
        assertThat(literalValue("'a\\\\b\\nc\\td'")).isEqualTo(new BsonString("a\\b\nc\td"));
        assertThat(literalValue("'\\u00e9\\u0000\\uD83D\\uDE00'")).isEqualTo(new BsonString("é\u0000😀"));
        assertThat(literalValue("''")).isEqualTo(new BsonString(""));
        assertThat(literalValue("'/[]'")).isEqualTo(new BsonString("/[]"));
    }

    @Test
    void readsNumbers() {
        assertThat(literalValue("0")).isEqualTo(new BsonInt32(0));
        assertThat(literalValue("-7")).isEqualTo(new BsonInt32(-7));
        assertThat(literalValue("2147483647")).isEqualTo(new BsonInt32(Integer.MAX_VALUE));
        assertThat(literalValue("-2147483648")).isEqualTo(new BsonInt32(Integer.MIN_VALUE));
        assertThat(literalValue("2147483648")).isEqualTo(new BsonInt64(2147483648L));
        assertThat(literalValue("9223372036854775807")).isEqualTo(new BsonInt64(Long.MAX_VALUE));
        assertThat(literalValue("-9223372036854775808")).isEqualTo(new BsonInt64(Long.MIN_VALUE));
        assertThat(literalValue("1.5")).isEqualTo(new BsonDouble(1.5));
        assertThat(literalValue("-2.0")).isEqualTo(new BsonDouble(-2.0));
        assertThat(literalValue("1e3")).isEqualTo(new BsonDouble(1000));
        assertThat(literalValue("1.5E-3")).isEqualTo(new BsonDouble(0.0015));
        assertThat(literalValue("2e+2")).isEqualTo(new BsonDouble(200));
    }

    @Test
    void readsBooleansAndNull() {
        assertThat(literalValue("true")).isEqualTo(BsonBoolean.TRUE);
        assertThat(literalValue("FALSE")).isEqualTo(BsonBoolean.FALSE);
        assertThat(literalValue("Null")).isEqualTo(BsonNull.VALUE);
    }

    @Test
    void readsFieldPaths() {
        assertThat(expr("stats.price.min = 1")).isEqualTo(eq(field("stats", "price", "min"), number(1)));
        assertThat(expr("_a-b$c.D9 = 1")).isEqualTo(eq(field("_a-b$c", "D9"), number(1)));
        assertThat(expr("`odd name`.x = 1")).isEqualTo(eq(field("odd name", "x"), number(1)));
        assertThat(expr("a.`and`.`1st`.`a.b` = 1")).isEqualTo(eq(field("a", "and", "1st", "a.b"), number(1)));
        assertThat(expr("`back\\`tick` = 1")).isEqualTo(eq(field("back`tick"), number(1)));
        assertThat(expr("`obj_id` = 1")).isEqualTo(eq(FieldRef.objectId(), number(1)));
        assertThat(expr("a = b.c")).isEqualTo(eq(field("a"), field("b", "c")));
    }

    @Test
    void allowsWhitespaceBetweenAllTokens() {
        assertThat(QueryParser.parse(" \n/ \t[ a\r\n=\f1 ]\n/ *\n").toString()).isEqualTo("/[a = 1]/*");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "\"\"|Syntax error at line 1, column 1: expected '/' but found end of query",
                "/|Syntax error at line 1, column 2: expected '*' or '[' after '/' but found end of query",
                "a|Syntax error at line 1, column 1: expected '/' but found 'a'",
                "/*/|Syntax error at line 1, column 4: expected '*' or '[' after '/' but found end of query",
                "//*|Syntax error at line 1, column 2: expected '*' or '[' after '/' but found '/'",
                "/[]|Syntax error at line 1, column 3: expected an expression but found ']'",
                "/[obj_id='retail'|Syntax error at line 1, column 18: expected ']' but found end of query",
                "/[obj_id = 'retail' /*|Syntax error at line 1, column 21: expected ']' but found '/'",
                "/[a = 'x]|Syntax error at line 1, column 10: expected ' to close the string at line 1, column 7 but found end of query",
                "/[a == 1]|Syntax error at line 1, column 5: expected one of =, !=, <, <=, >, >= but found unknown operator '=='",
                "/[a <> 1]|Syntax error at line 1, column 5: expected one of =, !=, <, <=, >, >= but found unknown operator '<>'",
                "/[a =~ 1]|Syntax error at line 1, column 5: expected one of =, !=, <, <=, >, >= but found unknown operator '=~'",
                "/[a ! 1]|Syntax error at line 1, column 5: expected one of =, !=, <, <=, >, >= but found unknown operator '!'",
                "/[foo(a)]|Syntax error at line 1, column 3: expected 'startswith', 'endswith' or 'exists' but found unknown function 'foo'",
                "/[startswith('a', 'b')]|Syntax error at line 1, column 14: expected a field but found string 'a'",
                "/[startswith(a, b)]|Syntax error at line 1, column 17: expected a string but found 'b'",
                "/[startswith(a 'b')]|Syntax error at line 1, column 16: expected ',' but found string 'b'",
                "/[startswith a]|Syntax error at line 1, column 14: expected '(' after 'startswith' but found 'a'",
                "/[exists(1)]|Syntax error at line 1, column 10: expected a field but found '1'",
                "/[exists(a]|Syntax error at line 1, column 11: expected ')' but found ']'",
                "/* x|Syntax error at line 1, column 4: expected '/' or end of query but found 'x'",
                "/[a = 1] ]|Syntax error at line 1, column 10: expected '/' or end of query but found ']'",
                "/[a = 1 b]|Syntax error at line 1, column 9: expected ']' but found 'b'",
                "/[a]|Syntax error at line 1, column 4: expected a comparison operator or 'in' but found ']'",
                "/[a =]|Syntax error at line 1, column 6: expected a field or literal but found ']'",
                "/[a = and]|Syntax error at line 1, column 7: expected a field or literal but found 'and'",
                "/[and = 1]|Syntax error at line 1, column 3: expected an expression but found 'and'",
                "/[a in 1]|Syntax error at line 1, column 8: expected '(' after 'in' but found '1'",
                "/[a in ()]|Syntax error at line 1, column 9: expected a literal but found ')'",
                "/[a in (b)]|Syntax error at line 1, column 9: expected a literal but found 'b'",
                "/[a in (1 2)]|Syntax error at line 1, column 11: expected ',' or ')' but found '2'",
                "/[(a = 1]|Syntax error at line 1, column 9: expected ')' but found ']'",
                "/[a. = 1]|Syntax error at line 1, column 6: expected a field name after '.' but found '='",
                "/[`` = 1]|Syntax error at line 1, column 3: expected a field name but found the empty name ``",
                "/[a = 'x\\q']|Syntax error at line 1, column 9: expected one of the escapes \\' \\\" \\` \\\\ \\n \\t \\uXXXX but found '\\q'",
                "/[a = '\\u12g4']|Syntax error at line 1, column 8: expected four hex digits after '\\u' but found '\\u12g'",
                "/[a = '\\u12|Syntax error at line 1, column 8: expected four hex digits after '\\u' but found '\\u12'",
                "/[a = 9223372036854775808]|Syntax error at line 1, column 7: expected an integer between -9223372036854775808 and 9223372036854775807 but found '9223372036854775808'",
                "/[a = 1e999]|Syntax error at line 1, column 7: expected a decimal within the range of a double but found '1e999'",
                "/[a = 1e]|Syntax error at line 1, column 9: expected the digits of the exponent of '1e' but found ']'",
                "/[a = -x]|Syntax error at line 1, column 7: expected a digit after '-' but found 'x'",
                "/[a = 12abc]|Syntax error at line 1, column 9: expected an operator or delimiter after number '12' but found 'a'",
                "/[a = 1 @]|Syntax error at line 1, column 9: expected a token but found '@'",
                "/[a = 1 \u00a0]|Syntax error at line 1, column 9: expected a token but found character U+00A0",
            })
    void reportsSyntaxErrors(String text, String message) {
        assertThatThrownBy(() -> QueryParser.parse(text))
                .isInstanceOf(CatalogException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.QUERY_SYNTAX_ERROR));
    }

    @Test
    void reportsLineColumnAndPositionInTheContext() {
        String text = "/[obj_id='retail']/[obj_id='sales' and\n  obj_type=='table']";

        assertThatThrownBy(() -> QueryParser.parse(text))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Syntax error at line 2, column 11: expected one of =, !=, <, <=, >, >= but found unknown operator '=='")
                .satisfies(e -> assertThat(((CatalogException) e).context())
                        .containsEntry("position", "50")
                        .containsEntry("line", "2")
                        .containsEntry("column", "11"));
    }

    @Test
    void rejectsNullText() {
        assertThatThrownBy(() -> QueryParser.parse(null))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Syntax error at line 1, column 1: expected '/' but found no query text");
    }

    @Test
    void rejectsTextOverTheLimit() {
        String longString = "x".repeat(QueryParser.MAX_TEXT_BYTES - 9);
        String fits = "/[a = '" + longString + "']";
        assertThat(fits.length()).isEqualTo(QueryParser.MAX_TEXT_BYTES);
        assertThat(QueryParser.parse(fits).steps()).hasSize(1);

        assertThatThrownBy(() -> QueryParser.parse("/[a = '" + longString + "é']"))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Syntax error at line 1, column 65536: expected at most 65536 bytes of query text (query.max-length) but found more");
    }

    @Test
    void rejectsNestingOverTheLimit() {
        String atLimit =
                "(".repeat(QueryParser.MAX_NESTING_DEPTH) + "a = 1" + ")".repeat(QueryParser.MAX_NESTING_DEPTH);
        assertThat(expr(atLimit)).isEqualTo(eq(field("a"), number(1)));
        assertThat(expr("not ".repeat(32) + "(".repeat(32) + "a = 1" + ")".repeat(32)))
                .isInstanceOf(Not.class);

        assertThatThrownBy(() -> QueryParser.parse("/[" + "(".repeat(65) + "a = 1" + ")".repeat(65) + "]"))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Syntax error at line 1, column 67: expected at most 64 levels of nesting (query.max-depth) but found '('");
        assertThatThrownBy(() -> QueryParser.parse("/[" + "not ".repeat(1_000) + "a = 1]"))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Syntax error at line 1, column 259: expected at most 64 levels of nesting (query.max-depth) but found 'not'");
    }

    @Test
    void namesLongTokensAbbreviated() {
        assertThatThrownBy(() -> QueryParser.parse("/[startswith('" + "y".repeat(100) + "', 'b')]"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Syntax error at line 1, column 14: expected a field but found string '" + "y".repeat(39)
                        + "…");
    }

    static List<Expr> exprs(Query query) {
        return query.steps().stream()
                .map(step -> step instanceof Step.Filter filter ? filter.expr() : null)
                .collect(Collectors.toList());
    }

    static Expr expr(String predicate) {
        return ((Step.Filter) QueryParser.parse("/[" + predicate + "]").steps().get(0)).expr();
    }

    static BsonValue literalValue(String literal) {
        return ((Literal) ((Comparison) expr("a = " + literal)).right()).value();
    }

    static FieldRef field(String... names) {
        return FieldRef.of(names);
    }

    static Literal string(String value) {
        return Literal.of(value);
    }

    static Literal number(long value) {
        return Literal.of(value);
    }

    static Comparison eq(Operand left, Operand right) {
        return new Comparison(left, ComparisonOperator.EQ, right);
    }
}
