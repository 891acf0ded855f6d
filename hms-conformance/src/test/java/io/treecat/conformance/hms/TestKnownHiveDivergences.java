package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestKnownHiveDivergences {
    @Test
    void rewritesOnlyTheInequalitiesHivesBugTouches() {
        assertThat(KnownHiveDivergences.hiveEquivalent("region <> 'us_east'"))
                .isEqualTo("(region < 'us_east' or region > 'us_east')");
        assertThat(KnownHiveDivergences.hiveEquivalent("\"50%off\" != region and yr = 9"))
                .isEqualTo("(region < \"50%off\" or region > \"50%off\") and yr = 9");
        assertThat(KnownHiveDivergences.hiveEquivalent("(region) NOT in ('eu', 'us_', '')"))
                .isEqualTo("((region) not in ('eu', '') and (region < 'us_' or region > 'us_'))");
        assertThat(KnownHiveDivergences.hiveEquivalent("(region) not in ('us_east')"))
                .isEqualTo("((region < 'us_east' or region > 'us_east'))");
        // Untouched: no wildcard, another operator, a bare number, the in list.
        for (String filter : new String[] {
            "region <> 'eu'",
            "region = 'us_east'",
            "region like 'us_east'",
            "region <> 50",
            "(region) in ('us_east')",
            "dt <> '2024_01'"
        }) {
            assertThat(KnownHiveDivergences.hiveEquivalent(filter)).isEqualTo(filter);
        }
    }

    @Test
    void everyListedComparisonNamesItsCallAndAReason() {
        assertThat(KnownHiveDivergences.all()).isNotEmpty();
        for (KnownHiveDivergences.Divergence divergence : KnownHiveDivergences.all()) {
            assertThat(ThriftCalls.callOf(divergence.description()))
                    .as(divergence.description())
                    .isPresent();
            assertThat(divergence.reason()).as(divergence.description()).isNotBlank();
        }
    }
}
