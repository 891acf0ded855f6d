package io.treecat.core.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class TestFilteredQueryCursor {
    /** A cursor over fixed rows, written by hand; it records whether it was closed. */
    private static final class ListCursor implements QueryCursor {
        private final List<CatalogObject> rows;
        private int at = -1;
        private boolean closed;

        ListCursor(String... paths) {
            rows = new ArrayList<>();
            for (String path : paths) {
                rows.add(new CatalogObject(ObjectPath.parse(path), ObjectKind.INNER, new BsonDocument(), 1));
            }
        }

        @Override
        public boolean advance() {
            return ++at < rows.size();
        }

        @Override
        public CatalogObject current() {
            return rows.get(at);
        }

        @Override
        public long vid() {
            return 7;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void skipsRefusedRowsPagesOverWhatIsKeptAndClosesTheCursorBelow() {
        ListCursor rows = new ListCursor("/a", "/b", "/c", "/d", "/e");
        QueryCursor kept = rows.filtered(row ->
                !row.path().toString().equals("/b") && !row.path().toString().equals("/e"));
        QueryPage page = kept.page(2);
        assertThat(page.rows()).extracting(row -> row.path().toString()).containsExactly("/a", "/c");
        // More kept rows follow (/d): the token resumes after the last row kept.
        assertThat(page.continuation()).isPresent();
        assertThat(Continuation.decode(page.continuation().get()).lastPath()).isEqualTo(ObjectPath.parse("/c"));
        assertThat(kept.advance()).isFalse();
        kept.close();
        assertThat(rows.closed).isTrue();

        QueryCursor none = new ListCursor("/a", "/b").filtered(row -> false);
        assertThat(none.page(10).rows()).isEmpty();
        assertThat(none.vid()).isEqualTo(7);
    }
}
