package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/**
 * One write id handed out, a leaf under its table's {@link HiveWriteIdsEntry} whose id is the write id: the
 * transaction it was handed to. Never changed: whether the write counts is the transaction's state as a reader's
 * snapshot has it.
 *
 * @param txnId the Hive transaction the write id belongs to
 */
public record HiveWriteIdEntry(long txnId) implements LakeObject {
    public HiveWriteIdEntry {
        if (txnId < 1) {
            throw new IllegalArgumentException("Invalid Hive transaction id: " + txnId);
        }
    }

    public static HiveWriteIdEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        Fields.requireType(value, ObjectType.HIVE_WRITE_ID);
        return new HiveWriteIdEntry(Fields.counter(value, LakeKeys.TXN_ID, ObjectType.HIVE_WRITE_ID));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_WRITE_ID).int64(LakeKeys.TXN_ID, txnId).with(new BsonDocument());
    }
}
