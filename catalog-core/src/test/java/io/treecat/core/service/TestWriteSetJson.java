package io.treecat.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class TestWriteSetJson {
    @Test
    void roundTripsEveryOp() {
        WriteSet writes = WriteSet.of(
                new WriteOp.Add(
                        ObjectPath.of("db", "a/b"), ObjectKind.LEAF, BsonDocument.parse("{size: {$numberLong: '5'}}")),
                new WriteOp.Update(ObjectPath.of("db"), ObjectKind.INNER, BsonDocument.parse("{owner: 'ann'}")),
                new WriteOp.Merge(ObjectPath.of("db"), BsonDocument.parse("{n: {op: '+', val: 1}}")),
                new WriteOp.Remove(ObjectPath.of("old")),
                new WriteOp.Clone(ObjectPath.of("db"), ObjectPath.of("dev"), 7));
        assertThat(WriteSetJson.parse(WriteSetJson.format(writes), 99)).isEqualTo(writes);
    }

    @Test
    void defaultsKindAndCloneVid() {
        WriteSet writes = WriteSetJson.parse(
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/x\", \"value\": {}}, {\"op\": \"clone\", \"source\": \"/x\", \"path\": \"/y\"}]}",
                12);
        assertThat(writes.ops().get(0))
                .isEqualTo(new WriteOp.Add(ObjectPath.of("x"), ObjectKind.INNER, new BsonDocument()));
        assertThat(writes.ops().get(1)).isEqualTo(new WriteOp.Clone(ObjectPath.of("x"), ObjectPath.of("y"), 12));
    }

    @Test
    void errorsNameTheWrite() {
        assertThatThrownBy(() -> WriteSetJson.parse("{\"writes\": [", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("The write set is not a JSON object");
        assertThatThrownBy(() -> WriteSetJson.parse("{}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("The write set needs a \"writes\" array");
        assertThatThrownBy(() -> WriteSetJson.parse(
                        "{\"writes\": [{\"op\": \"remove\", \"path\": \"/a\"}, {\"op\": \"upsert\", \"path\": \"/b\"}]}",
                        0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid write 1: unknown op \"upsert\" (use add, update, merge, remove or clone)");
        assertThatThrownBy(() ->
                        WriteSetJson.parse("{\"writes\": [{\"op\": \"add\", \"path\": \"a\", \"value\": {}}]}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid write 0: Invalid path at position 1: a path starts with '/'");
        assertThatThrownBy(() -> WriteSetJson.parse("{\"writes\": [{\"op\": \"merge\", \"path\": \"/a\"}]}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid write 0: \"delta\" must be an object");
        assertThatThrownBy(() -> WriteSetJson.parse("{\"writes\": []}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("A write set needs at least one write");
    }

    @Test
    void aWriteSetOverAJsonLimitIsRefusedNamingTheLimit() {
        int depth = 5_000;
        String deep = "{\"writes\": [{\"op\": \"add\", \"path\": \"/x\", \"value\": " + "{\"a\": ".repeat(depth) + "1"
                + "}".repeat(depth) + "}]}";
        assertThatThrownBy(() -> WriteSetJson.parse(deep, 0))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(e.context())
                            .containsEntry("limit", "http.json.max-depth")
                            .containsEntry("max", "256");
                })
                .hasMessage("JSON nesting is deeper than the limit");
        // Up to the limit the values are read as before.
        String atLimit = "{\"writes\": [{\"op\": \"add\", \"path\": \"/x\", \"value\": " + "{\"a\": ".repeat(252) + "1"
                + "}".repeat(252) + "}]}";
        assertThat(WriteSetJson.parse(atLimit, 0).ops()).hasSize(1);
    }

    @Test
    void aWriteSetMustBeStrictJsonWithNoFieldTwice() {
        assertThatThrownBy(() -> WriteSetJson.parse(
                        "{\"writes\": [{\"op\": \"remove\", \"path\": \"/a\", \"path\": \"/b\"}]}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("The write set is not a JSON object: Duplicate field 'path'");
        assertThatThrownBy(() -> WriteSetJson.parse("{writes: [{op: 'remove', path: '/a'}]}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("The write set is not a JSON object");
        assertThatThrownBy(() -> WriteSetJson.parse(
                        "{\"writes\": [{\"op\": \"clone\", \"source\": \"/a\", \"path\": \"/b\", \"vid\": 1.5}]}", 0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid write 0: \"vid\" must be an integer");
    }
}
