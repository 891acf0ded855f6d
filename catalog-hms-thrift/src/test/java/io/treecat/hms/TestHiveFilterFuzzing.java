package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.query.parser.QueryParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of Hive's partition filter as {@code get_partitions_by_filter} reads it
 * (docs/robustness.md): parsed ({@link HiveFilter}), bound to a table's partition keys ({@link
 * PartitionFilterPlanner}), pushed down as one path-query predicate per level, and evaluated on
 * partitions. A filter Hive would refuse is a {@link MetaException}; one that binds pushes
 * predicates the path query parser accepts, and evaluates on any partition without failing. Never
 * another exception, a stack overflow, or a hang (a backtracking {@code like} would be one).
 */
class TestHiveFilterFuzzing {
    /** The table's partition keys: one of each type the filter compares, and one it cannot. */
    private static final List<FieldSchema> KEYS = List.of(
            new FieldSchema("ds", "string", null),
            new FieldSchema("hr", "int", null),
            new FieldSchema("d", "date", null),
            new FieldSchema("v", "varchar(10)", null),
            new FieldSchema("f", "double", null));

    /** Partitions to evaluate on: ordinary values, Hive's default partition, and values that parse as nothing. */
    private static final List<List<String>> PARTITIONS = List.of(
            List.of("2025-01-01", "7", "2025-01-01", "a", "1.5"),
            List.of("__HIVE_DEFAULT_PARTITION__", "__HIVE_DEFAULT_PARTITION__", "__HIVE_DEFAULT_PARTITION__", "", "x"),
            List.of("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "-9223372036854775808", "0000-02-29", "%_\\", "NaN"),
            List.of("\u00e9\ud83d\ude00'\"", "99999999999999999999", "not a date", "x=y/z", "-0"));

    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "ds",
        "hr",
        "d",
        "v",
        "f",
        " and ",
        " or ",
        " not ",
        " like ",
        " between ",
        " in (",
        "(",
        ")",
        "'",
        "\"",
        "=",
        "<>",
        "!=",
        "<=>",
        ">=",
        "<",
        "date '",
        "%",
        "_",
        "\\",
        "__HIVE_DEFAULT_PARTITION__",
        "2025-01-01",
        "-1",
        "9223372036854775808"
    })
    void hiveFilterBindsPushesAndEvaluatesOrIsAMetaException(byte[] input) {
        String filter = new String(input, StandardCharsets.UTF_8);
        PartitionFilterPlanner plan;
        try {
            plan = PartitionFilterPlanner.plan(HiveFilter.parse(filter), KEYS);
        } catch (MetaException e) {
            assertThat(e.getMessage())
                    .as(filter)
                    .matches("(?s)(Error parsing partition filter|Filtering is supported only on partition keys).*");
            return;
        }
        for (String predicate : plan.levelPredicates()) {
            QueryParser.parse("/[" + predicate + "]");
        }
        for (List<String> partition : PARTITIONS) {
            plan.test(partition);
        }
    }
}
