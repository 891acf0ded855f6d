package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Test;

/** The one Hive filter evaluator, as partition and table filters both use it. */
class TestHiveFilterEvaluator {
  /** A row of text values; the keys in {@code integral} compare numerically. */
  private static HiveFilterEvaluator.Row row(Map<String, String> values, Set<String> integral) {
    return new HiveFilterEvaluator.Row() {
      @Override
      public String value(String key) {
        return values.get(key);
      }

      @Override
      public boolean integral(String key) {
        return integral.contains(key);
      }
    };
  }

  private static Boolean evaluate(String filter, HiveFilterEvaluator.Row row) throws MetaException {
    return HiveFilterEvaluator.evaluate(HiveFilter.parse(filter), row);
  }

  @Test
  void integralKeysCompareNumericallyOthersByCodePoint() throws MetaException {
    HiveFilterEvaluator.Row row = row(Map.of("n", "9", "s", "9"), Set.of("n"));
    assertThat(evaluate("n < 10", row)).isTrue();
    assertThat(evaluate("s < 10", row)).isFalse(); // "9" > "10" as text
    assertThat(evaluate("n = '09'", row)).isTrue();
    assertThat(evaluate("n between 1 and 9", row)).isTrue();
    assertThat(evaluate("n in (1, 9)", row)).isTrue();
  }

  @Test
  void aValueThatIsNoNumberIsUnknownAndSoIsItsNegation() throws MetaException {
    HiveFilterEvaluator.Row row = row(Map.of("n", "__HIVE_DEFAULT_PARTITION__"), Set.of("n"));
    assertThat(evaluate("n = 1", row)).isNull();
    assertThat(evaluate("not n = 1", row)).isNull();
    assertThat(evaluate("n = 1 or n <> 1", row)).isNull();
    assertThat(evaluate("n = 1 and n = 2", row)).isNull();
    assertThat(evaluate("n in (1, 2)", row)).isNull();
    assertThat(evaluate("n not between 1 and 2", row)).isNull();
    // Unknown or true is true; unknown and false is false; text comparisons stay known.
    assertThat(evaluate("n = 1 or n like '__HIVE.*'", row)).isTrue();
    assertThat(evaluate("n = 1 and n = 'x'", row)).isFalse();
    assertThat(HiveFilterEvaluator.matches(HiveFilter.parse("not n = 1"), row)).isFalse();
  }

  @Test
  void likeMatchesTheWholeValueAsARegularExpression() throws MetaException {
    HiveFilterEvaluator.Row row = row(Map.of("t", "ICEBERG"), Set.of());
    assertThat(evaluate("t like 'ICE.*'", row)).isTrue();
    assertThat(evaluate("t like 'ICE'", row)).isFalse();
    assertThat(evaluate("t like '.*BER.*'", row)).isTrue();
  }

  @Test
  void anAbsentValueIsOnlyUnequal() throws MetaException {
    HiveFilterEvaluator.Row row = row(Map.of(), Set.of());
    assertThat(evaluate("p <> 'x'", row)).isTrue();
    assertThat(evaluate("p = 'x'", row)).isFalse();
    assertThat(evaluate("p like '.*'", row)).isFalse();
    assertThat(evaluate("not p = 'x'", row)).isTrue();
  }

  @Test
  void theEmptyFilterMatchesEverything() throws MetaException {
    assertThat(HiveFilterEvaluator.matches(HiveFilter.parse(""), row(Map.of(), Set.of()))).isTrue();
  }
}
