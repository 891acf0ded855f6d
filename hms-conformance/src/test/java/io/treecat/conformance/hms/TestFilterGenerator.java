package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestFilterGenerator {
    @Test
    void sameSeedSameFilters() {
        assertThat(new FilterGenerator(42).next(200)).isEqualTo(new FilterGenerator(42).next(200));
        assertThat(new FilterGenerator(42).next(50)).isNotEqualTo(new FilterGenerator(43).next(50));
    }

    @Test
    void coversTheGrammar() {
        String all = String.join("\n", new FilterGenerator(20261125L).next(300)).toLowerCase(java.util.Locale.ROOT);
        for (String construct : List.of(
                " = ",
                " <> ",
                " != ",
                " < ",
                " <= ",
                " > ",
                " >= ",
                " like ",
                "%",
                "_",
                " between ",
                " not between ",
                " in (",
                " not in (",
                " and ",
                " or ",
                "(",
                "date '",
                "\"",
                "region",
                "yr",
                "dt",
                "'" + PartitionedTable.DEFAULT_PARTITION.toLowerCase(java.util.Locale.ROOT) + "'")) {
            assertThat(all).as("a filter with %s", construct).contains(construct);
        }
    }

    @Test
    void regressionsComeFirstWhateverTheSeed() {
        assertThat(FilterGenerator.regressions()).first().isEqualTo("region like 'us%' and region <> 'us'");
    }
}
