package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule every new lake name passes: what it refuses, with which message, and what it keeps. */
class TestLakeNames {
    private static final LakeNames NAMES = LakeNames.DEFAULT;

    @Test
    void keepsEveryNameIcebergAllowsThatIsNotDangerous() {
        for (String name : List.of(
                "sales",
                "Sales 2024",
                "a.b",
                ".hidden",
                "...",
                "a/b",
                "a\\b",
                "100%",
                "%2E%2E",
                "données",
                "表",
                "emoji \uD83D\uDE00",
                "x".repeat(255),
                "é".repeat(127))) {
            assertThatCode(() -> NAMES.check(LakeNames.TABLE, name)).as(name).doesNotThrowAnyException();
        }
    }

    @Test
    void refusesDotNamesAndDotPartsBetweenSlashes() {
        for (String name : List.of(".", "..", "../x", "../../up2", "a/..", "a/./b", "..\\x", "a\\..")) {
            assertRefused(
                    LakeNames.NAMESPACE,
                    name,
                    "Invalid namespace name: it is '.' or '..', or has such a part between slashes");
        }
    }

    @Test
    void refusesTheIdsOfTreeCatsOwnAreasAsNamespaceTableOrViewNames() {
        for (String name : List.of(".purges", ".hive_txns", ".hive_locks", ".hive_events", ".functions")) {
            assertRefused(LakeNames.NAMESPACE, name, "Invalid namespace name: it is reserved for TreeCat's own use");
            assertRefused(LakeNames.TABLE, name, "Invalid table name: it is reserved for TreeCat's own use");
            assertRefused(LakeNames.VIEW, name, "Invalid view name: it is reserved for TreeCat's own use");
            assertThatCode(() -> NAMES.check(LakeNames.CATALOG, name)).as(name).doesNotThrowAnyException();
        }
        assertThatCode(() -> NAMES.check(LakeNames.TABLE, ".purges2")).doesNotThrowAnyException();
        assertRefused(
                LakeNames.CATALOG, ".idempotency_keys", "Invalid catalog name: it is reserved for TreeCat's own use");
        assertThatCode(() -> NAMES.check(LakeNames.NAMESPACE, ".idempotency_keys"))
                .doesNotThrowAnyException();
    }

    @Test
    void refusesEmptyNames() {
        assertRefused(LakeNames.VIEW, "", "Invalid view name: it is empty");
        assertRefused(LakeNames.VIEW, null, "Invalid view name: it is empty");
        assertThatThrownBy(() -> NAMES.checkNamespace(List.of()))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid namespace name: it is empty");
    }

    @Test
    void refusesLoneSurrogatesSoTwoNamesNeverShareAKey() {
        for (String name : List.of("s\uD800", "s\uDC00", "\uDE00\uD83D", "a\uD83D")) {
            assertRefused(
                    LakeNames.NAMESPACE,
                    name,
                    "Invalid namespace name: it is not well-formed Unicode (it has a lone surrogate)");
        }
        assertThatThrownBy(() -> NAMES.check(LakeNames.NAMESPACE, "s\uD800"))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context())
                                .containsEntry("name", "s\\uD800")
                                .containsEntry("kind", "namespace"));
    }

    @Test
    void refusesControlCharactersWithTheirPosition() {
        for (char c : new char[] {0x00, 0x01, 0x0A, 0x1F, 0x7F}) {
            assertRefused(LakeNames.TABLE, "ab" + c, "Invalid table name: it holds a control character");
        }
        assertThatThrownBy(() -> NAMES.check(LakeNames.NAMESPACE, "c\u001Fd"))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context())
                                .containsEntry("name", "c\\u001Fd")
                                .containsEntry("position", "2"));
    }

    @Test
    void refusesNamesLongerThanTheLimitInBytesOfUtf8() {
        assertRefused(
                LakeNames.NAMESPACE, "a".repeat(256), "Invalid namespace name: it is longer than 255 bytes of UTF-8");
        assertRefused(
                LakeNames.NAMESPACE, "é".repeat(128), "Invalid namespace name: it is longer than 255 bytes of UTF-8");
        assertThatThrownBy(() -> NAMES.check(LakeNames.NAMESPACE, "a".repeat(300)))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context())
                                .containsEntry("bytes", "300")
                                .containsEntry("maxBytes", "255")
                                .containsEntry("name", "a".repeat(100) + "…"));

        LakeNames short64 = new LakeNames(64);
        assertThatCode(() -> short64.check(LakeNames.TABLE, "t".repeat(64))).doesNotThrowAnyException();
        assertThatThrownBy(() -> short64.check(LakeNames.TABLE, "t".repeat(65)))
                .hasMessage("Invalid table name: it is longer than 64 bytes of UTF-8");
    }

    /** Every name must be a directory its default location can make: an escaped '/' takes three bytes. */
    @Test
    void refusesANameWhoseEscapedSegmentIsTooLongForAFileSystem() {
        assertThatCode(() -> NAMES.check(LakeNames.TABLE, "/".repeat(85))).doesNotThrowAnyException();
        assertRefused(
                LakeNames.TABLE,
                "/".repeat(86),
                "Invalid table name: as a path segment of its location (escaped) it is longer than 255 bytes");
    }

    @Test
    void theLimitIsAPathSegmentsAtMost() {
        assertThatThrownBy(() -> new LakeNames(256))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBytes must be between 1 and 255: 256");
        assertThatThrownBy(() -> new LakeNames(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void printableEscapesWhatALogOrAResponseCannotShow() {
        assertThat(LakeNames.printable("a\u0000b\u007Fc\uD800")).isEqualTo("a\\u0000b\\u007Fc\\uD800");
        assertThat(LakeNames.printable("\uD83D\uDE00")).isEqualTo("\uD83D\uDE00");
        assertThat(LakeNames.printable("x".repeat(101))).isEqualTo("x".repeat(100) + "…");
    }

    private static void assertRefused(String kind, String name, String message) {
        assertThatThrownBy(() -> NAMES.check(kind, name))
                .as(String.valueOf(name))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME))
                .hasMessage(message);
    }
}
