package io.treecat.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.VersionedTree;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestBulkLoader {
    @TempDir
    Path directory;

    private static BufferedReader lines(String... lines) {
        return new BufferedReader(new StringReader(String.join("\n", lines)));
    }

    @Test
    void loadsInChunksAndReportsProgress() {
        List<String> input = new ArrayList<>();
        input.add("{\"path\": \"/db\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"database\"}}");
        input.add("{\"path\": \"/db/t\", \"kind\": \"inner\"}");
        for (int i = 0; i < 25; i++) {
            input.add("{\"path\": \"/db/t/f" + i + "\", \"kind\": \"leaf\", \"value\": {\"size\": {\"$numberLong\": \""
                    + i + "\"}}}");
        }
        input.add("");
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            List<Long> progress = new ArrayList<>();
            BulkLoader.LoadResult result = new BulkLoader(tree::commit, 10)
                    .load(lines(input.toArray(String[]::new)), (records, vid) -> progress.add(records));
            assertThat(result.records()).isEqualTo(27);
            assertThat(result.commits()).isEqualTo(3);
            assertThat(progress).containsExactly(10L, 20L, 27L);
            assertThat(tree.read(ObjectPath.parse("/db/t/f24"), tree.lastVid())
                            .orElseThrow()
                            .kind())
                    .isEqualTo(ObjectKind.LEAF);
            assertThat(tree.read(ObjectPath.parse("/db/t/f3"), tree.lastVid())
                            .orElseThrow()
                            .value())
                    .isEqualTo(BsonDocument.parse("{size: {$numberLong: '3'}}"));
        }
    }

    @Test
    void aBadRecordNamesItsLineAndLeavesEarlierChunksOnly() {
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            BulkLoader loader = new BulkLoader(tree::commit, 2);
            assertThatThrownBy(() -> loader.load(
                            lines(
                                    "{\"path\": \"/a\", \"kind\": \"inner\"}",
                                    "{\"path\": \"/b\", \"kind\": \"inner\"}",
                                    "{\"path\": \"/c\", \"kind\": \"inner\"}",
                                    "{\"path\": \"/d\", \"kind\": \"tree\"}"),
                            BulkLoader.Progress.NONE))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid record at line 4: \"kind\" must be \"inner\" or \"leaf\", not \"tree\"");
            assertThat(tree.read(ObjectPath.parse("/b"), tree.lastVid())).isPresent();
            assertThat(tree.read(ObjectPath.parse("/c"), tree.lastVid())).isEmpty();
        }
    }

    @Test
    void malformedRecordsAreRejectedWithTheirLine() {
        assertThatThrownBy(() -> BulkLoader.parse("{not json", 7))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Invalid record at line 7: not a JSON object");
        assertThatThrownBy(() -> BulkLoader.parse("{\"kind\": \"leaf\"}", 8))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid record at line 8: \"path\" must be a string");
        assertThatThrownBy(() -> BulkLoader.parse("{\"path\": \"x\", \"kind\": \"leaf\"}", 9))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid record at line 9: Invalid path at position 1: a path starts with '/'");
        assertThatThrownBy(() -> BulkLoader.parse("{\"path\": \"/x\", \"kind\": \"leaf\", \"value\": 3}", 10))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid record at line 10: \"value\" must be an object");
        assertThatThrownBy(() -> BulkLoader.parse("{\"path\": \"/x\", \"kind\": \"leaf\", \"extra\": 1}", 11))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid record at line 11: unknown field \"extra\" (expected path, kind, value)");
        // Found by TestLoadRecordFuzzing: a NUL in a field name is JSON that BSON cannot hold (was a 500).
        assertThatThrownBy(() -> BulkLoader.parse("{\"pa\\u0000th\": \"/x\", \"kind\": \"leaf\"}", 12))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid record at line 12: not a JSON object: "
                        + "BSON cstring 'pa\u0000th' is not valid because it contains a null character at index 2");
        // A raw NUL is not JSON at all: Jackson's reader refuses it before BSON sees it.
        assertThatThrownBy(() -> BulkLoader.parse("{\"pa\u0000th\": \"/x\", \"kind\": \"leaf\"}", 13))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Invalid record at line 13: not a JSON object: Illegal unquoted character");
    }

    @Test
    void aRecordWhosePreconditionFailsStopsTheLoad() {
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            assertThatThrownBy(() -> new BulkLoader(tree::commit, 100)
                            .load(lines("{\"path\": \"/a/b\", \"kind\": \"leaf\"}"), BulkLoader.Progress.NONE))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Parent does not exist: /a");
            assertThat(tree.lastVid()).isZero();
        }
    }

    @Test
    void aLineOverAJsonLimitIsAnInvalidRecordNamingTheLimit() {
        String deep = "{\"path\": \"/x\", \"kind\": \"leaf\", \"value\": " + "{\"a\": ".repeat(2_000) + "1"
                + "}".repeat(2_000) + "}";
        // With a "$" name first, the line takes org.bson's path, which must not see it either.
        String deepExtended = "{\"path\": \"/x\", \"kind\": \"leaf\", \"value\": {\"$date\": 0, \"b\": "
                + "{\"a\": ".repeat(2_000) + "1" + "}".repeat(2_000) + "}}";
        for (String line : new String[] {deep, deepExtended}) {
            assertThatThrownBy(() -> BulkLoader.parse(line, 3))
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LOAD_RECORD);
                        assertThat(e.context())
                                .containsEntry("line", "3")
                                .containsEntry("limit", "http.json.max-depth")
                                .containsEntry("max", "256");
                    })
                    .hasMessage("Invalid record at line 3: JSON nesting is deeper than the limit");
        }
        assertThatThrownBy(() -> BulkLoader.parse("{\"path\": \"/x\", \"kind\": \"leaf\", \"kind\": \"inner\"}", 4))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Invalid record at line 4: not a JSON object: Duplicate field 'kind'");
    }
}
