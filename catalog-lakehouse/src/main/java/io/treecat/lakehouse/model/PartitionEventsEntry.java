package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * {@code /<catalog>/<db>/<table>/.partition_events}: the marks Hive's {@code markPartitionForEvent} left on a
 * table's partitions (Hive's {@code PARTITION_EVENTS} rows), one per partition and event type, the latest time
 * kept. A mark names a partition that need not exist, as in Hive; the object lives and goes with its table.
 *
 * @param marks in the order they were first made
 * @param others fields no interface declares, kept as they are
 */
public record PartitionEventsEntry(List<Mark> marks, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.EVENTS);

    /**
     * One mark.
     *
     * @param partition Hive's escaped partition name ({@code ds=1/hr=2}); empty for an unpartitioned table
     * @param eventType Hive's {@code PartitionEventType} name ({@code LOAD_DONE})
     * @param time when it was (last) made, ms since the epoch
     */
    public record Mark(String partition, String eventType, long time) {
        public Mark {
            requireNonNull(partition, "partition is null");
            requireNonNull(eventType, "eventType is null");
        }

        boolean sameEvent(String otherPartition, String otherType) {
            return partition.equals(otherPartition) && eventType.equals(otherType);
        }
    }

    public PartitionEventsEntry {
        marks = List.copyOf(marks);
        others = requireNonNull(others, "others is null").clone();
    }

    /** A table with no marks yet. */
    public static PartitionEventsEntry empty() {
        return new PartitionEventsEntry(List.of(), new BsonDocument());
    }

    /** Whether {@code partition} carries a mark of {@code eventType}. */
    public boolean isMarked(String partition, String eventType) {
        return marks.stream().anyMatch(mark -> mark.sameEvent(partition, eventType));
    }

    /** These marks with {@code mark} added, or replacing the mark of the same partition and event type. */
    public PartitionEventsEntry withMark(Mark mark) {
        List<Mark> updated = new ArrayList<>(marks.size() + 1);
        boolean replaced = false;
        for (Mark existing : marks) {
            if (existing.sameEvent(mark.partition(), mark.eventType())) {
                updated.add(mark);
                replaced = true;
            } else {
                updated.add(existing);
            }
        }
        if (!replaced) {
            updated.add(mark);
        }
        return new PartitionEventsEntry(updated, others);
    }

    public static PartitionEventsEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.PARTITION_EVENTS;
        Fields.requireType(value, type);
        BsonValue events = value.get(LakeKeys.EVENTS);
        List<Mark> marks = new ArrayList<>();
        if (events != null && !events.isNull()) {
            if (!events.isArray()) {
                throw Fields.invalid(type, LakeKeys.EVENTS, "an array", events);
            }
            for (BsonValue event : events.asArray()) {
                if (!event.isDocument()) {
                    throw Fields.invalid(type, LakeKeys.EVENTS, "an array of documents", event);
                }
                BsonDocument mark = event.asDocument();
                String partition = Fields.string(mark, LakeKeys.EVENT_PARTITION, type);
                String eventType = Fields.string(mark, LakeKeys.EVENT_TYPE, type);
                Long time = Fields.int64(mark, LakeKeys.EVENT_TIME, type);
                if (partition == null || eventType == null || time == null) {
                    throw Fields.missing(
                            type,
                            LakeKeys.EVENTS,
                            "to hold " + LakeKeys.EVENT_PARTITION + ", " + LakeKeys.EVENT_TYPE + " and "
                                    + LakeKeys.EVENT_TIME + " in every mark");
                }
                marks.add(new Mark(partition, eventType, time));
            }
        }
        return new PartitionEventsEntry(marks, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        BsonArray events = new BsonArray();
        for (Mark mark : marks) {
            events.add(new BsonDocument(LakeKeys.EVENT_PARTITION, new BsonString(mark.partition()))
                    .append(LakeKeys.EVENT_TYPE, new BsonString(mark.eventType()))
                    .append(LakeKeys.EVENT_TIME, new BsonInt64(mark.time())));
        }
        return Values.of(ObjectType.PARTITION_EVENTS)
                .value(LakeKeys.EVENTS, events)
                .with(others);
    }
}
