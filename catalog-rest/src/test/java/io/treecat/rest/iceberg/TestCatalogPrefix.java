package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.service.ReadPoint;
import java.time.Instant;
import org.apache.iceberg.exceptions.BadRequestException;
import org.junit.jupiter.api.Test;

class TestCatalogPrefix {
    @Test
    void plainNameReadsTheNewestAndWrites() {
        CatalogPrefix prefix = CatalogPrefix.parse("warehouse");
        assertThat(prefix).isEqualTo(new CatalogPrefix("warehouse", ReadPoint.LATEST));
        assertThat(prefix.readOnly()).isFalse();
    }

    @Test
    void vidAndSnapshotSuffixesAreReadOnly() {
        assertThat(CatalogPrefix.parse("warehouse@1234"))
                .isEqualTo(new CatalogPrefix("warehouse", ReadPoint.vid(1234)));
        assertThat(CatalogPrefix.parse("warehouse@0").readOnly()).isTrue();
        assertThat(CatalogPrefix.parse("warehouse@snapshot=nightly"))
                .isEqualTo(new CatalogPrefix("warehouse", ReadPoint.snapshot("nightly")));
        // The suffix starts at the first '@': a snapshot name may hold '@' and '='.
        assertThat(CatalogPrefix.parse("w@snapshot=a@b=c").point()).isEqualTo(ReadPoint.snapshot("a@b=c"));
    }

    @Test
    void aTimeSuffixReadsTheCatalogAsOfThenReadOnly() {
        CatalogPrefix prefix = CatalogPrefix.parse("warehouse@time=2026-11-24T09:00:00Z");
        assertThat(prefix)
                .isEqualTo(new CatalogPrefix("warehouse", ReadPoint.time(Instant.parse("2026-11-24T09:00:00Z"))));
        assertThat(prefix.readOnly()).isTrue();
        assertThat(CatalogPrefix.parse("w@time=2026-11-24T10:00:00.5+01:00").point())
                .isEqualTo(ReadPoint.time(Instant.parse("2026-11-24T09:00:00.5Z")));
        for (String text : new String[] {"w@time=", "w@time=2026-11-24", "w@time=2026-11-24T09:00:00", "w@time=now"}) {
            assertThatThrownBy(() -> CatalogPrefix.parse(text))
                    .as(text)
                    .isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("Invalid REST prefix '" + text + "': the time must be RFC 3339");
        }
    }

    @Test
    void malformedSuffixesAreBadRequests() {
        for (String text :
                new String[] {"@1", "w@", "w@-1", "w@1x", "w@snapshot=", "w@99999999999999999999", "w@Snapshot=x"}) {
            assertThatThrownBy(() -> CatalogPrefix.parse(text))
                    .as(text)
                    .isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("Invalid REST prefix '" + text + "'");
        }
    }
}
