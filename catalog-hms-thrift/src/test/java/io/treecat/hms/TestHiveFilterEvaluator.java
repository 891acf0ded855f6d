package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Test;

/** The one Hive filter evaluator, as partition and table filters both use it. */
class TestHiveFilterEvaluator {
    /** A row of text values; the keys in {@code integral} compare numerically, the others as strings. */
    private static HiveFilterEvaluator.Row row(Map<String, String> values, Set<String> integral) {
        return new HiveFilterEvaluator.Row() {
            @Override
            public String value(String key) {
                return values.get(key);
            }

            @Override
            public HiveFilterEvaluator.KeyType type(String key) {
                return integral.contains(key)
                        ? HiveFilterEvaluator.KeyType.INTEGRAL
                        : HiveFilterEvaluator.KeyType.STRING;
            }
        };
    }

    private static Boolean evaluate(String filter, HiveFilterEvaluator.Row row) throws MetaException {
        return new HiveFilterEvaluator(HiveFilter.parse(filter), LikePattern.Syntax.SQL).evaluate(row);
    }

    private static boolean matches(String filter, HiveFilterEvaluator.Row row, LikePattern.Syntax syntax)
            throws MetaException {
        return new HiveFilterEvaluator(HiveFilter.parse(filter), syntax).matches(row);
    }

    @Test
    void integralKeysCompareNumericallyOthersByCodePoint() throws MetaException {
        HiveFilterEvaluator.Row row = row(Map.of("n", "9", "s", "9"), Set.of("n"));
        assertThat(evaluate("n < 10", row)).isTrue();
        assertThat(evaluate("s < 10", row)).isFalse(); // "9" > "10" as text
        assertThat(evaluate("n = 9", row)).isTrue();
        assertThat(evaluate("n between 1 and 9", row)).isTrue();
        assertThat(evaluate("(n) in (1, 9)", row)).isTrue();
    }

    @Test
    void aValueThatIsNoNumberIsUnknownAndSoIsItsNegation() throws MetaException {
        HiveFilterEvaluator.Row row = row(Map.of("n", "__HIVE_DEFAULT_PARTITION__"), Set.of("n"));
        assertThat(evaluate("n = 1", row)).isNull();
        assertThat(evaluate("n = 1 or n <> 1", row)).isNull();
        assertThat(evaluate("n = 1 and n = 2", row)).isNull();
        assertThat(evaluate("(n) in (1, 2)", row)).isNull();
        assertThat(evaluate("(n) not in (1, 2)", row)).isNull();
        assertThat(evaluate("n not between 1 and 2", row)).isNull();
        // Unknown or true is true; unknown and false is false; the default partition's name compares as text.
        assertThat(evaluate("n = 1 or n like '\\_\\_HIVE%'", row)).isTrue();
        assertThat(evaluate("n = 1 and n = '__HIVE_DEFAULT_PARTITION__'", row)).isNull();
        assertThat(evaluate("n = 1 and n <> '__HIVE_DEFAULT_PARTITION__'", row)).isFalse();
        assertThat(new HiveFilterEvaluator(HiveFilter.parse("n <> 1"), LikePattern.Syntax.SQL).matches(row))
                .isFalse();
    }

    @Test
    void likeMatchesTheWholeValueInTheCallersSpelling() throws MetaException {
        HiveFilterEvaluator.Row row = row(Map.of("t", "ICEBERG"), Set.of());
        // Partition filters: SQL's LIKE.
        assertThat(matches("t like 'ICE%'", row, LikePattern.Syntax.SQL)).isTrue();
        assertThat(matches("t like 'ICE.*'", row, LikePattern.Syntax.SQL)).isFalse();
        assertThat(matches("t like '_CEBER_'", row, LikePattern.Syntax.SQL)).isTrue();
        // Table filters: Hive's JDO String.matches, .* and .
        assertThat(matches("t like 'ICE.*'", row, LikePattern.Syntax.JDOQL_MATCHES))
                .isTrue();
        assertThat(matches("t like 'ICE'", row, LikePattern.Syntax.JDOQL_MATCHES))
                .isFalse();
        assertThat(matches("t like '.*BER.*'", row, LikePattern.Syntax.JDOQL_MATCHES))
                .isTrue();
    }

    @Test
    void anAbsentValueIsOnlyUnequal() throws MetaException {
        HiveFilterEvaluator.Row row = row(Map.of(), Set.of());
        assertThat(evaluate("p <> 'x'", row)).isTrue();
        assertThat(evaluate("p = 'x'", row)).isFalse();
        assertThat(evaluate("p like '%'", row)).isFalse();
        assertThat(evaluate("(p) not in ('x')", row)).isTrue();
    }

    @Test
    void theEmptyFilterMatchesEverything() throws MetaException {
        assertThat(matches("", row(Map.of(), Set.of()), LikePattern.Syntax.SQL)).isTrue();
    }
}
