package io.treecat.core.query.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class TestPredicates {
    private static final BsonDocument VALUE = BsonDocument.parse("""
      {"obj_type": "table", "part_val": "2025-03-01", "n": 5, "big": {"$numberLong": "10"}, "d": 9.5,
       "dec": {"$numberDecimal": "5.0"}, "flag": true, "off": false, "nothing": null,
       "when": {"$date": 1700000000000}, "stats": {"price": {"min": 7}}, "list": [1, 2], "sub": {"x": 1},
       "odd name": {"x": "y"}, "s": "abc", "emoji": "😀", "high": "\uffff", "obj_id": "shadowed"}
      """);

    @Test
    void comparesNumbersNumericallyAcrossTypes() {
        assertThat(test("n = 5.0")).isTrue();
        assertThat(test("n = 5")).isTrue();
        assertThat(test("big > 9.5")).isTrue();
        assertThat(test("big > d")).isTrue();
        assertThat(test("big = 10")).isTrue();
        assertThat(test("dec = 5")).isTrue();
        assertThat(test("dec = n")).isTrue();
        assertThat(test("dec < 5.5")).isTrue();
        assertThat(test("d >= 9.5 and d <= 9.5 and d != 9")).isTrue();
        assertThat(test("n < 4294967296")).isTrue();
        assertThat(test("n != 5.0")).isFalse();
        assertThat(test("n > 5")).isFalse();
    }

    @Test
    void comparesLargeLongsExactlyAgainstDoubles() {
        BsonDocument value = new BsonDocument("x", new BsonInt64(Long.MAX_VALUE));
        // (double) Long.MAX_VALUE rounds up to 2^63, which is greater than the long.
        assertThat(test("x < 9.223372036854775807E18", value)).isTrue();
        assertThat(test("x = 9.223372036854775807E18", value)).isFalse();
    }

    @Test
    void comparesSpecialNumbers() {
        BsonDocument value = new BsonDocument("nan", new BsonDouble(Double.NaN))
                .append("inf", new BsonDouble(Double.POSITIVE_INFINITY))
                .append("negInf", new BsonDecimal128(Decimal128.NEGATIVE_INFINITY))
                .append("decNan", new BsonDecimal128(Decimal128.NaN))
                .append("negZero", new BsonDouble(-0.0))
                .append("decNegZero", new BsonDecimal128(Decimal128.NEGATIVE_ZERO));
        assertThat(test("nan = nan", value)).isFalse();
        assertThat(test("nan != 1", value)).isFalse();
        assertThat(test("decNan != 1", value)).isFalse();
        assertThat(test("inf > 1e308", value)).isTrue();
        assertThat(test("negInf < -1e308", value)).isTrue();
        assertThat(test("inf > negInf", value)).isTrue();
        assertThat(test("negZero = 0", value)).isTrue();
        assertThat(test("negZero = 0.0", value)).isTrue();
        assertThat(test("decNegZero = 0", value)).isTrue();
    }

    @Test
    void comparesStringsByCodePoint() {
        assertThat(test("part_val > '2025-01-01'")).isTrue();
        assertThat(test("part_val < '2025-01-01'")).isFalse();
        assertThat(test("s = 'abc' and s >= 'abc' and s < 'abd' and s > 'ab'")).isTrue();
        // UTF-16 order puts U+FFFF after the surrogate pair of 😀; code point order does not.
        assertThat(test("emoji > high")).isTrue();
    }

    @Test
    void comparesBooleansAndDates() {
        assertThat(test("flag = true and off = false and flag > off and off < true"))
                .isTrue();
        assertThat(test("flag < false")).isFalse();
        BsonDocument value = new BsonDocument("a", new BsonDateTime(1)).append("b", new BsonDateTime(2));
        assertThat(test("a < b and b > a and a != b", value)).isTrue();
        assertThat(test("a = b", value)).isFalse();
    }

    @Test
    void comparesNullOnlyForEquality() {
        assertThat(test("nothing = null")).isTrue();
        assertThat(test("nothing != null")).isFalse();
        assertThat(test("nothing <= null")).isFalse();
        assertThat(test("nothing >= null")).isFalse();
        assertThat(test("n = null")).isFalse();
        assertThat(test("n != null")).isFalse();
    }

    @Test
    void falseForUnlikeTypesWithEveryOperator() {
        for (ComparisonOperator operator : ComparisonOperator.values()) {
            assertThat(test("s " + operator.symbol() + " 5"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("n " + operator.symbol() + " '5'"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("flag " + operator.symbol() + " 1"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("obj_id " + operator.symbol() + " 1"))
                    .as(operator.name())
                    .isFalse();
        }
    }

    @Test
    void falseForMissingFieldsWithEveryOperator() {
        for (ComparisonOperator operator : ComparisonOperator.values()) {
            assertThat(test("missing " + operator.symbol() + " 5"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("5 " + operator.symbol() + " missing"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("missing " + operator.symbol() + " null"))
                    .as(operator.name())
                    .isFalse();
            assertThat(test("n.x " + operator.symbol() + " 5"))
                    .as(operator.name())
                    .isFalse();
        }
    }

    @Test
    void notIsPlainNegation() {
        assertThat(test("not (missing = 1)")).isTrue();
        assertThat(test("not missing != 1")).isTrue();
        assertThat(test("not n = 5")).isFalse();
        assertThat(test("not not n = 5")).isTrue();
    }

    @Test
    void andOrCombine() {
        assertThat(test("n = 5 and s = 'abc'")).isTrue();
        assertThat(test("n = 5 and s = 'x'")).isFalse();
        assertThat(test("n = 6 or s = 'abc'")).isTrue();
        assertThat(test("n = 6 or s = 'x'")).isFalse();
    }

    @Test
    void inUsesEquality() {
        assertThat(test("n in (1, 5.0)")).isTrue();
        assertThat(test("n in ('5', true)")).isFalse();
        assertThat(test("nothing in (1, null)")).isTrue();
        assertThat(test("missing in (null)")).isFalse();
        assertThat(test("obj_id in ('x', 'sales')")).isTrue();
    }

    @Test
    void matchesPrefixesAndSuffixesOfStringsOnly() {
        assertThat(test("startswith(s, 'ab') and startswith(s, '') and startswith(s, 'abc')"))
                .isTrue();
        assertThat(test("startswith(s, 'b') or startswith(s, 'abcd')")).isFalse();
        assertThat(test("endswith(s, 'bc') and endswith(obj_id, 'les')")).isTrue();
        assertThat(test("endswith(s, 'b')")).isFalse();
        assertThat(test("startswith(n, '5') or startswith(missing, '') or endswith(nothing, '')"))
                .isFalse();
    }

    @Test
    void existsIsTrueForPresentFieldsEvenIfNull() {
        assertThat(test("exists(nothing) and exists(stats.price.min) and exists(obj_id) and exists(sub)"))
                .isTrue();
        assertThat(test("exists(missing) or exists(stats.price.max) or exists(n.x) or exists(list.x)"))
                .isFalse();
    }

    @Test
    void walksNestedDocuments() {
        assertThat(test("stats.price.min > 5")).isTrue();
        assertThat(test("`odd name`.x = 'y'")).isTrue();
        assertThat(test("stats.price = 7")).isFalse();
        assertThat(test("s.length = 3")).isFalse();
    }

    @Test
    void objectIdIsTheIdNotAField() {
        assertThat(test("obj_id = 'sales'")).isTrue();
        assertThat(test("`obj_id` = 'sales'")).isTrue();
        assertThat(test("obj_id = 'shadowed'")).isFalse();
    }

    @Test
    void comparesOtherTypesForEqualityOnly() {
        ObjectId id = new ObjectId();
        BsonDocument value = new BsonDocument("a", new BsonArray(List.of(new BsonInt32(1))))
                .append("b", new BsonArray(List.of(new BsonInt32(1))))
                .append("c", new BsonArray(List.of(new BsonInt32(2))))
                .append("o1", new BsonObjectId(id))
                .append("o2", new BsonObjectId(id))
                .append("bin", new BsonBinary(new byte[] {1}))
                .append("d1", new BsonDocument("x", new BsonInt32(1)))
                .append("d2", new BsonDocument("x", new BsonInt32(1)));
        assertThat(test("a = b and a != c and o1 = o2 and d1 = d2 and bin = bin", value))
                .isTrue();
        assertThat(test("a < c or a <= b or o1 >= o2 or d1 > d2 or a = d1 or a != d1", value))
                .isFalse();
    }

    @Test
    void comparesFieldToFieldAndLiteralToLiteral() {
        assertThat(test("n < stats.price.min")).isTrue();
        assertThat(test("1 < 2 and 'a' = 'a'")).isTrue();
        assertThat(test("1 < obj_id")).isFalse();
    }

    @Test
    void readsTheValueOnlyWhenNeededAndAtMostOnce() {
        CountingTarget target = new CountingTarget("sales", VALUE);

        assertThat(Predicates.test(expr("obj_id = 'sales' and startswith(obj_id, 's') or exists(obj_id)"), target))
                .isTrue();
        assertThat(target.reads).isZero();

        assertThat(Predicates.test(expr("obj_id = 'x' and n = 5"), target)).isFalse();
        assertThat(target.reads).as("short-circuit skips the value").isZero();

        assertThat(Predicates.test(expr("n = 5 and s = 'abc' and stats.price.min = 7 and not missing = 1"), target))
                .isTrue();
        assertThat(target.reads).isEqualTo(1);
    }

    @Test
    void readsANullValueAsEmpty() {
        CountingTarget target = new CountingTarget("x", null);

        assertThat(Predicates.test(expr("not exists(a) and obj_id = 'x'"), target))
                .isTrue();
    }

    @Test
    void knowsWhichPredicatesNeedTheValue() {
        assertThat(Predicates.needsValue(
                        expr("obj_id = 'a' or startswith(obj_id, 'b') or obj_id in ('c') or exists(obj_id)")))
                .isFalse();
        assertThat(Predicates.needsValue(expr("not 1 = 1"))).isFalse();
        assertThat(Predicates.needsValue(expr("obj_id = 'a' and x = 1"))).isTrue();
        assertThat(Predicates.needsValue(expr("obj_id.x = 1"))).isTrue();
        assertThat(Predicates.needsValue(expr("exists(x)"))).isTrue();
        assertThat(Predicates.needsValue(expr("endswith(x, 'a')"))).isTrue();
        assertThat(Predicates.needsValue(expr("1 in (1) or not x in (1)"))).isTrue();
    }

    @Test
    void comparesAllowsExecutorToReuseTheRules() {
        assertThat(Predicates.compare(new BsonInt32(5), ComparisonOperator.EQ, new BsonDouble(5.0)))
                .isTrue();
        assertThat(Predicates.compare(null, ComparisonOperator.NE, new BsonInt32(5)))
                .isFalse();
        assertThat(Predicates.compare(BsonNull.VALUE, ComparisonOperator.EQ, BsonNull.VALUE))
                .isTrue();
        assertThat(Predicates.compare(BsonBoolean.TRUE, ComparisonOperator.NE, new BsonString("true")))
                .isFalse();
    }

    @Test
    void literalsKeepToTheTypesTheGrammarCanWrite() {
        assertThat(new Literal(new BsonInt64(5)).value()).isEqualTo(new BsonInt32(5));
        assertThat(new Literal(new BsonInt64(1L << 40)).value()).isEqualTo(new BsonInt64(1L << 40));
        assertThatThrownBy(() -> new Literal(new BsonDouble(Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a double literal is finite: BsonDouble{value=NaN}");
        assertThatThrownBy(() -> new Literal(new BsonArray()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no literal syntax for ARRAY");
    }

    @Test
    void nodesCheckTheirShape() {
        assertThatThrownBy(() -> new And(List.of(expr("a = 1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'and' has at least two children");
        assertThatThrownBy(() -> new Or(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'or' has at least two children");
        assertThatThrownBy(() -> new FieldRef(List.of("a", "")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a field name is not empty");
        assertThatThrownBy(() -> new Query(List.of(), ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a query has at least one step");
        assertThatThrownBy(() -> new Step.Wildcard(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("position is 1-based: 0");
    }

    @Test
    void rendersQuerySyntax() {
        assertThat(new Comparison(FieldRef.of("and", "odd name", "x"), ComparisonOperator.LE, Literal.of("it's\n"))
                        .toString())
                .isEqualTo("`and`.`odd name`.x <= 'it\\'s\\n'");
        assertThat(Literal.of("\u0000").toString()).isEqualTo("'\\u0000'");
        assertThat(new Literal(new BsonDouble(1e21)).toString()).isEqualTo("1.0E21");
        assertThat(expr("NOT A = TRUE").toString()).isEqualTo("not A = true");
    }

    private static boolean test(String predicate) {
        return test(predicate, VALUE);
    }

    private static boolean test(String predicate, BsonDocument value) {
        return Predicates.test(expr(predicate), new CountingTarget("sales", value));
    }

    private static Expr expr(String predicate) {
        return ((Step.Filter) QueryParser.parse("/[" + predicate + "]").steps().get(0)).expr();
    }

    private static final class CountingTarget implements EvaluationTarget {
        private final String id;
        private final BsonDocument value;
        private int reads;

        CountingTarget(String id, BsonDocument value) {
            this.id = id;
            this.value = value;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public BsonDocument value() {
            reads++;
            return value;
        }
    }
}
