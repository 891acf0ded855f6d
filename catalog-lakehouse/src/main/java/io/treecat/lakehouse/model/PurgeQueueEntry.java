package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/** A catalog's queue of table purges, {@code /<catalog>/.purges}; the purges are its children ({@link PurgeEntry}). */
public record PurgeQueueEntry() implements LakeObject {
    @Override
    public BsonDocument encode() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.PURGE_QUEUE.bson());
    }
}
