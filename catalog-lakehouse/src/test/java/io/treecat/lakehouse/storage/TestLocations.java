package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.model.LakeNames;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Path segments of names, dot segments and containment, as the warehouse checks use them. */
class TestLocations {
    @Test
    void aSegmentEscapesOnlyWhatCouldLeaveItsParent() {
        assertThat(Locations.segment("sales")).isEqualTo("sales");
        assertThat(Locations.segment("a.b")).isEqualTo("a.b");
        assertThat(Locations.segment("...")).isEqualTo("...");
        assertThat(Locations.segment("a/b")).isEqualTo("a%2Fb");
        assertThat(Locations.segment("a\\b")).isEqualTo("a%5Cb");
        assertThat(Locations.segment("100%")).isEqualTo("100%25");
        assertThat(Locations.segment("%2F")).isEqualTo("%252F");
        assertThat(Locations.segment("données")).isEqualTo("données");
        // Never a dot segment, even for names the lake refuses (a catalog named by a raw REST prefix).
        assertThat(Locations.segment(".")).isEqualTo("%2E");
        assertThat(Locations.segment("..")).isEqualTo("%2E%2E");
    }

    /** Distinct names never share a location (the escape is one-to-one), and a lake name's segment never climbs. */
    @Test
    void segmentsOfDistinctNamesDiffer() {
        String[] parts = {"a", "/", "\\", "%", "2F", "%2F", ".", "25", "5C"};
        Random random = new Random(24);
        Set<String> names = new HashSet<>();
        Set<String> segments = new HashSet<>();
        for (int i = 0; i < 5000; i++) {
            StringBuilder name = new StringBuilder();
            for (int j = 0; j < 1 + random.nextInt(4); j++) {
                name.append(parts[random.nextInt(parts.length)]);
            }
            if (names.add(name.toString())) {
                String segment = Locations.segment(name.toString());
                assertThat(segments.add(segment)).as(name.toString()).isTrue();
                assertThat(segment).doesNotContain("/", "\\");
                if (isLakeName(name.toString())) {
                    // Every name the lake accepts stays one segment, even for a reader that decodes it once.
                    assertThat(Locations.hasDotSegment("file:/w/" + segment))
                            .as(segment)
                            .isFalse();
                }
            }
        }
    }

    private static boolean isLakeName(String name) {
        try {
            LakeNames.DEFAULT.check(LakeNames.TABLE, name);
            return true;
        } catch (CatalogException e) {
            return false;
        }
    }

    @Test
    void dotSegmentsAreFoundAsWrittenAndOncePercentDecoded() {
        for (String location : List.of(
                "file:/w/../x",
                "file:/w/./x",
                "/w/..",
                "s3://bucket/w/../x",
                "file:/w/%2E%2E/x",
                "file:/w/%2e./x",
                "file:/w/a%2F..%2F..%2Fx",
                "file:/w/a%5C..",
                "file:/w\\..\\x")) {
            assertThat(Locations.hasDotSegment(location)).as(location).isTrue();
        }
        for (String location : List.of("file:/w/...", "file:/w/.x", "file:/w/x..", "s3://b/w/a%252F..", "file:/w")) {
            assertThat(Locations.hasDotSegment(location)).as(location).isFalse();
        }
    }

    @Test
    void insideComparesSchemeAuthorityAndWholeSegments() {
        assertThat(Locations.isInside("file:/w/cat/ns", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("file:///w/cat/ns/", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("/w/cat//ns", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("file://localhost/w/cat", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("FILE:/w/cat", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("file:/w/cat", "file:/w/cat")).isTrue();
        assertThat(Locations.isInside("s3://bucket/w/cat/t", "s3://bucket/w")).isTrue();

        assertThat(Locations.isInside("file:/w/cat2", "file:/w/cat")).isFalse();
        assertThat(Locations.isInside("file:/w", "file:/w/cat")).isFalse();
        assertThat(Locations.isInside("file:/elsewhere", "file:/w/cat")).isFalse();
        assertThat(Locations.isInside("s3://bucket/w/cat", "file:/w/cat")).isFalse();
        assertThat(Locations.isInside("s3://other/w/cat", "s3://bucket/w")).isFalse();
    }

    @Test
    void aPlaceableLocationHasNoControlCharacterLoneSurrogateOrDotSegment() {
        assertThatCode(() -> Locations.checkPlaceable("file:/w/a%2Fb", "location"))
                .doesNotThrowAnyException();
        assertRefused("", "Invalid location: it is empty");
        assertRefused(" ", "Invalid location: it is empty");
        assertRefused(
                "file:/w/a\u0000b", "Invalid location: it holds a control character or is not well-formed Unicode");
        assertRefused(
                "file:/w/s\uD800", "Invalid location: it holds a control character or is not well-formed Unicode");
        assertRefused("file:/w/../x", "Invalid location: it has a '.' or '..' path segment");
    }

    private static void assertRefused(String location, String message) {
        assertThatThrownBy(() -> Locations.checkPlaceable(location, "write.metadata.path"))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LOCATION);
                    // The field, never the location: it may be the server's own path.
                    assertThat(e.context()).containsOnlyKeys("field").containsEntry("field", "write.metadata.path");
                })
                .hasMessage(message);
    }
}
