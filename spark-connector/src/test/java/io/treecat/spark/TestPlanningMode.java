package io.treecat.spark;

import static org.apache.iceberg.expressions.Expressions.alwaysTrue;
import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.equal;
import static org.apache.iceberg.expressions.Expressions.greaterThan;
import static org.apache.iceberg.expressions.Expressions.not;
import static org.apache.iceberg.expressions.Expressions.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TestPlanningMode {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "amount", Types.DoubleType.get()));
    private static final PartitionSpec BY_DAY =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final PartitionSpec BY_BUCKET =
            PartitionSpec.builderFor(SCHEMA).bucket("id", 4).withSpecId(1).build();

    @Test
    void aFilterOnAPartitionSourceRestrictsThePartitions() {
        List<PartitionSpec> specs = List.of(BY_DAY);
        assertThat(PlanningMode.restrictsPartitions(specs, equal("day", "2025-01-02"), true))
                .isTrue();
        assertThat(PlanningMode.restrictsPartitions(
                        specs, and(equal("day", "2025-01-02"), greaterThan("amount", 3.0)), true))
                .isTrue();
        // A NOT is pushed down first: NOT (day = x) still names partitions to skip.
        assertThat(PlanningMode.restrictsPartitions(specs, not(equal("day", "2025-01-02")), true))
                .isTrue();
    }

    @Test
    void noFilterOrOneOnOtherColumnsReadsEveryPartition() {
        List<PartitionSpec> specs = List.of(BY_DAY);
        assertThat(PlanningMode.restrictsPartitions(specs, alwaysTrue(), true)).isFalse();
        assertThat(PlanningMode.restrictsPartitions(specs, null, true)).isFalse();
        assertThat(PlanningMode.restrictsPartitions(specs, greaterThan("amount", 3.0), true))
                .isFalse();
        // An OR with an unrestricted side reads every partition.
        assertThat(PlanningMode.restrictsPartitions(
                        specs, or(equal("day", "2025-01-02"), greaterThan("amount", 3.0)), true))
                .isFalse();
        assertThat(PlanningMode.restrictsPartitions(List.of(PartitionSpec.unpartitioned()), equal("id", 3L), true))
                .isFalse();
    }

    @Test
    void anyOfTheTablesSpecsCounts() {
        // The table was partitioned by day, then by bucket(id): a filter on id restricts the newer files.
        assertThat(PlanningMode.restrictsPartitions(List.of(BY_DAY, BY_BUCKET), equal("id", 3L), true))
                .isTrue();
        assertThat(PlanningMode.restrictsPartitions(List.of(BY_DAY, BY_BUCKET), greaterThan("id", 3L), true))
                .as("bucket(id) cannot project a range")
                .isFalse();
    }

    @Test
    void theOptionIsParsedWithAClearError() {
        assertThat(PlanningMode.fromOption("lake", null)).isEqualTo(PlanningMode.AUTO);
        assertThat(PlanningMode.fromOption("lake", " Server ")).isEqualTo(PlanningMode.SERVER);
        assertThatThrownBy(() -> PlanningMode.fromOption("lake", "tree"))
                .hasMessage("Invalid spark.sql.catalog.lake.planning 'tree': expected auto, server or client");
    }
}
