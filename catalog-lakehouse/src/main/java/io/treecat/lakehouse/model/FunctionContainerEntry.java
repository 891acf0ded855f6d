package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/** {@code /<catalog>/<db>/.functions}: the container a Hive database's functions live under; it holds nothing itself. */
public record FunctionContainerEntry() implements LakeObject {
    @Override
    public BsonDocument encode() {
        return FunctionEntry.container();
    }
}
