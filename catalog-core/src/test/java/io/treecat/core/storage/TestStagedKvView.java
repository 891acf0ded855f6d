package io.treecat.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestStagedKvView {
    @TempDir
    Path directory;

    private KvStore store;
    private StagedKvView view;

    @BeforeEach
    void open() {
        store = RocksKvStore.open(directory);
        try (KvBatch batch = store.newBatch()) {
            for (String key : List.of("a", "c", "e", "g")) {
                batch.put(KeySpace.LEAF, bytes(key), bytes("stored " + key));
            }
            store.write(batch, false);
        }
        view = new StagedKvView(store);
        OpsBatch staged = new OpsBatch();
        staged.put(KeySpace.LEAF, bytes("b"), bytes("staged b"));
        staged.put(KeySpace.LEAF, bytes("c"), bytes("staged c"));
        staged.delete(KeySpace.LEAF, bytes("e"));
        staged.delete(KeySpace.LEAF, bytes("x"));
        staged.put(KeySpace.LEAF, bytes("f"), new byte[0]);
        view.stage(staged.ops());
        OpsBatch later = new OpsBatch();
        later.delete(KeySpace.LEAF, bytes("b"));
        later.put(KeySpace.LEAF, bytes("b"), bytes("staged b again"));
        later.delete(KeySpace.LEAF, bytes("g"));
        view.stage(later.ops());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aReadSeesTheStagedWritesOverTheStoresOwnAndTheStoreStaysAsItWas() {
        assertThat(string(view.get(KeySpace.LEAF, bytes("a")))).isEqualTo("stored a");
        assertThat(string(view.get(KeySpace.LEAF, bytes("b")))).isEqualTo("staged b again");
        assertThat(string(view.get(KeySpace.LEAF, bytes("c")))).isEqualTo("staged c");
        assertThat(view.get(KeySpace.LEAF, bytes("e"))).isNull();
        assertThat(view.get(KeySpace.LEAF, bytes("f"))).isEmpty(); // an empty value is a value
        assertThat(view.get(KeySpace.LEAF, bytes("g"))).isNull();
        assertThat(view.get(KeySpace.INNER_CURRENT, bytes("b"))).isNull(); // other key spaces are the store's
        assertThat(string(store.get(KeySpace.LEAF, bytes("c")))).isEqualTo("stored c");
        assertThat(store.get(KeySpace.LEAF, bytes("b"))).isNull();
    }

    @Test
    void anIteratorMergesBothInKeyOrderWithinItsBounds() {
        assertThat(scan(null, null, "")).containsExactly("a=stored a", "b=staged b again", "c=staged c", "f=");
        assertThat(scan(null, null, "c")).containsExactly("c=staged c", "f=");
        assertThat(scan(null, null, "d")).containsExactly("f=");
        assertThat(scan("b", "f", "")).containsExactly("b=staged b again", "c=staged c");
        assertThat(scan("c", null, "a")).containsExactly("c=staged c", "f=");
        assertThat(scan("g", null, "")).isEmpty();
    }

    @Test
    void itIsReadOnlyAndTakesNoRangeDelete() {
        assertThatThrownBy(() -> view.newBatch()).isInstanceOf(UnsupportedOperationException.class);
        OpsBatch range = new OpsBatch();
        range.deleteRange(KeySpace.LEAF, bytes("a"), bytes("z"));
        assertThatThrownBy(() -> view.stage(range.ops())).isInstanceOf(IllegalArgumentException.class);
    }

    private List<String> scan(String lower, String upper, String from) {
        List<String> seen = new ArrayList<>();
        try (KvIterator iterator = view.iterator(
                KeySpace.LEAF, lower == null ? null : bytes(lower), upper == null ? null : bytes(upper))) {
            iterator.seek(bytes(from));
            while (iterator.isValid()) {
                seen.add(string(iterator.key()) + "=" + string(iterator.value()));
                iterator.next();
            }
        }
        return seen;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
