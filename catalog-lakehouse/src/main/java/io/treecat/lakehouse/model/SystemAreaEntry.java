package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/** {@code /.system} or one of its areas ({@code /.system/principals}); it holds nothing itself. */
public record SystemAreaEntry() implements LakeObject {
    @Override
    public BsonDocument encode() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.SYSTEM_AREA.bson());
    }
}
