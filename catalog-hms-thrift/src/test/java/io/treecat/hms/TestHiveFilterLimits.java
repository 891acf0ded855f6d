package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.query.parser.QueryLimits;
import io.treecat.core.query.parser.QueryParser;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.junit.jupiter.api.Test;

/**
 * Filters as long and as nested as engines send them, and beyond: parsed, bound, pushed down and
 * evaluated without recursion per term (no {@code StackOverflowError}), in time linear in the filter,
 * and refused past {@code hms.filter.max-length} / {@code hms.filter.max-depth} with a {@link
 * MetaException} that names the limit.
 */
class TestHiveFilterLimits {
    private static final List<FieldSchema> KEYS =
            List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null));

    private static HiveFilter.Compare hr(int value) {
        return new HiveFilter.Compare(
                "hr", HiveFilter.Operator.EQUALS, new HiveFilter.Literal(Integer.toString(value), true));
    }

    private static String chain(int terms, String operator) {
        return IntStream.range(0, terms).mapToObj(i -> "hr = " + i).collect(Collectors.joining(" " + operator + " "));
    }

    /** Spark's HiveShim: {@code ((a or b) or c) …}, one parenthesis per term. */
    private static String sparkChain(int terms) {
        StringBuilder filter = new StringBuilder("(".repeat(terms - 1)).append("hr = 0");
        for (int i = 1; i < terms; i++) {
            filter.append(" or hr = ").append(i).append(')');
        }
        return filter.toString();
    }

    /** {@code hr = 0 or (hr = 1 or (hr = 2 or …))}. */
    private static String rightDeepChain(int terms) {
        StringBuilder filter = new StringBuilder();
        for (int i = 0; i < terms - 1; i++) {
            filter.append("hr = ").append(i).append(" or (");
        }
        return filter.append("hr = ")
                .append(terms - 1)
                .append(")".repeat(terms - 1))
                .toString();
    }

    /** {@code (hr = 0 and (hr = 1 or (hr = 2 and …)))}: and and or alternating, {@code levels} deep. */
    private static String alternating(int levels) {
        StringBuilder filter = new StringBuilder();
        for (int i = 0; i < levels - 1; i++) {
            filter.append("hr = ").append(i).append(i % 2 == 0 ? " and (" : " or (");
        }
        return filter.append("hr = ")
                .append(levels - 1)
                .append(")".repeat(levels - 1))
                .toString();
    }

    @Test
    void aChainOfOneOperatorIsOneNodeHoweverItIsGrouped() throws Exception {
        HiveFilter.Node expected = new HiveFilter.Or(hr(0), hr(1), hr(2), hr(3));
        assertThat(HiveFilter.parse(chain(4, "or"))).isEqualTo(expected);
        assertThat(HiveFilter.parse(sparkChain(4))).isEqualTo(expected);
        assertThat(HiveFilter.parse(rightDeepChain(4))).isEqualTo(expected);
        assertThat(HiveFilter.parse("(hr = 0 or hr = 1) or (hr = 2 or hr = 3)")).isEqualTo(expected);
        assertThat(HiveFilter.parse("((((hr = 0))))")).isEqualTo(hr(0));
        assertThat(HiveFilter.parse("hr = 0 and (hr = 1 and hr = 2) or hr = 3"))
                .isEqualTo(new HiveFilter.Or(new HiveFilter.And(hr(0), hr(1), hr(2)), hr(3)));
        assertThat(HiveFilter.parse(alternating(4)).depth()).isEqualTo(3);
    }

    @Test
    void tenThousandTermsParsePushDownAndEvaluateInLinearTime() throws Exception {
        for (String filter : List.of(chain(10_000, "or"), sparkChain(10_000), rightDeepChain(10_000))) {
            PartitionFilterPlanner plan = null;
            List<String> predicates = null;
            boolean matches = false;
            boolean misses = true;
            long millis = Long.MAX_VALUE;
            for (int run = 0; run < 5; run++) { // the best of five: the first runs are the JIT's
                long start = System.nanoTime();
                plan = PartitionFilterPlanner.plan(HiveFilter.parse(filter), KEYS);
                predicates = plan.levelPredicates();
                matches = plan.test(List.of("x", "9999"));
                misses = plan.test(List.of("x", "10000"));
                millis = Math.min(millis, (System.nanoTime() - start) / 1_000_000);
            }
            assertThat(matches).isTrue();
            assertThat(misses).isFalse();
            // The pushed-down query is one the path query parser takes within its default limits: the 10,000
            // part_num terms are over half its text, so that level pushes nothing and the exact evaluation decides.
            String query = predicates.stream().map(p -> "/[" + p + "]").collect(Collectors.joining());
            QueryParser.parse(query);
            assertThat(predicates.get(1)).isEqualTo("obj_type = 'partition'");
            // Measured 15-60 ms on the shared 2-core machine (docs/robustness.md); quadratic work would be seconds.
            assertThat(millis)
                    .as("parse, plan and evaluate %s characters", filter.length())
                    .isLessThan(5_000);
            System.out.printf("10,000-term filter of %,d characters: %d ms%n", filter.length(), millis);
        }
        String and = IntStream.range(0, 10_000).mapToObj(i -> "hr != " + i).collect(Collectors.joining(" and "));
        PartitionFilterPlanner plan = PartitionFilterPlanner.plan(HiveFilter.parse(and), KEYS);
        assertThat(plan.test(List.of("x", "10000"))).isTrue();
        assertThat(plan.test(List.of("x", "5000"))).isFalse();
    }

    @Test
    void aShortChainIsPushedDownFlat() throws Exception {
        PartitionFilterPlanner plan = PartitionFilterPlanner.plan(HiveFilter.parse(sparkChain(100)), KEYS);
        String level = plan.levelPredicates().get(1);
        assertThat(level)
                .startsWith("obj_type = 'partition' and ((part_num = 0) or (part_num = 1) or ")
                .endsWith(" or (part_num = 99))");
        QueryParser.parse("/[" + level + "]");
        // Within a tighter query limit the same filter pushes nothing rather than a query the parser refuses.
        List<String> tight = PartitionFilterPlanner.plan(HiveFilter.parse(sparkChain(300)), KEYS)
                .levelPredicates(new QueryLimits(4096, 64));
        assertThat(tight.get(1)).isEqualTo("obj_type = 'partition'");
    }

    @Test
    void nestingDeeperThanTheQueryAllowsPushesLessNotAFailure() throws Exception {
        PartitionFilterPlanner plan = PartitionFilterPlanner.plan(HiveFilter.parse(alternating(200)), KEYS);
        List<String> predicates = plan.levelPredicates();
        for (String predicate : predicates) {
            QueryParser.parse("/[" + predicate + "]");
        }
        assertThat(predicates.get(1)).startsWith("obj_type = 'partition' and ((part_num = 0) and ");
        assertThat(plan.test(List.of("x", "0"))).isFalse();
    }

    @Test
    void nestingPastTheLimitIsAMetaExceptionNamingIt() throws Exception {
        HiveFilterLimits limits = new HiveFilterLimits(1000, 3);
        assertThat(HiveFilter.parse(alternating(4), limits).depth()).isEqualTo(3);
        assertThatThrownBy(() -> HiveFilter.parse(alternating(5), limits))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error parsing partition filter at position 1: expected at most 3 levels of nested and/or"
                        + " (hms.filter.max-depth) but found more");
        // Redundant parentheses and long chains do not count.
        assertThat(HiveFilter.parse("(".repeat(500) + "hr = 1" + ")".repeat(500), new HiveFilterLimits(2000, 1)))
                .isEqualTo(hr(1));
        assertThat(HiveFilter.parse(sparkChain(100), new HiveFilterLimits(2000, 1))
                        .depth())
                .isEqualTo(1);
        // The default: 1,000 levels.
        HiveFilter.parse(alternating(1001));
        assertThatThrownBy(() -> HiveFilter.parse(alternating(1002)))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("expected at most 1000 levels of nested and/or (hms.filter.max-depth)");
    }

    @Test
    void aFilterLongerThanTheLimitIsAMetaExceptionNamingIt() {
        assertThatThrownBy(() -> HiveFilter.parse(chain(100, "or"), new HiveFilterLimits(100, 10)))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error parsing partition filter: the filter is longer than hms.filter.max-length allows"
                        + " (100 characters, found 1086)");
        assertThatThrownBy(() -> new HiveFilterLimits(100, HiveFilterLimits.DEPTH_CEILING + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Nothing a client can send overflows a thread's stack, on a thread with half the usual stack. */
    @Test
    void noInputOverflowsTheStack() throws Throwable {
        HiveFilterLimits ceiling =
                new HiveFilterLimits(HiveFilterLimits.LENGTH_CEILING, HiveFilterLimits.DEPTH_CEILING);
        List<String> refused = new ArrayList<>();
        onSmallStack(() -> {
            // The deepest filter the ceiling lets through: parsed, bound, pushed down and evaluated.
            PartitionFilterPlanner plan = PartitionFilterPlanner.plan(
                    HiveFilter.parse(alternating(HiveFilterLimits.DEPTH_CEILING + 1), ceiling), KEYS);
            plan.levelPredicates();
            plan.test(List.of("x", "0"));
            HmsTableFilter.of(HiveFilter.parse(
                            alternating(HiveFilterLimits.DEPTH_CEILING + 1)
                                    .replace("hr", "hive_filter_field_last_access__"),
                            ceiling))
                    .test(new org.apache.hadoop.hive.metastore.api.Table());
            // 100,000 parentheses, open or balanced, and 100,000 alternations.
            HiveFilter.parse("(".repeat(100_000) + "hr = 1" + ")".repeat(100_000), ceiling);
            for (String filter : List.of("(".repeat(100_000), "(".repeat(100_000) + "hr = 1", alternating(100_000))) {
                try {
                    HiveFilter.parse(filter, ceiling);
                } catch (MetaException e) {
                    refused.add(e.getMessage());
                }
            }
        });
        assertThat(refused).hasSize(3);
        assertThat(refused.get(0))
                .startsWith("Error parsing partition filter at position 100001: expected a partition key");
        assertThat(refused.get(1)).endsWith("expected ')' but found end of filter");
        assertThat(refused.get(2)).contains("(hms.filter.max-depth)");
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    private static void onSmallStack(Work work) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(
                null,
                () -> {
                    try {
                        work.run();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "small-stack",
                512 * 1024);
        thread.start();
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
