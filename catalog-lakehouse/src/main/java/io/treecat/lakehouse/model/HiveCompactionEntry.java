package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * One compaction a Hive client asked for, {@code /<catalog>/.hive_txns/compactions/<id>} (Hive's
 * {@code COMPACTION_QUEUE}). TreeCat runs no compactor: a request stays in the state it was queued in.
 *
 * @param database the table's database
 * @param table the table
 * @param partition the partition's name ({@code k=v/…}); null for the whole table
 * @param state Hive's compaction state as it lists it ({@code initiated})
 * @param enqueued when it was asked for, ms since the epoch
 * @param hiveRequest the Hive {@code CompactionRequest} as sent, Thrift-binary encoded (HMS-owned)
 * @param others fields no interface declares, kept as they are
 */
public record HiveCompactionEntry(
        String database,
        String table,
        String partition,
        String state,
        long enqueued,
        byte[] hiveRequest,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.DATABASE,
            LakeKeys.TABLE,
            LakeKeys.PARTITION,
            LakeKeys.COMPACTION_STATE,
            LakeKeys.ENQUEUED,
            LakeKeys.HMS_COMPACTION);

    public HiveCompactionEntry {
        requireNonNull(database, "database is null");
        requireNonNull(table, "table is null");
        requireNonNull(state, "state is null");
        hiveRequest = requireNonNull(hiveRequest, "hiveRequest is null").clone();
        others = requireNonNull(others, "others is null").clone();
    }

    public static HiveCompactionEntry of(
            String database, String table, String partition, String state, long enqueued, byte[] hiveRequest) {
        return new HiveCompactionEntry(database, table, partition, state, enqueued, hiveRequest, new BsonDocument());
    }

    public static HiveCompactionEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_COMPACTION;
        Fields.requireType(value, type);
        String database = required(Fields.string(value, LakeKeys.DATABASE, type), LakeKeys.DATABASE);
        String table = required(Fields.string(value, LakeKeys.TABLE, type), LakeKeys.TABLE);
        String state = required(Fields.string(value, LakeKeys.COMPACTION_STATE, type), LakeKeys.COMPACTION_STATE);
        byte[] request = required(Fields.binary(value, LakeKeys.HMS_COMPACTION, type), LakeKeys.HMS_COMPACTION);
        Long enqueued = Fields.int64(value, LakeKeys.ENQUEUED, type);
        return new HiveCompactionEntry(
                database,
                table,
                Fields.string(value, LakeKeys.PARTITION, type),
                state,
                enqueued == null ? 0 : enqueued,
                request,
                Fields.others(value, DECLARED));
    }

    private static <T> T required(T field, String key) {
        if (field == null) {
            throw Fields.missing(ObjectType.HIVE_COMPACTION, key, "for a compaction");
        }
        return field;
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_COMPACTION)
                .string(LakeKeys.DATABASE, database)
                .string(LakeKeys.TABLE, table)
                .string(LakeKeys.PARTITION, partition)
                .string(LakeKeys.COMPACTION_STATE, state)
                .int64(LakeKeys.ENQUEUED, enqueued)
                .binary(LakeKeys.HMS_COMPACTION, hiveRequest)
                .with(others);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HiveCompactionEntry entry && encode().equals(entry.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }

    @Override
    public String toString() {
        return "HiveCompactionEntry" + encode().toJson();
    }
}
