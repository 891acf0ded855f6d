package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

/**
 * One Hive transaction: {@code /<catalog>/.hive_txns/txns/<id>} while open or aborted,
 * {@code /<catalog>/.hive_txns/committed/<id>} once committed (the id is the transaction id, zero-padded so that
 * id order is numeric order). An aborted transaction stays where it was: readers must go on skipping what it wrote,
 * and with no compactor its files stay.
 *
 * @param state open, aborted or committed
 * @param txnType Hive's transaction type by name ({@code DEFAULT}, {@code READ_ONLY}, …)
 * @param user who opened it; null if not given
 * @param hostname where it was opened; null if not given
 * @param started when it was opened, ms since the epoch
 * @param lastHeartbeat its last sign of life (opening, a heartbeat), ms since the epoch
 * @param writeIds the write ids it was given: {@code <db>.<table>} → write id
 * @param others fields no interface declares, kept as they are
 */
public record HiveTransactionEntry(
        State state,
        String txnType,
        String user,
        String hostname,
        long started,
        long lastHeartbeat,
        Map<String, Long> writeIds,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.TXN_STATE,
            LakeKeys.TXN_TYPE,
            LakeKeys.USER,
            LakeKeys.HOSTNAME,
            LakeKeys.STARTED,
            LakeKeys.LAST_HEARTBEAT,
            LakeKeys.WRITE_IDS);

    /** A transaction's state; the stored names are part of the on-disk format. */
    public enum State {
        OPEN("open"),
        ABORTED("aborted"),
        COMMITTED("committed");

        private final String storedName;

        State(String storedName) {
            this.storedName = storedName;
        }

        public String storedName() {
            return storedName;
        }

        static State fromStoredName(String name) {
            for (State state : values()) {
                if (state.storedName.equals(name)) {
                    return state;
                }
            }
            throw new CatalogException(
                            ErrorCode.INVALID_VALUE,
                            "Invalid " + ObjectType.HIVE_TRANSACTION.storedName() + " object: field '"
                                    + LakeKeys.TXN_STATE + "' must be open, aborted or committed, not '" + name + "'")
                    .with("field", LakeKeys.TXN_STATE);
        }
    }

    public HiveTransactionEntry {
        requireNonNull(state, "state is null");
        requireNonNull(txnType, "txnType is null");
        writeIds = Map.copyOf(requireNonNull(writeIds, "writeIds is null"));
        others = requireNonNull(others, "others is null").clone();
    }

    /** A transaction just opened at {@code now}. */
    public static HiveTransactionEntry open(String txnType, String user, String hostname, long now) {
        return new HiveTransactionEntry(State.OPEN, txnType, user, hostname, now, now, Map.of(), new BsonDocument());
    }

    public static HiveTransactionEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.HIVE_TRANSACTION;
        Fields.requireType(value, type);
        String state = Fields.string(value, LakeKeys.TXN_STATE, type);
        String txnType = Fields.string(value, LakeKeys.TXN_TYPE, type);
        if (state == null) {
            throw Fields.missing(type, LakeKeys.TXN_STATE, "for a transaction");
        }
        if (txnType == null) {
            throw Fields.missing(type, LakeKeys.TXN_TYPE, "for a transaction");
        }
        Long started = Fields.int64(value, LakeKeys.STARTED, type);
        Long lastHeartbeat = Fields.int64(value, LakeKeys.LAST_HEARTBEAT, type);
        return new HiveTransactionEntry(
                State.fromStoredName(state),
                txnType,
                Fields.string(value, LakeKeys.USER, type),
                Fields.string(value, LakeKeys.HOSTNAME, type),
                started == null ? 0 : started,
                lastHeartbeat == null ? 0 : lastHeartbeat,
                Fields.longMap(value, LakeKeys.WRITE_IDS, type),
                Fields.others(value, DECLARED));
    }

    public boolean isOpen() {
        return state == State.OPEN;
    }

    public HiveTransactionEntry withState(State next) {
        return new HiveTransactionEntry(next, txnType, user, hostname, started, lastHeartbeat, writeIds, others);
    }

    public HiveTransactionEntry withHeartbeat(long now) {
        return new HiveTransactionEntry(state, txnType, user, hostname, started, now, writeIds, others);
    }

    /** With write id {@code writeId} of table {@code table} ({@code <db>.<table>}). */
    public HiveTransactionEntry withWriteId(String table, long writeId) {
        Map<String, Long> next = new LinkedHashMap<>(writeIds);
        next.put(table, writeId);
        return new HiveTransactionEntry(state, txnType, user, hostname, started, lastHeartbeat, next, others);
    }

    @Override
    public BsonDocument encode() {
        BsonDocument ids = new BsonDocument();
        writeIds.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> ids.put(entry.getKey(), new BsonInt64(entry.getValue())));
        return Values.of(ObjectType.HIVE_TRANSACTION)
                .string(LakeKeys.TXN_STATE, state.storedName())
                .string(LakeKeys.TXN_TYPE, txnType)
                .string(LakeKeys.USER, user)
                .string(LakeKeys.HOSTNAME, hostname)
                .int64(LakeKeys.STARTED, started)
                .int64(LakeKeys.LAST_HEARTBEAT, lastHeartbeat)
                .value(LakeKeys.WRITE_IDS, ids)
                .with(others);
    }
}
