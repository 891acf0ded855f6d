package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * The HMS catalog's Hive transaction counters, {@code /<catalog>/.hive_txns}: the next transaction id and the next
 * compaction id to hand out. Every id handed out moves its counter in the same commit, so ids are unique and
 * increase across restarts; two clients drawing at once both read the counter, and the later commit fails validation
 * and draws again.
 *
 * @param nextTxnId the next transaction id (Hive's {@code NEXT_TXN_ID}); the first is 1
 * @param nextCompactionId the next compaction id; the first is 1
 * @param others fields no interface declares, kept as they are
 */
public record HiveTransactionsEntry(long nextTxnId, long nextCompactionId, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED =
            Set.of(LakeKeys.OBJ_TYPE, LakeKeys.NEXT_TXN_ID, LakeKeys.NEXT_COMPACTION_ID);

    public HiveTransactionsEntry {
        if (nextTxnId < 1 || nextCompactionId < 1) {
            throw new IllegalArgumentException(
                    "Hive transaction counters start at 1: " + nextTxnId + ", " + nextCompactionId);
        }
        others = requireNonNull(others, "others is null").clone();
    }

    /** Before the first transaction. */
    public static HiveTransactionsEntry initial() {
        return new HiveTransactionsEntry(1, 1, new BsonDocument());
    }

    public static HiveTransactionsEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_TRANSACTIONS;
        Fields.requireType(value, type);
        return new HiveTransactionsEntry(
                Fields.counter(value, LakeKeys.NEXT_TXN_ID, type),
                Fields.counter(value, LakeKeys.NEXT_COMPACTION_ID, type),
                Fields.others(value, DECLARED));
    }

    public HiveTransactionsEntry withNextTxnId(long next) {
        return new HiveTransactionsEntry(next, nextCompactionId, others);
    }

    public HiveTransactionsEntry withNextCompactionId(long next) {
        return new HiveTransactionsEntry(nextTxnId, next, others);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_TRANSACTIONS)
                .int64(LakeKeys.NEXT_TXN_ID, nextTxnId)
                .int64(LakeKeys.NEXT_COMPACTION_ID, nextCompactionId)
                .with(others);
    }
}
