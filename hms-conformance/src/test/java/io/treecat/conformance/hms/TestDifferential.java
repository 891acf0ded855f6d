package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.junit.jupiter.api.Test;

class TestDifferential {
    @Test
    void valuesAgreeWhenEqual() {
        assertThat(Differential.Outcome.of(List.of("a", "b")).agreesWith(Differential.Outcome.of(List.of("a", "b"))))
                .isTrue();
        assertThat(Differential.Outcome.of(List.of("a")).agreesWith(Differential.Outcome.of(List.of("a", "b"))))
                .isFalse();
        assertThat(Differential.Outcome.of(3).agreesWith(Differential.Outcome.thrown(new MetaException("x"))))
                .isFalse();
    }

    @Test
    void exceptionsAgreeByTypeNotMessage() {
        Differential.Outcome hive = Differential.Outcome.thrown(new MetaException("Error parsing partition filter"));
        assertThat(hive.agreesWith(Differential.Outcome.thrown(new MetaException("something else"))))
                .isTrue();
        assertThat(hive.agreesWith(
                        Differential.Outcome.thrown(new NoSuchObjectException("Error parsing partition filter"))))
                .isFalse();
        assertThat(hive.agreesWith(Differential.Outcome.of(List.of()))).isFalse();
    }

    @Test
    void mismatchShowsWhatOnlyOneSideReturned() {
        Differential.Mismatch mismatch = new Differential.Mismatch(
                "get_partitions_by_filter: x like 'a%'",
                Differential.Outcome.of(List.of("x=a", "x=ab")), Differential.Outcome.of(List.of("x=a", "x=b")));
        assertThat(mismatch.describe("Hive", "TreeCat")).isEqualTo("""
        get_partitions_by_filter: x like 'a%'
            Hive: 2, TreeCat: 2
            only Hive: [x=ab]
            only TreeCat: [x=b]
        """);
    }

    @Test
    void mismatchShowsBothExceptions() {
        Differential.Mismatch mismatch = new Differential.Mismatch(
                "get_num_partitions_by_filter: yr = '1'",
                Differential.Outcome.thrown(
                        new MetaException("Filtering is supported only on partition keys of type string")),
                Differential.Outcome.of(3));
        assertThat(mismatch.describe("Hive", "TreeCat")).isEqualTo("""
        get_num_partitions_by_filter: yr = '1'
            Hive: MetaException: Filtering is supported only on partition keys of type string
            TreeCat: 3
        """);
    }

    @Test
    void longListsAreCut() {
        List<Integer> values = IntStream.range(0, 20).boxed().toList();
        assertThat(Differential.shown(values)).isEqualTo("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... 8 more]");
    }
}
