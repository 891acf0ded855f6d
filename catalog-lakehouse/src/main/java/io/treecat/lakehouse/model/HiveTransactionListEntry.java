package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/**
 * A list under the Hive transaction counters ({@code /<catalog>/.hive_txns/txns}, {@code …/committed},
 * {@code …/compactions}); it holds nothing itself.
 */
public record HiveTransactionListEntry() implements LakeObject {
    @Override
    public BsonDocument encode() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.HIVE_TRANSACTION_LIST.bson());
    }
}
