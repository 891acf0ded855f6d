package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * A checkpoint of the Hive notification log's id index: the commits before {@code vid} made {@code eventsBefore}
 * Hive events, so the first event of a commit at or after {@code vid} has an id above it. Stored at
 * {@code /<catalog>/.hive_events} (the newest) and as each child {@code /<catalog>/.hive_events/<vid>} (every one
 * still useful), so that the ids stay the same after a restart and after retention removed the commits before them
 * (docs/hms-thrift.md, "Event ids").
 *
 * @param vid the first vid the count leaves out; at least 1
 * @param eventsBefore the Hive events of every commit before {@code vid}; at least 0
 * @param others fields no interface declares, kept as they are
 */
public record HiveEventCheckpointEntry(long vid, long eventsBefore, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED =
            Set.of(LakeKeys.OBJ_TYPE, LakeKeys.CHECKPOINT_VID, LakeKeys.EVENTS_BEFORE);

    public HiveEventCheckpointEntry {
        if (vid < 1 || eventsBefore < 0) {
            throw new IllegalArgumentException(
                    "A checkpoint has a positive vid and a count of at least 0: " + vid + ", " + eventsBefore);
        }
        others = requireNonNull(others, "others is null").clone();
    }

    public static HiveEventCheckpointEntry of(long vid, long eventsBefore) {
        return new HiveEventCheckpointEntry(vid, eventsBefore, new BsonDocument());
    }

    public static HiveEventCheckpointEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_EVENT_CHECKPOINT;
        Fields.requireType(value, type);
        long vid = Fields.counter(value, LakeKeys.CHECKPOINT_VID, type);
        Long events = Fields.int64(value, LakeKeys.EVENTS_BEFORE, type);
        if (events == null) {
            throw Fields.missing(type, LakeKeys.EVENTS_BEFORE, "(the events before the checkpoint)");
        }
        if (events < 0) {
            throw new CatalogException(
                            ErrorCode.INVALID_VALUE,
                            "Invalid " + type.storedName() + " object: field '" + LakeKeys.EVENTS_BEFORE
                                    + "' must not be negative, not " + events)
                    .with("field", LakeKeys.EVENTS_BEFORE);
        }
        return new HiveEventCheckpointEntry(vid, events, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.HIVE_EVENT_CHECKPOINT)
                .int64(LakeKeys.CHECKPOINT_VID, vid)
                .int64(LakeKeys.EVENTS_BEFORE, eventsBefore)
                .with(others);
    }
}
