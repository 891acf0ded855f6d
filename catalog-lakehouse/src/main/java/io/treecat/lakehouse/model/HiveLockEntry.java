package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * One Hive lock, {@code /<catalog>/.hive_locks/<id>} (Hive's {@code HIVE_LOCKS} rows of one lock id; the id is
 * zero-padded so that id order, the order conflicts are judged in, is path order). An inner object: a heartbeat, a
 * grant or a new blocker changes it. The lock semantics are the HMS interface's; this is what it stores.
 *
 * @param txnId the Hive transaction the lock belongs to; 0 for none
 * @param components what it locks, in request order (names normalized as the HMS interface compares them)
 * @param user who asked; null if not given
 * @param hostname where from; null if not given
 * @param agentInfo the client's agent string; null if not given
 * @param state Hive's {@code LockState} name: {@code WAITING} or {@code ACQUIRED}
 * @param lastHeartbeat its last sign of life, ms since the epoch
 * @param acquiredAt when it was granted, ms since the epoch; 0 while it waits
 * @param heartbeatCount how many heartbeats it had
 * @param blockedBy the lock it waits behind; 0 for none
 * @param blockedByComponent which component of {@code blockedBy} (from 1); 0 for none
 * @param others fields no interface declares, kept as they are
 */
public record HiveLockEntry(
        long txnId,
        List<Component> components,
        String user,
        String hostname,
        String agentInfo,
        String state,
        long lastHeartbeat,
        long acquiredAt,
        long heartbeatCount,
        long blockedBy,
        long blockedByComponent,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.TXN_ID,
            LakeKeys.LOCK_COMPONENTS,
            LakeKeys.USER,
            LakeKeys.HOSTNAME,
            LakeKeys.AGENT_INFO,
            LakeKeys.LOCK_STATE,
            LakeKeys.LAST_HEARTBEAT,
            LakeKeys.ACQUIRED_AT,
            LakeKeys.HEARTBEAT_COUNT,
            LakeKeys.BLOCKED_BY,
            LakeKeys.BLOCKED_BY_COMPONENT);

    /**
     * One component.
     *
     * @param type Hive's {@code LockType} name
     * @param database the database
     * @param table the table; null for a database-level component
     * @param partition the partition name; null above the partition level
     */
    public record Component(String type, String database, String table, String partition) {
        public Component {
            requireNonNull(type, "type is null");
            requireNonNull(database, "database is null");
        }
    }

    public HiveLockEntry {
        components = List.copyOf(components);
        if (components.isEmpty()) {
            throw new IllegalArgumentException("A lock has at least one component");
        }
        requireNonNull(state, "state is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static HiveLockEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_LOCK;
        Fields.requireType(value, type);
        BsonValue list = value.get(LakeKeys.LOCK_COMPONENTS);
        if (list == null || !list.isArray() || list.asArray().isEmpty()) {
            throw Fields.missing(type, LakeKeys.LOCK_COMPONENTS, "(a non-empty array) for a lock");
        }
        List<Component> components = new ArrayList<>();
        for (BsonValue element : list.asArray()) {
            if (!element.isDocument()) {
                throw Fields.invalid(type, LakeKeys.LOCK_COMPONENTS, "an array of documents", element);
            }
            BsonDocument component = element.asDocument();
            String lockType = Fields.string(component, LakeKeys.LOCK_TYPE, type);
            String database = Fields.string(component, LakeKeys.DATABASE, type);
            if (lockType == null || database == null) {
                throw Fields.missing(
                        type,
                        LakeKeys.LOCK_COMPONENTS,
                        "to hold " + LakeKeys.LOCK_TYPE + " and " + LakeKeys.DATABASE + " in every component");
            }
            components.add(new Component(
                    lockType,
                    database,
                    Fields.string(component, LakeKeys.TABLE, type),
                    Fields.string(component, LakeKeys.PARTITION, type)));
        }
        String state = Fields.string(value, LakeKeys.LOCK_STATE, type);
        if (state == null) {
            throw Fields.missing(type, LakeKeys.LOCK_STATE, "for a lock");
        }
        return new HiveLockEntry(
                orZero(Fields.int64(value, LakeKeys.TXN_ID, type)),
                components,
                Fields.string(value, LakeKeys.USER, type),
                Fields.string(value, LakeKeys.HOSTNAME, type),
                Fields.string(value, LakeKeys.AGENT_INFO, type),
                state,
                orZero(Fields.int64(value, LakeKeys.LAST_HEARTBEAT, type)),
                orZero(Fields.int64(value, LakeKeys.ACQUIRED_AT, type)),
                orZero(Fields.int64(value, LakeKeys.HEARTBEAT_COUNT, type)),
                orZero(Fields.int64(value, LakeKeys.BLOCKED_BY, type)),
                orZero(Fields.int64(value, LakeKeys.BLOCKED_BY_COMPONENT, type)),
                Fields.others(value, DECLARED));
    }

    private static long orZero(Long field) {
        return field == null ? 0 : field;
    }

    @Override
    public BsonDocument encode() {
        BsonArray list = new BsonArray();
        for (Component component : components) {
            BsonDocument document = new BsonDocument(LakeKeys.LOCK_TYPE, new BsonString(component.type()))
                    .append(LakeKeys.DATABASE, new BsonString(component.database()));
            if (component.table() != null) {
                document.append(LakeKeys.TABLE, new BsonString(component.table()));
            }
            if (component.partition() != null) {
                document.append(LakeKeys.PARTITION, new BsonString(component.partition()));
            }
            list.add(document);
        }
        return Values.of(ObjectType.HIVE_LOCK)
                .int64(LakeKeys.TXN_ID, txnId)
                .value(LakeKeys.LOCK_COMPONENTS, list)
                .string(LakeKeys.USER, user)
                .string(LakeKeys.HOSTNAME, hostname)
                .string(LakeKeys.AGENT_INFO, agentInfo)
                .string(LakeKeys.LOCK_STATE, state)
                .int64(LakeKeys.LAST_HEARTBEAT, lastHeartbeat)
                .int64(LakeKeys.ACQUIRED_AT, acquiredAt)
                .int64(LakeKeys.HEARTBEAT_COUNT, heartbeatCount)
                .int64(LakeKeys.BLOCKED_BY, blockedBy)
                .int64(LakeKeys.BLOCKED_BY_COMPONENT, blockedByComponent)
                .with(others);
    }
}
