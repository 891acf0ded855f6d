package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/** The Hive lock records: round trips (undeclared fields kept) and strict fields. */
class TestHiveLockCodecs {
    private static BsonDocument stored(BsonDocument value) {
        return new RawBsonDocument(value, new BsonDocumentCodec());
    }

    private static HiveLockEntry lock() {
        return new HiveLockEntry(
                8,
                List.of(
                        new HiveLockEntry.Component("EXCLUSIVE", "db", "t", null),
                        new HiveLockEntry.Component("SHARED_READ", "db", "p", "ds=1"),
                        new HiveLockEntry.Component("SHARED_READ", "db", null, null)),
                "alice",
                "host",
                "agent",
                "WAITING",
                2_000,
                0,
                3,
                41,
                2,
                new BsonDocument());
    }

    @Test
    void recordsRoundTripAndKeepUndeclaredFields() {
        HiveLocksEntry counter = HiveLocksEntry.initial().withNextLockId(42);
        assertThat(HiveLocksEntry.decode(stored(counter.encode()))).isEqualTo(counter);
        HiveLockEntry lock = lock();
        assertThat(HiveLockEntry.decode(stored(lock.encode()))).isEqualTo(lock);
        BsonDocument withNote = lock.encode().append("native_note", new BsonString("kept"));
        assertThat(HiveLockEntry.decode(stored(withNote)).encode()).isEqualTo(withNote);
    }

    @Test
    void badFieldsNameTheField() {
        BsonDocument noComponents = lock().encode();
        noComponents.put(LakeKeys.LOCK_COMPONENTS, new BsonArray());
        assertThatThrownBy(() -> HiveLockEntry.decode(noComponents))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid hms_lock object: field 'components' is required (a non-empty array) for a lock");
        BsonDocument noType = lock().encode();
        noType.put(
                LakeKeys.LOCK_COMPONENTS,
                new BsonArray(List.of(new BsonDocument(LakeKeys.DATABASE, new BsonString("db")))));
        assertThatThrownBy(() -> HiveLockEntry.decode(noType))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid hms_lock object: field 'components' is required to hold lock_type and db in every"
                        + " component");
        BsonDocument noState = lock().encode();
        noState.remove(LakeKeys.LOCK_STATE);
        assertThatThrownBy(() -> HiveLockEntry.decode(noState))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid hms_lock object: field 'lock_state' is required for a lock");
        BsonDocument zeroCounter = HiveLocksEntry.initial().encode();
        zeroCounter.put(LakeKeys.NEXT_LOCK_ID, new BsonInt64(0));
        assertThatThrownBy(() -> HiveLocksEntry.decode(zeroCounter))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid hms_locks object: field 'next_lock_id' must be positive, not 0");
    }
}
