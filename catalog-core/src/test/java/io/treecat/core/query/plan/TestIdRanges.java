package io.treecat.core.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.IdOrder;
import org.junit.jupiter.api.Test;

class TestIdRanges {
    @Test
    void pointContainsOnlyItsId() {
        IdRange range = IdRange.point("sales");

        assertThat(range.contains("sales")).isTrue();
        assertThat(range.contains("sale")).isFalse();
        assertThat(range.contains("sales\u0000")).isFalse();
        assertThat(range.contains("salesx")).isFalse();
        assertThat(range.lowerInclusive()).isEqualTo(IdOrder.encode("sales"));
        assertThat(range.upperExclusive()).isEqualTo(new byte[] {'s', 'a', 'l', 'e', 's', 0x01});
    }

    @Test
    void boundsAreCopies() {
        byte[] lower = {'a', 0};
        IdRange range = new IdRange(lower, null);
        lower[0] = 'z';
        range.lowerInclusive()[0] = 'z';

        assertThat(range.lowerInclusive()).isEqualTo(new byte[] {'a', 0});
        assertThat(range).isEqualTo(IdRange.atLeast("a")).hasSameHashCodeAs(IdRange.atLeast("a"));
    }

    @Test
    void rejectsEmptyRanges() {
        assertThatThrownBy(() -> new IdRange(IdOrder.encode("b"), IdOrder.encode("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an id range is not empty: ['b', 'a')");
    }

    @Test
    void printsAsIntervalsOfIds() {
        assertThat(IdRange.point("sales")).hasToString("['sales', 'sales']");
        assertThat(IdRange.greaterThan("2025-01-01")).hasToString("('2025-01-01', +∞)");
        assertThat(IdRange.atLeast("a")).hasToString("['a', +∞)");
        assertThat(IdRange.lessThan("a")).hasToString("(-∞, 'a')");
        assertThat(IdRange.atMost("a")).hasToString("(-∞, 'a']");
        assertThat(IdRange.prefix("ab")).hasToString("['ab', 'ab'…]");
        assertThat(IdRange.all()).hasToString("(-∞, +∞)");
        assertThat(IdRange.point("it's\u0000\u0001")).hasToString("['it\\'s\\u0000\\u0001', 'it\\'s\\u0000\\u0001']");
        assertThat(IdRange.prefix("\u0001")).hasToString("['\\u0001', '\\u0001'…]");
        assertThat(new IdRange(new byte[] {0x01, 0x05}, new byte[] {(byte) 0xC3}))
                .hasToString("[0x0105, 0xc3)");
    }

    @Test
    void unionMergesOverlappingAndTouchingRanges() {
        IdRanges ranges = IdRanges.of(IdRange.point("c"), IdRange.point("a"), IdRange.point("b"), IdRange.point("a"));

        assertThat(ranges.ranges()).containsExactly(IdRange.point("a"), IdRange.point("b"), IdRange.point("c"));
        assertThat(IdRanges.of(IdRange.lessThan("m"), IdRange.atLeast("m"))).isEqualTo(IdRanges.ALL);
        assertThat(IdRanges.of(IdRange.atMost("m"), IdRange.prefix("m")).ranges())
                .containsExactly(new IdRange(null, IdRange.prefix("m").upperExclusive()));
        assertThat(IdRanges.of(IdRange.point("a"))
                        .union(IdRanges.of(IdRange.greaterThan("0")))
                        .ranges())
                .containsExactly(IdRange.greaterThan("0"));
        assertThat(IdRanges.NONE.union(IdRanges.ALL)).isEqualTo(IdRanges.ALL);
        assertThat(IdRanges.of(IdRange.point("x")).union(IdRanges.NONE)).isEqualTo(IdRanges.of(IdRange.point("x")));
    }

    @Test
    void intersectKeepsCommonParts() {
        IdRanges between = IdRanges.of(IdRange.greaterThan("a")).intersect(IdRanges.of(IdRange.lessThan("c")));

        assertThat(between.ranges())
                .containsExactly(new IdRange(IdRange.greaterThan("a").lowerInclusive(), IdOrder.encode("c")));
        assertThat(between.contains("b")).isTrue();
        assertThat(between.contains("a")).isFalse();
        assertThat(between.contains("c")).isFalse();
        assertThat(between.contains("a\u0000")).isTrue();
        assertThat(IdRanges.of(IdRange.point("a")).intersect(IdRanges.of(IdRange.point("b"))))
                .isEqualTo(IdRanges.NONE);
        assertThat(IdRanges.ALL.intersect(IdRanges.NONE)).isEqualTo(IdRanges.NONE);
        assertThat(IdRanges.ALL.intersect(IdRanges.ALL)).isEqualTo(IdRanges.ALL);
        assertThat(IdRanges.of(IdRange.point("a"), IdRange.point("b"), IdRange.point("c"))
                        .intersect(IdRanges.of(IdRange.atLeast("b"))))
                .isEqualTo(IdRanges.of(IdRange.point("b"), IdRange.point("c")));
    }

    @Test
    void knowsAllAndNone() {
        assertThat(IdRanges.ALL.isAll()).isTrue();
        assertThat(IdRanges.ALL.isEmpty()).isFalse();
        assertThat(IdRanges.NONE.isEmpty()).isTrue();
        assertThat(IdRanges.NONE.contains("a")).isFalse();
        assertThat(IdRanges.ALL.contains("")).isTrue();
        assertThat(IdRanges.ALL).hasToString("all");
        assertThat(IdRanges.NONE).hasToString("none");
        assertThat(IdRanges.of(IdRange.point("b"), IdRange.point("a"))).hasToString("['a', 'a'] or ['b', 'b']");
    }
}
