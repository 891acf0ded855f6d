package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * A table's Hive write ids, {@code /<catalog>/<db>/<table>/.hive_write_ids}: the next one to hand out (Hive's
 * {@code NEXT_WRITE_ID}); below it, one {@link HiveWriteIdEntry} leaf per write id handed out (Hive's
 * {@code TXN_TO_WRITE_ID}). Below the table, so a drop removes them and a rename moves them, as Hive's metastore
 * cleans and renames its rows.
 *
 * @param nextWriteId the next write id; the first is 1
 * @param others fields no interface declares, kept as they are
 */
public record HiveWriteIdsEntry(long nextWriteId, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.NEXT_WRITE_ID);

    public HiveWriteIdsEntry {
        if (nextWriteId < 1) {
            throw new IllegalArgumentException("Hive write ids start at 1: " + nextWriteId);
        }
        others = requireNonNull(others, "others is null").clone();
    }

    /** Before the table's first write id. */
    public static HiveWriteIdsEntry initial() {
        return new HiveWriteIdsEntry(1, new BsonDocument());
    }

    public static HiveWriteIdsEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        Fields.requireType(value, ObjectType.HIVE_WRITE_IDS);
        return new HiveWriteIdsEntry(
                Fields.counter(value, LakeKeys.NEXT_WRITE_ID, ObjectType.HIVE_WRITE_IDS),
                Fields.others(value, DECLARED));
    }

    public HiveWriteIdsEntry withNextWriteId(long next) {
        return new HiveWriteIdsEntry(next, others);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_WRITE_IDS)
                .int64(LakeKeys.NEXT_WRITE_ID, nextWriteId)
                .with(others);
    }
}
