package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Test;

class TestHiveFilter {
  private static final List<FieldSchema> KEYS = List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null));

  private static PartitionFilterPlanner plan(String filter) throws MetaException {
    return PartitionFilterPlanner.plan(HiveFilter.parse(filter), KEYS);
  }

  @Test
  void parsesHivesForms() throws Exception {
    assertThat(HiveFilter.parse("ds = '2025-01-01'")).isEqualTo(new HiveFilter.Compare("ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2025-01-01", false)));
    assertThat(HiveFilter.parse("5 < hr")).isEqualTo(new HiveFilter.Compare("hr", HiveFilter.Operator.GREATER, new HiveFilter.Literal("5", true)));
    assertThat(HiveFilter.parse("hr <> -3")).isEqualTo(new HiveFilter.Compare("hr", HiveFilter.Operator.NOT_EQUALS, new HiveFilter.Literal("-3", true)));
    assertThat(HiveFilter.parse("a = 1 OR b = 2 and c = 3")).isEqualTo(new HiveFilter.Or(
        new HiveFilter.Compare("a", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("1", true)),
        new HiveFilter.And(new HiveFilter.Compare("b", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2", true)),
            new HiveFilter.Compare("c", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("3", true)))));
    assertThat(HiveFilter.parse("hr NOT BETWEEN 1 AND 2")).isEqualTo(new HiveFilter.Between("hr", new HiveFilter.Literal("1", true), new HiveFilter.Literal("2", true), true));
    assertThat(HiveFilter.parse("ds in ('a', \"b\")")).isEqualTo(new HiveFilter.In("ds", List.of(new HiveFilter.Literal("a", false), new HiveFilter.Literal("b", false)), false));
    assertThat(HiveFilter.parse("ds = date '2025-01-01'")).isEqualTo(new HiveFilter.Compare("ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2025-01-01", false)));
    assertThat(HiveFilter.parse("`odd key` like 'x.*'")).isEqualTo(new HiveFilter.Compare("odd key", HiveFilter.Operator.LIKE, new HiveFilter.Literal("x.*", false)));
    assertThat(HiveFilter.parse("ds = 'it\\'s'")).isEqualTo(new HiveFilter.Compare("ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("it's", false)));
    assertThat(HiveFilter.parse("  ")).isEqualTo(new HiveFilter.All());
  }

  @Test
  void errorsNameThePosition() {
    assertThatThrownBy(() -> HiveFilter.parse("ds = = '1'")).isInstanceOf(MetaException.class)
        .hasMessage("Error parsing partition filter at position 6: expected a string or integer value but found '='");
    assertThatThrownBy(() -> HiveFilter.parse("ds == '1'")).hasMessage("Error parsing partition filter at position 4: expected one of =, !=, <>, <, <=, >, >=, like but found unknown operator '=='");
    assertThatThrownBy(() -> HiveFilter.parse("ds = '1")).hasMessage("Error parsing partition filter at position 8: expected ' to close the string at position 6 but found end of filter");
    assertThatThrownBy(() -> HiveFilter.parse("(ds = '1'")).hasMessage("Error parsing partition filter at position 10: expected ')' but found end of filter");
    assertThatThrownBy(() -> HiveFilter.parse("ds = '1' hr")).hasMessage("Error parsing partition filter at position 10: expected 'and', 'or' or end of filter but found 'hr'");
    assertThatThrownBy(() -> HiveFilter.parse("hr = 99999999999999999999")).hasMessageContaining("expected an integer between");
    assertThatThrownBy(() -> HiveFilter.parse("ds ; 1")).hasMessage("Error parsing partition filter at position 4: expected a partition key, value, operator or parenthesis but found ';'");
    assertThatThrownBy(() -> HiveFilter.parse("and = 1")).hasMessage("Error parsing partition filter at position 1: expected a partition key but found 'and'");
    assertThatThrownBy(() -> HiveFilter.parse("hr not = 1")).hasMessage("Error parsing partition filter at position 8: expected 'between' or 'in' after 'not' but found '='");
    assertThatThrownBy(() -> HiveFilter.parse("(".repeat(200) + "a=1" + ")".repeat(200))).hasMessageContaining("levels of nesting");
    assertThatThrownBy(() -> plan("nokey = 1")).hasMessageContaining("'nokey' is not a partition key of the table (its keys are [ds, hr])");
    assertThatThrownBy(() -> plan("ds like '('")).hasMessageContaining("invalid like pattern");
  }

  @Test
  void pushesDownPerLevel() throws Exception {
    assertThat(plan("ds = '2025-01-01' and hr > 5").levelPredicates())
        .containsExactly("obj_type = 'partition' and (obj_id = 'ds=2025-01-01')", "obj_type = 'partition' and (part_num > 5)");
    assertThat(plan("ds >= 'a' or ds = 'b/c'").levelPredicates())
        .containsExactly("obj_type = 'partition' and ((part_val >= 'a') or (obj_id = 'ds=b%2Fc'))", "obj_type = 'partition'");
    // An or across levels, not, like, not in: nothing pushed where it would not be implied.
    assertThat(plan("ds = 'a' or hr = 1").levelPredicates()).containsExactly("obj_type = 'partition'", "obj_type = 'partition'");
    assertThat(plan("not ds = 'a'").levelPredicates()).containsExactly("obj_type = 'partition'", "obj_type = 'partition'");
    assertThat(plan("ds like 'a.*' and hr in (1, 2)").levelPredicates()).containsExactly("obj_type = 'partition'", "obj_type = 'partition' and (part_num in (1, 2))");
    assertThat(plan("hr = 'x'").levelPredicates()).containsExactly("obj_type = 'partition'", "obj_type = 'partition' and (obj_id = 'hr=x')");
    assertThat(plan("hr between 1 and 3").levelPredicates()).containsExactly("obj_type = 'partition'", "obj_type = 'partition' and ((part_num >= 1) and (part_num <= 3))");
  }

  @Test
  void evaluatesWithHivesThreeValuedLogic() throws Exception {
    assertThat(plan("hr > 9").test(List.of("x", "10"))).isTrue();
    assertThat(plan("ds > '9'").test(List.of("10", "0"))).isFalse(); // strings: '10' < '9'
    assertThat(plan("hr > 9").test(List.of("x", "__HIVE_DEFAULT_PARTITION__"))).isFalse();
    assertThat(plan("not hr > 9").test(List.of("x", "__HIVE_DEFAULT_PARTITION__"))).isFalse();
    assertThat(plan("hr > 9 or ds = 'x'").test(List.of("x", "__HIVE_DEFAULT_PARTITION__"))).isTrue();
    assertThat(plan("hr not in (1, 2)").test(List.of("x", "__HIVE_DEFAULT_PARTITION__"))).isFalse();
    assertThat(plan("hr not in (1, 2)").test(List.of("x", "3"))).isTrue();
    assertThat(plan("ds like 'a.c'").test(List.of("abc", "1"))).isTrue();
    assertThat(plan("ds like 'a'").test(List.of("abc", "1"))).isFalse();
    assertThat(plan("ds < '\uFFFF'").test(List.of("\uD83D\uDE00", "1"))).isFalse(); // code point order, as the tree orders
  }

  @Test
  void partitionNamesEscapeAsHiveDoes() throws Exception {
    assertThat(HivePartitionNames.name(List.of("DS", "k"), List.of("2025/01:02 x%", ""))).isEqualTo("ds=2025%2F01%3A02 x%25/k=__HIVE_DEFAULT_PARTITION__");
    assertThat(HivePartitionNames.escape("a=b#c?d\\e'f\"g*h[i]j^k{l\u0001m\u007Fn")).isEqualTo("a%3Db%23c%3Fd%5Ce%27f%22g%2Ah%5Bi%5Dj%5Ek%7Bl%01m%7Fn");
    assertThat(HivePartitionNames.escape("é ü}")).isEqualTo("é ü}");
    assertThat(HivePartitionNames.unescape("a%2Fb%zz%4")).isEqualTo("a/b%zz%4");
    assertThat(HivePartitionNames.spec("ds=a%2Fb/hr=1")).containsExactly(java.util.Map.entry("ds", "a/b"), java.util.Map.entry("hr", "1"));
    assertThat(HivePartitionNames.values(List.of("ds", "hr"), "hr=1/ds=x")).containsExactly("x", "1");
    assertThatThrownBy(() -> HivePartitionNames.values(List.of("ds", "hr"), "ds=x")).isInstanceOf(MetaException.class).hasMessageContaining("no value for partition key hr");
    assertThatThrownBy(() -> HivePartitionNames.spec("ds")).isInstanceOf(MetaException.class).hasMessageContaining("is not key=value");
    for (String value : List.of("a/b", "%41", "x=y", "plain", "\u0001\u007F", "é")) {
      assertThat(HivePartitionNames.unescape(HivePartitionNames.escape(value))).isEqualTo(value);
    }
  }
}
