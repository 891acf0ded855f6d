package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/** The area of idempotency-key records, {@code /.idempotency_keys}; it holds nothing itself. */
public record IdempotencyKeysEntry() implements LakeObject {
    @Override
    public BsonDocument encode() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.IDEMPOTENCY_KEYS.bson());
    }
}
