package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Test;

class TestHiveFilter {
    private static final List<FieldSchema> KEYS =
            List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null));

    private static PartitionFilterPlanner plan(String filter) throws MetaException {
        return PartitionFilterPlanner.plan(HiveFilter.parse(filter), KEYS);
    }

    @Test
    void parsesHivesForms() throws Exception {
        assertThat(HiveFilter.parse("ds = '2025-01-01'"))
                .isEqualTo(new HiveFilter.Compare(
                        "ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2025-01-01", false)));
        assertThat(HiveFilter.parse("5 < hr"))
                .isEqualTo(
                        new HiveFilter.Compare("hr", HiveFilter.Operator.GREATER, new HiveFilter.Literal("5", true)));
        assertThat(HiveFilter.parse("hr <> -3"))
                .isEqualTo(new HiveFilter.Compare(
                        "hr", HiveFilter.Operator.NOT_EQUALS, new HiveFilter.Literal("-3", true)));
        assertThat(HiveFilter.parse("a = 1 OR b = 2 and c = 3"))
                .isEqualTo(new HiveFilter.Or(
                        new HiveFilter.Compare("a", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("1", true)),
                        new HiveFilter.And(
                                new HiveFilter.Compare(
                                        "b", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2", true)),
                                new HiveFilter.Compare(
                                        "c", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("3", true)))));
        assertThat(HiveFilter.parse("hr NOT BETWEEN 1 AND 2"))
                .isEqualTo(new HiveFilter.Between(
                        "hr", new HiveFilter.Literal("1", true), new HiveFilter.Literal("2", true), true));
        assertThat(HiveFilter.parse("(ds) in ('a', \"b\")"))
                .isEqualTo(new HiveFilter.In(
                        "ds", List.of(new HiveFilter.Literal("a", false), new HiveFilter.Literal("b", false)), false));
        assertThat(HiveFilter.parse("ds = date '2025-01-01'"))
                .isEqualTo(new HiveFilter.Compare(
                        "ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2025-01-01", false)));
        assertThat(HiveFilter.parse("`odd key` like 'x.*'"))
                .isEqualTo(new HiveFilter.Compare(
                        "odd key", HiveFilter.Operator.LIKE, new HiveFilter.Literal("x.*", false)));
        // Hive keeps a string's backslashes (like reads them as its escape character).
        assertThat(HiveFilter.parse("ds = 'it\\'s'"))
                .isEqualTo(new HiveFilter.Compare(
                        "ds", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("it\\'s", false)));
        assertThat(HiveFilter.parse("  ")).isEqualTo(new HiveFilter.All());
    }

    @Test
    void errorsNameThePosition() throws Exception {
        assertThatThrownBy(() -> HiveFilter.parse("ds = = '1'"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 6: expected a string or integer value but found '='");
        assertThatThrownBy(() -> HiveFilter.parse("ds <=> '1'"))
                .hasMessage(
                        "Error parsing partition filter at position 4: expected one of =, ==, !=, <>, <, <=, >, >=, like but found unsupported operator '<=>'");
        assertThatThrownBy(() -> HiveFilter.parse("ds = '1"))
                .hasMessage(
                        "Error parsing partition filter at position 8: expected ' to close the string at position 6 but found end of filter");
        assertThatThrownBy(() -> HiveFilter.parse("(ds = '1'"))
                .hasMessage("Error parsing partition filter at position 10: expected ')' but found end of filter");
        assertThatThrownBy(() -> HiveFilter.parse("ds = '1' hr"))
                .hasMessage(
                        "Error parsing partition filter at position 10: expected 'and', 'or' or end of filter but found 'hr'");
        assertThatThrownBy(() -> HiveFilter.parse("hr = 99999999999999999999"))
                .hasMessageContaining("expected an integer between");
        assertThatThrownBy(() -> HiveFilter.parse("ds ; 1"))
                .hasMessage(
                        "Error parsing partition filter at position 4: expected a partition key, value, operator or parenthesis but found ';'");
        assertThatThrownBy(() -> HiveFilter.parse("and = 1"))
                .hasMessage("Error parsing partition filter at position 1: expected a partition key but found 'and'");
        assertThatThrownBy(() -> HiveFilter.parse("hr not = 1"))
                .hasMessage(
                        "Error parsing partition filter at position 8: expected 'between' after 'not' (for in, write (hr) not in (...)) but found '='");
        // Parentheses around one condition or one chain are no nesting (TestHiveFilterLimits has the limit).
        assertThat(HiveFilter.parse("(".repeat(200) + "a=1" + ")".repeat(200)))
                .isEqualTo(new HiveFilter.Compare("a", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("1", true)));
        assertThatThrownBy(() -> plan("nokey = 1"))
                .hasMessageContaining("'nokey' is not a partition key of the table (its keys are [ds, hr])");
    }

    @Test
    void pushesDownPerLevel() throws Exception {
        assertThat(plan("ds = '2025-01-01' and hr > 5").levelPredicates())
                .containsExactly(
                        "obj_type = 'partition' and (obj_id = 'ds=2025-01-01')",
                        "obj_type = 'partition' and (part_num > 5)");
        assertThat(plan("ds >= 'a' or ds = 'b/c'").levelPredicates())
                .containsExactly(
                        "obj_type = 'partition' and ((part_val >= 'a') or (obj_id = 'ds=b%2Fc'))",
                        "obj_type = 'partition'");
        // An or across levels, not, like, not in: nothing pushed where it would not be implied.
        assertThat(plan("ds = 'a' or hr = 1").levelPredicates())
                .containsExactly("obj_type = 'partition'", "obj_type = 'partition'");
        assertThat(plan("ds like '%a' and (hr) not in (1, 2)").levelPredicates())
                .containsExactly("obj_type = 'partition'", "obj_type = 'partition'");
        assertThat(plan("ds like 'a%' and (hr) in (1, 2)").levelPredicates())
                .containsExactly(
                        "obj_type = 'partition' and (part_val >= 'a')",
                        "obj_type = 'partition' and (part_num in (1, 2))");
        assertThat(plan("ds like 'a\\_b'").levelPredicates())
                .containsExactly("obj_type = 'partition' and (obj_id = 'ds=a_b')", "obj_type = 'partition'");
        assertThat(plan("hr = '__HIVE_DEFAULT_PARTITION__'").levelPredicates())
                .containsExactly(
                        "obj_type = 'partition'",
                        "obj_type = 'partition' and (obj_id = 'hr=__HIVE_DEFAULT_PARTITION__')");
        assertThat(plan("hr between 1 and 3").levelPredicates())
                .containsExactly(
                        "obj_type = 'partition'", "obj_type = 'partition' and ((part_num >= 1) and (part_num <= 3))");
    }

    @Test
    void evaluatesWithHivesThreeValuedLogic() throws Exception {
        assertThat(plan("hr > 9").test(List.of("x", "10"))).isTrue();
        assertThat(plan("ds > '9'").test(List.of("10", "0"))).isFalse(); // strings: '10' < '9'
        assertThat(plan("hr > 9").test(List.of("x", "__HIVE_DEFAULT_PARTITION__")))
                .isFalse();
        assertThat(plan("hr > 9 or ds = 'x'").test(List.of("x", "__HIVE_DEFAULT_PARTITION__")))
                .isTrue();
        assertThat(plan("(hr) not in (1, 2)").test(List.of("x", "__HIVE_DEFAULT_PARTITION__")))
                .isFalse();
        assertThat(plan("(hr) not in (1, 2)").test(List.of("x", "3"))).isTrue();
        assertThat(plan("ds like 'a_c'").test(List.of("abc", "1"))).isTrue();
        assertThat(plan("ds like 'a'").test(List.of("abc", "1"))).isFalse();
        assertThat(plan("ds < '\uFFFF'").test(List.of("\uD83D\uDE00", "1")))
                .isFalse(); // code point order, as the tree orders
    }

    private static final List<FieldSchema> TYPED = List.of(
            new FieldSchema("region", "string", null),
            new FieldSchema("yr", "int", null),
            new FieldSchema("day", "date", null),
            new FieldSchema("code", "varchar(8)", null),
            new FieldSchema("ts", "timestamp", null));

    private static boolean typed(String filter, String... values) throws MetaException {
        return PartitionFilterPlanner.plan(HiveFilter.parse(filter), TYPED).test(List.of(values));
    }

    @Test
    void likeIsSqlLikeNotARegularExpression() throws Exception {
        // The reported wrong answer: like with % together with <> returned nothing.
        assertThat(typed("region like 'us%' and region <> 'us'", "us_east", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region like 'us%' and region <> 'us'", "us", "1", "2024-01-01", "c", "t"))
                .isFalse();
        assertThat(typed("region like 'us_east'", "usXeast", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region like 'us\\_east'", "usXeast", "1", "2024-01-01", "c", "t"))
                .isFalse();
        assertThat(typed("region like 'us\\_east'", "us_east", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region like '__HIVE%'", "__HIVE_DEFAULT_PARTITION__", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region like 'u.*'", "us", "1", "2024-01-01", "c", "t"))
                .isFalse();
        assertThat(typed("code like '%b_'", "x", "1", "2024-01-01", "abc", "t")).isTrue();
    }

    @Test
    void inWantsItsKeyInParentheses() throws Exception {
        assertThat(HiveFilter.parse("(yr) NOT IN (9, -10)"))
                .isEqualTo(new HiveFilter.In(
                        "yr", List.of(new HiveFilter.Literal("9", true), new HiveFilter.Literal("-10", true)), true));
        assertThat(typed("(region) in ('eu', 'us')", "us", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("(yr) not in (1, 2)", "us", "1", "2024-01-01", "c", "t"))
                .isFalse();
        assertThatThrownBy(() -> HiveFilter.parse("region in ('eu')"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 8: expected an operator (Hive's grammar wants the key of in in parentheses: (region) in (...)) but found 'in'");
        assertThatThrownBy(() -> HiveFilter.parse("yr not in (1)"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 8: expected 'between' after 'not' (for in, write (yr) not in (...)) but found 'in'");
    }

    @Test
    void aKeyComparesOnlyWithValuesOfItsType() throws Exception {
        String prefix =
                "Filtering is supported only on partition keys of type string, integral keys with integers and date keys with dates: ";
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("yr <= '2024'"), TYPED))
                .isInstanceOf(MetaException.class)
                .hasMessage(prefix + "yr <= '2024': it compares integral key yr with a string");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("yr like '1%'"), TYPED))
                .hasMessage(prefix + "yr like '1%': it compares integral key yr with a string");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("yr like 1"), TYPED))
                .hasMessage(prefix + "yr like 1: like does not apply to integral key yr");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("region = 10"), TYPED))
                .hasMessage(prefix + "region = 10: it compares string key region with an integer");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("(region) in ('eu', 10)"), TYPED))
                .hasMessage(prefix + "region = 10: it compares string key region with an integer");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("day > 'soon'"), TYPED))
                .hasMessage(prefix + "day > 'soon': it compares date key day with no date");
        assertThatThrownBy(() -> PartitionFilterPlanner.plan(HiveFilter.parse("ts = '2024-01-01 00:00:00'"), TYPED))
                .hasMessage(prefix + "ts = '2024-01-01 00:00:00': key ts is of type timestamp");
        // The default partition's name goes with every key type, as a string.
        assertThat(typed(
                        "yr = '__HIVE_DEFAULT_PARTITION__'",
                        "us",
                        "__HIVE_DEFAULT_PARTITION__",
                        "2024-01-01",
                        "c",
                        "t"))
                .isTrue();
        assertThat(typed("day <> '__HIVE_DEFAULT_PARTITION__'", "us", "1", "2024-01-01", "c", "t"))
                .isTrue();
        // Integral keys: numeric order, and = wants the value as the integer writes (Hive adds the partition name
        // yr=9).
        assertThat(typed("yr > 9", "us", "10", "2024-01-01", "c", "t")).isTrue();
        assertThat(typed("yr = 9", "us", "09", "2024-01-01", "c", "t")).isFalse();
        assertThat(typed("yr between 9 and 9", "us", "09", "2024-01-01", "c", "t"))
                .isTrue();
        // Date keys compare as dates; a value that is no date is unknown.
        assertThat(typed("day < '2024-02-01'", "us", "1", "2024-01-31", "c", "t"))
                .isTrue();
        assertThat(typed(
                        "day >= DATE '2024-02-01' or day < '2024-02-01'",
                        "us",
                        "1",
                        "__HIVE_DEFAULT_PARTITION__",
                        "c",
                        "t"))
                .isFalse();
        // The empty string is a string like any other.
        assertThat(typed("(region) not in ('')", "us", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region = ''", "us", "1", "2024-01-01", "c", "t")).isFalse();
    }

    @Test
    void datesTimestampsAndDoubleEquals() throws Exception {
        assertThat(HiveFilter.parse("dt > 2023-12-31"))
                .isEqualTo(new HiveFilter.Compare(
                        "dt", HiveFilter.Operator.GREATER, new HiveFilter.Literal("2023-12-31", false)));
        assertThat(HiveFilter.parse("t = 2024-01-01 10:00:00"))
                .isEqualTo(new HiveFilter.Compare(
                        "t", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2024-01-01 10:00:00", false)));
        assertThat(HiveFilter.parse("t = timestamp '2024-01-01 10:00:00.5'"))
                .isEqualTo(new HiveFilter.Compare(
                        "t", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("2024-01-01 10:00:00.5", false)));
        assertThat(HiveFilter.parse("yr == 9"))
                .isEqualTo(new HiveFilter.Compare("yr", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("9", true)));
        assertThat(HiveFilter.parse("yr = - 9"))
                .isEqualTo(
                        new HiveFilter.Compare("yr", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("-9", true)));
        assertThat(HiveFilter.parse("dt = 'a' \"b\""))
                .isEqualTo(new HiveFilter.Compare(
                        "dt", HiveFilter.Operator.EQUALS, new HiveFilter.Literal("'a'\"b\"", false)));
        assertThatThrownBy(() -> HiveFilter.parse("dt = DATE '2024-13-01'"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 6: expected a valid date yyyy-mm-dd but found '2024-13-01'");
        assertThatThrownBy(() -> HiveFilter.parse("dt = 2024-02-30"))
                .hasMessage(
                        "Error parsing partition filter at position 6: expected a valid date yyyy-mm-dd but found '2024-02-30'");
    }

    @Test
    void refusesWhatHivesGrammarDoesNotHave() {
        assertThatThrownBy(() -> HiveFilter.parse("'x' like region"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 5: expected a comparison operator (the value goes on the right of like: key like 'pattern') but found 'like'");
        assertThatThrownBy(() -> HiveFilter.parse("not (region = 'x')"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error parsing partition filter at position 1: expected a partition key but found 'not'");
        assertThatThrownBy(() -> HiveFilter.parse("(struct(a, b)) in ((struct(1, 2)), (struct(3, 4)))"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 2: expected a condition (multi-column in is not supported) but found 'struct'");
        assertThatThrownBy(() -> HiveFilter.parse("a.b = 1"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Error parsing partition filter at position 2: expected a partition key, value, operator or parenthesis but found '.'");
    }

    @Test
    void notEqualsIsExactWhereHivesPartitionNameConditionIsNot() throws Exception {
        // Hive 4.0.1 adds PART_NAME not like 'region=us_east/%', unescaped, and so also drops usXeast.
        assertThat(typed("region <> 'us_east'", "usXeast", "1", "2024-01-01", "c", "t"))
                .isTrue();
        assertThat(typed("region != 'us_east'", "us_east", "1", "2024-01-01", "c", "t"))
                .isFalse();
    }

    @Test
    void partitionNamesEscapeAsHiveDoes() throws Exception {
        assertThat(HivePartitionNames.name(List.of("DS", "k"), List.of("2025/01:02 x%", "")))
                .isEqualTo("ds=2025%2F01%3A02 x%25/k=__HIVE_DEFAULT_PARTITION__");
        assertThat(HivePartitionNames.escape("a=b#c?d\\e'f\"g*h[i]j^k{l\u0001m\u007Fn"))
                .isEqualTo("a%3Db%23c%3Fd%5Ce%27f%22g%2Ah%5Bi%5Dj%5Ek%7Bl%01m%7Fn");
        assertThat(HivePartitionNames.escape("é ü}")).isEqualTo("é ü}");
        assertThat(HivePartitionNames.unescape("a%2Fb%zz%4")).isEqualTo("a/b%zz%4");
        assertThat(HivePartitionNames.spec("ds=a%2Fb/hr=1"))
                .containsExactly(java.util.Map.entry("ds", "a/b"), java.util.Map.entry("hr", "1"));
        assertThat(HivePartitionNames.values(List.of("ds", "hr"), "hr=1/ds=x")).containsExactly("x", "1");
        assertThatThrownBy(() -> HivePartitionNames.values(List.of("ds", "hr"), "ds=x"))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("no value for partition key hr");
        assertThatThrownBy(() -> HivePartitionNames.spec("ds"))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("is not key=value");
        for (String value : List.of("a/b", "%41", "x=y", "plain", "\u0001\u007F", "é")) {
            assertThat(HivePartitionNames.unescape(HivePartitionNames.escape(value)))
                    .isEqualTo(value);
        }
    }
}
