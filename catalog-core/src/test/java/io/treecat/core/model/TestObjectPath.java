package io.treecat.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TestObjectPath {
    @Test
    void textFormRoundTripsAnyId() {
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            ObjectPath path = RandomPaths.path(random, 1 + random.nextInt(5));
            assertThat(ObjectPath.parse(path.toString())).isEqualTo(path);
        }
    }

    @Test
    void aChildOfAPathWhoseTextWasMadeHasTheSameTextAsOneBuiltWhole() {
        Random random = new Random(11);
        for (int i = 0; i < 500; i++) {
            ObjectPath parent = RandomPaths.path(random, random.nextInt(4));
            String id = RandomPaths.id(random);
            String fresh = new ObjectPath(parent.child(id).ids()).toString();
            assertThat(parent.withText().child(id).toString()).isEqualTo(fresh);
            assertThat(ObjectPath.parse(parent.toString()).child(id).toString()).isEqualTo(fresh);
        }
        assertThat(ObjectPath.ROOT.withText().child("a/b").toString()).isEqualTo("/a\\/b");
    }

    @Test
    void escapesSlashAndBackslash() {
        ObjectPath path = ObjectPath.of("db", "a/b", "c\\d");
        assertThat(path.toString()).isEqualTo("/db/a\\/b/c\\\\d");
        assertThat(ObjectPath.parse("/db/a\\/b/c\\\\d")).isEqualTo(path);
        assertThat(ObjectPath.parse("/")).isEqualTo(ObjectPath.ROOT);
    }

    @Test
    void navigation() {
        ObjectPath table = ObjectPath.of("retail", "sales");
        assertThat(table.parent()).isEqualTo(ObjectPath.of("retail"));
        assertThat(table.child("p1").id()).isEqualTo("p1");
        assertThat(ObjectPath.of("retail").isAncestorOrSelf(table)).isTrue();
        assertThat(table.isAncestorOrSelf(ObjectPath.of("retail"))).isFalse();
        assertThat(table.child("x").rebase(table, ObjectPath.of("copy"))).isEqualTo(ObjectPath.of("copy", "x"));
    }

    @Test
    void malformedTextNamesThePosition() {
        assertThatThrownBy(() -> ObjectPath.parse("retail"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path at position 1: a path starts with '/'");
        assertThatThrownBy(() -> ObjectPath.parse("/a//b"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path at position 4: empty id");
        assertThatThrownBy(() -> ObjectPath.parse("/a/"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path at position 4: empty id");
        assertThatThrownBy(() -> ObjectPath.parse("/a\\x"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path at position 3: only '\\/' and '\\\\' are escapes in a path");
        assertThatThrownBy(() -> ObjectPath.parse("/a\\"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path at position 3: a trailing '\\' escapes nothing");
    }

    @Test
    void rejectsEmptyIdsAndTooDeepPaths() {
        assertThatThrownBy(() -> ObjectPath.of("a", ""))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path: id 2 is empty");
        assertThatThrownBy(() -> new ObjectPath(java.util.Collections.nCopies(256, "x")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Path is deeper than 255 levels");
        assertThatThrownBy(() -> ObjectPath.of("x".repeat(4097)))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path: id 1 is longer than 4096 bytes");
        // The text form is checked the same way: it is how paths arrive from clients.
        assertThatThrownBy(() -> ObjectPath.parse("/x".repeat(256)))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Path is deeper than 255 levels");
        assertThatThrownBy(() -> ObjectPath.parse("/" + "x".repeat(4097)))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid path: id 1 is longer than 4096 bytes");
    }

    /** A lone surrogate has no UTF-8 form: kept, it would be stored as '?' and share a key with other ids. */
    @Test
    void rejectsIdsThatAreNotWellFormedUnicode() {
        for (String id : List.of("s\uD800", "s\uDC00", "\uDE00\uD83D", "a\uD83D")) {
            assertThatThrownBy(() -> ObjectPath.of("db", id))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid path: id 2 is not well-formed Unicode (it has a lone surrogate)");
            assertThatThrownBy(() -> ObjectPath.of("db").child(id))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid path: id 2 is not well-formed Unicode (it has a lone surrogate)");
            assertThatThrownBy(() -> ObjectPath.parse("/db/" + id))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid path: id 2 is not well-formed Unicode (it has a lone surrogate)");
        }
        assertThat(ObjectPath.of("db", "s\uD83D\uDE00").id()).isEqualTo("s\uD83D\uDE00");
        assertThat(IdOrder.utf8Length("s\uD800")).isEqualTo(4);
        assertThat(IdOrder.wellFormedUtf8Length("s\uD83D\uDE00")).isEqualTo(5);
    }

    @Test
    void ordersByDepthThenIdsInCodePointOrder() {
        assertThat(ObjectPath.of("b").compareTo(ObjectPath.of("a", "a"))).isNegative();
        assertThat(ObjectPath.of("a", "b").compareTo(ObjectPath.of("a", "c"))).isNegative();
        // U+FFFF sorts below a supplementary character in code point order, unlike UTF-16 order.
        assertThat(ObjectPath.of("\uFFFF").compareTo(ObjectPath.of("\uD83D\uDE00")))
                .isNegative();
        assertThat(List.of(ObjectPath.of("a"), ObjectPath.ROOT).stream()
                        .sorted()
                        .toList())
                .containsExactly(ObjectPath.ROOT, ObjectPath.of("a"));
    }
}
