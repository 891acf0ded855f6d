package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/** The idempotency-key record: round trip (undeclared fields kept) and strict fields. */
class TestIdempotencyKeyCodec {
    private static BsonDocument stored(BsonDocument value) {
        return new RawBsonDocument(value, new BsonDocumentCodec());
    }

    @Test
    void roundTripsAndKeepsUndeclaredFields() {
        IdempotencyKeyEntry entry = IdempotencyKeyEntry.of(
                "ab12", 1_000, Map.of("metadata_location", List.of("file:/m.json"), "removed", List.of()));
        assertThat(IdempotencyKeyEntry.decode(stored(entry.encode()))).isEqualTo(entry);
        BsonDocument withNote = entry.encode().append("native_note", new BsonString("kept"));
        assertThat(IdempotencyKeyEntry.decode(stored(withNote)).encode()).isEqualTo(withNote);
        assertThat(new IdempotencyKeysEntry()
                        .encode()
                        .getString(LakeKeys.OBJ_TYPE)
                        .getValue())
                .isEqualTo("idempotency_keys");
    }

    @Test
    void badFieldsNameTheField() {
        BsonDocument noFingerprint = IdempotencyKeyEntry.of("ab12", 1, Map.of()).encode();
        noFingerprint.remove(LakeKeys.FINGERPRINT);
        assertThatThrownBy(() -> IdempotencyKeyEntry.decode(noFingerprint))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid idempotency_key object: field 'fingerprint' is required for an idempotency key");
        BsonDocument badOutcome = IdempotencyKeyEntry.of("ab12", 1, Map.of()).encode();
        badOutcome.put(
                LakeKeys.OUTCOME, new BsonDocument("metadata_location", new BsonArray(List.of(new BsonInt32(1)))));
        assertThatThrownBy(() -> IdempotencyKeyEntry.decode(badOutcome))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid idempotency_key object: field 'outcome.metadata_location' must be an array of"
                        + " strings, not int32");
    }
}
