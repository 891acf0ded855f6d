package io.treecat.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.And;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Or;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

class TestPathQueries {
    /** Sampled kinds: price.min always a number, region always a string, n both. */
    private static final Map<String, Set<PathQueries.Kind>> KINDS = Map.of(
            "stats\u0000price\u0000min", EnumSet.of(PathQueries.Kind.NUMBER),
            "region", EnumSet.of(PathQueries.Kind.STRING),
            "n", EnumSet.of(PathQueries.Kind.NUMBER, PathQueries.Kind.STRING),
            "odd name", EnumSet.of(PathQueries.Kind.STRING));

    private static Expression column(String... names) {
        return FieldReference.apply(CollectionConverters.asScala(List.of(names)).toSeq());
    }

    private static Expression number(long value) {
        return new LiteralValue<>(value, DataTypes.LongType);
    }

    private static Expression text(String value) {
        return new LiteralValue<>(UTF8String.fromString(value), DataTypes.StringType);
    }

    private static Predicate compare(String op, Expression left, Expression right) {
        return new Predicate(op, new Expression[] {left, right});
    }

    private static Optional<String> pushed(Predicate predicate) {
        return PathQueries.translate(predicate, KINDS, false);
    }

    @Test
    void thePredicateGoesIntoTheLastStep() {
        assertThat(PathQueries.withPredicate("/[obj_id='retail']/*", "a = 1")).isEqualTo("/[obj_id='retail']/[a = 1]");
        assertThat(PathQueries.withPredicate("/[obj_id='retail']/[b > 2]", "a = 1"))
                .isEqualTo("/[obj_id='retail']/[(b > 2) and a = 1]");
        // A '/' inside a string, a quoted name or brackets does not start a step.
        assertThat(PathQueries.withPredicate("/[obj_id='a/b']/[`x/y` = \"c/d\" or startswith(p, '/')]", "a = 1"))
                .isEqualTo("/[obj_id='a/b']/[(`x/y` = \"c/d\" or startswith(p, '/')) and a = 1]");
        assertThat(PathQueries.withPredicate("/[obj_id='it\\'s/here']/*", "a = 1"))
                .isEqualTo("/[obj_id='it\\'s/here']/[a = 1]");
        assertThat(PathQueries.withPredicate("/*", null)).isEqualTo("/*");
    }

    @Test
    void fieldNamesAreQuotedWhenTheyAreNotBare() {
        assertThat(PathQueries.field(List.of("stats", "price", "min"))).isEqualTo("stats.price.min");
        assertThat(PathQueries.field(List.of("odd name", "and", "a`b"))).isEqualTo("`odd name`.`and`.`a\\`b`");
    }

    @Test
    void comparisonsOnIdAndPureValueFieldsArePushed() {
        assertThat(pushed(compare(">", column("value", "stats", "price", "min"), number(5))))
                .contains("stats.price.min > 5");
        assertThat(pushed(compare("=", column("id"), text("f1.parquet")))).contains("obj_id = 'f1.parquet'");
        // A literal on the left flips the operator; quotes in strings are escaped.
        assertThat(pushed(compare("<", number(5), column("value", "stats", "price", "min"))))
                .contains("stats.price.min > 5");
        assertThat(pushed(compare("=", column("value", "region"), text("it's"))))
                .contains("region = 'it\\'s'");
        assertThat(pushed(compare("<>", column("value", "odd name"), text("x"))))
                .contains("`odd name` != 'x'");
        assertThat(pushed(new Predicate("IN", new Expression[] {column("id"), text("a"), text("b")})))
                .contains("obj_id in ('a', 'b')");
        assertThat(pushed(new Predicate("STARTS_WITH", new Expression[] {column("value", "region"), text("e")})))
                .contains("startswith(region, 'e')");
    }

    @Test
    void whatCouldDropARowSparkKeepsIsNotPushed() {
        // n held numbers and strings in the sample; unknown fields, other columns and types are not pushed.
        assertThat(pushed(compare("=", column("value", "n"), text("7")))).isEmpty();
        assertThat(pushed(compare("=", column("value", "nowhere"), number(1)))).isEmpty();
        assertThat(pushed(compare("=", column("value", "region"), number(1)))).isEmpty();
        assertThat(pushed(compare("=", column("path"), text("/a")))).isEmpty();
        assertThat(pushed(compare("=", column("id"), number(1)))).isEmpty();
        assertThat(pushed(compare(
                        ">",
                        column("value", "stats", "price", "min"),
                        new LiteralValue<>(Double.NaN, DataTypes.DoubleType))))
                .isEmpty();
    }

    @Test
    void andKeepsWhatItCanOrAndNotOnlyWhatIsExact() {
        Predicate good = compare(">", column("value", "stats", "price", "min"), number(5));
        Predicate bad = compare("=", column("value", "n"), text("7"));
        assertThat(pushed(new And(good, bad))).contains("stats.price.min > 5");
        assertThat(pushed(new Or(good, bad))).isEmpty();
        assertThat(pushed(new Not(new And(good, bad)))).isEmpty();
        assertThat(pushed(new Not(good))).contains("(not stats.price.min > 5)");
        assertThat(pushed(new Or(good, compare("=", column("id"), text("x")))))
                .contains("(stats.price.min > 5 or obj_id = 'x')");
    }

    @Test
    void theLastIdOfAPathUnescapes() {
        assertThat(PathQueryTable.lastId("/retail/sales/f1.parquet")).isEqualTo("f1.parquet");
        assertThat(PathQueryTable.lastId("/a/b\\/c")).isEqualTo("b/c");
        assertThat(PathQueryTable.lastId("/a/b\\\\")).isEqualTo("b\\");
    }
}
