package io.treecat.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TestCatalogVersion {
    @Test
    void noVersionOptionReadsTheLiveCatalog() {
        CatalogVersion version = CatalogVersion.fromOptions("lake", Map.of("uri", "http://x"));
        assertThat(version).isEqualTo(CatalogVersion.LATEST);
        assertThat(version.readOnly()).isFalse();
        assertThat(version.prefix("retail")).isEqualTo("retail");
    }

    @Test
    void eachVersionOptionNamesItsPrefix() {
        assertThat(CatalogVersion.fromOptions("lake", Map.of("vid", " 42 ")).prefix("retail"))
                .isEqualTo("retail@42");
        assertThat(CatalogVersion.fromOptions("lake", Map.of("vid", "NOW"))).isInstanceOf(CatalogVersion.Now.class);
        assertThat(CatalogVersion.fromOptions("lake", Map.of("snapshot", "nightly"))
                        .prefix("retail"))
                .isEqualTo("retail@snapshot=nightly");
        // The time in UTC, whatever offset it was given with.
        assertThat(CatalogVersion.fromOptions("lake", Map.of("timestamp", "2026-11-24T10:00+01:00"))
                        .prefix("retail"))
                .isEqualTo("retail@time=2026-11-24T09:00:00Z");
    }

    @Test
    void aSnapshotNameIsOnePathSegment() {
        assertThat(new CatalogVersion.Snapshot("before load/ünïcode~1").prefix("retail"))
                .isEqualTo("retail@snapshot=before%20load%2F%C3%BCn%C3%AFcode~1");
    }

    @Test
    void malformedOrConflictingOptionsNameTheOption() {
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("vid", "yesterday")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Invalid spark.sql.catalog.lake.vid 'yesterday': expected a vid (a non-negative integer) or 'now'");
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("vid", "-3")))
                .hasMessageContaining("spark.sql.catalog.lake.vid '-3'");
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("vid", "99999999999999999999")))
                .hasMessageContaining("expected a vid");
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("timestamp", "yesterday")))
                .hasMessageStartingWith("Invalid spark.sql.catalog.lake.timestamp 'yesterday': expected an RFC 3339");
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("snapshot", " ")))
                .hasMessage("Invalid spark.sql.catalog.lake.snapshot: empty snapshot name");
        assertThatThrownBy(() -> CatalogVersion.fromOptions("lake", Map.of("vid", "1", "snapshot", "s")))
                .hasMessage(
                        "Catalog lake: the options vid, snapshot each name a version to read; set only one of them");
    }

    @Test
    void aWarehouseThatNamesAVersionAlreadyConflicts() {
        assertThatThrownBy(() -> new CatalogVersion.Vid(3).prefix("retail@2"))
                .hasMessageContaining("already names a version");
    }
}
