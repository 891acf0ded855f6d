package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * The HMS catalog's lock table, {@code /<catalog>/.hive_locks}: the next lock id to hand out (Hive's {@code
 * NEXT_LOCK_ID}). The counter moves in the commit that takes the lock, so a lock id is never handed out twice, not
 * even across a restart: a client still holding an id from before one finds its own lock or none, never another's.
 *
 * @param nextLockId the next lock id; the first is 1
 * @param others fields no interface declares, kept as they are
 */
public record HiveLocksEntry(long nextLockId, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.NEXT_LOCK_ID);

    public HiveLocksEntry {
        if (nextLockId < 1) {
            throw new IllegalArgumentException("Hive lock ids start at 1: " + nextLockId);
        }
        others = requireNonNull(others, "others is null").clone();
    }

    /** Before the first lock. */
    public static HiveLocksEntry initial() {
        return new HiveLocksEntry(1, new BsonDocument());
    }

    public static HiveLocksEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_LOCKS;
        Fields.requireType(value, type);
        return new HiveLocksEntry(Fields.counter(value, LakeKeys.NEXT_LOCK_ID, type), Fields.others(value, DECLARED));
    }

    public HiveLocksEntry withNextLockId(long next) {
        return new HiveLocksEntry(next, others);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_LOCKS)
                .int64(LakeKeys.NEXT_LOCK_ID, nextLockId)
                .with(others);
    }
}
