package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class TestMergeDelta {
    @Test
    void thePapersExample() {
        BsonDocument original = BsonDocument.parse("{size: 1487, min: 3, name: 'x'}");
        BsonDocument delta = BsonDocument.parse("{size: {op: '+', val: 124}, min: {op: 'min', val: 0}}");
        assertThat(MergeDelta.apply(original, delta)).isEqualTo(BsonDocument.parse("{size: 1611, min: 0, name: 'x'}"));
    }

    @Test
    void nestedFieldsAndMissingFields() {
        BsonDocument original = BsonDocument.parse("{stats: {price: {min: 5, max: 9}, rows: 10}}");
        BsonDocument delta = BsonDocument.parse(
                "{stats: {price: {min: {op: 'min', val: 2}, max: {op: 'max', val: 7}}, rows: {op: '-', val: 4}, files: {op: '+', val: 1}}, owner: 'ann'}");
        assertThat(MergeDelta.apply(original, delta))
                .isEqualTo(BsonDocument.parse("{stats: {price: {min: 2, max: 9}, rows: 6, files: 1}, owner: 'ann'}"));
        assertThat(MergeDelta.apply(new BsonDocument(), BsonDocument.parse("{n: {op: '-', val: 3}}")))
                .isEqualTo(BsonDocument.parse("{n: -3}"));
    }

    @Test
    void numericTypesWiden() {
        BsonDocument intMax = BsonDocument.parse("{n: 2147483647}");
        assertThat(MergeDelta.apply(intMax, BsonDocument.parse("{n: {op: '+', val: 1}}"))
                        .get("n")
                        .isInt64())
                .isTrue();
        assertThat(MergeDelta.apply(intMax, BsonDocument.parse("{n: {op: '+', val: 0.5}}"))
                        .get("n")
                        .asDouble()
                        .getValue())
                .isEqualTo(2147483647.5);
        assertThat(MergeDelta.apply(
                        BsonDocument.parse("{d: '2025-01-02'}"),
                        BsonDocument.parse("{d: {op: 'min', val: '2025-01-01'}}")))
                .isEqualTo(BsonDocument.parse("{d: '2025-01-01'}"));
    }

    @Test
    void badDeltasSayWhatAndWhere() {
        assertThatThrownBy(() -> MergeDelta.apply(
                        BsonDocument.parse("{a: {b: 1}}"), BsonDocument.parse("{a: {b: {op: '*', val: 2}}}")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Unknown merge operator '*' (use +, -, min or max)")
                .extracting(e -> ((CatalogException) e).context().get("field"))
                .isEqualTo("a.b");
        assertThatThrownBy(() -> MergeDelta.apply(
                        BsonDocument.parse("{a: 'text'}"), BsonDocument.parse("{a: {op: '+', val: 2}}")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Merge cannot do arithmetic on this field at field 'a'")
                .extracting(e -> ((CatalogException) e).code())
                .isEqualTo(ErrorCode.MERGE_TYPE_MISMATCH);
        assertThatThrownBy(() ->
                        MergeDelta.apply(BsonDocument.parse("{a: 1}"), BsonDocument.parse("{a: {op: '+', val: 'x'}}")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Merge operand has the wrong type at field 'a'");
        assertThatThrownBy(() -> MergeDelta.apply(
                        BsonDocument.parse("{n: 9223372036854775807}"), BsonDocument.parse("{n: {op: '+', val: 1}}")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Merge overflows a 64-bit integer");
    }
}
