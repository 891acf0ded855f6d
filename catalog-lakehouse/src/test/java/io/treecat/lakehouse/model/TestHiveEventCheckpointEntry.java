package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import java.nio.file.Path;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The notification log's checkpoint record: round trip, strict fields, and the validator refusing a bad write. */
class TestHiveEventCheckpointEntry {
    @TempDir
    Path directory;

    private static BsonDocument stored(BsonDocument value) {
        return new RawBsonDocument(value, new BsonDocumentCodec());
    }

    @Test
    void roundTripsAndKeepsUndeclaredFields() {
        HiveEventCheckpointEntry checkpoint = HiveEventCheckpointEntry.of(129, 4_000_000_000L);
        assertThat(HiveEventCheckpointEntry.decode(stored(checkpoint.encode()))).isEqualTo(checkpoint);
        BsonDocument withNote = checkpoint.encode().append("native_note", new BsonString("kept"));
        assertThat(HiveEventCheckpointEntry.decode(stored(withNote)).encode()).isEqualTo(withNote);
        assertThat(HiveEventCheckpointEntry.decode(
                        stored(HiveEventCheckpointEntry.of(1, 0).encode())))
                .isEqualTo(HiveEventCheckpointEntry.of(1, 0));
    }

    @Test
    void badFieldsAreRefusedByName() {
        BsonDocument negative =
                HiveEventCheckpointEntry.of(5, 1).encode().append(LakeKeys.EVENTS_BEFORE, new BsonInt64(-1));
        assertThatThrownBy(() -> HiveEventCheckpointEntry.decode(negative))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid hms_event_checkpoint object: field 'events_before' must not be negative, not -1");
        BsonDocument noVid = HiveEventCheckpointEntry.of(5, 1).encode();
        noVid.remove(LakeKeys.CHECKPOINT_VID);
        assertThatThrownBy(() -> HiveEventCheckpointEntry.decode(noVid))
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("checkpoint_vid");
        BsonDocument text =
                HiveEventCheckpointEntry.of(5, 1).encode().append(LakeKeys.EVENTS_BEFORE, new BsonString("1"));
        assertThatThrownBy(() -> HiveEventCheckpointEntry.decode(text))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Invalid hms_event_checkpoint object: field 'events_before' must be an integer, not string");
        assertThatThrownBy(() -> HiveEventCheckpointEntry.of(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theValidatorRefusesABadNativeWriteUnderACatalog() {
        try (CatalogService service = LakeTestStores.open(directory)) {
            service.commit(new WriteSet(List.of(new WriteOp.Add(
                    ObjectPath.of("lake"),
                    ObjectKind.INNER,
                    CatalogEntry.of("file:/w/lake").encode()))));
            ObjectPath index = ObjectPath.of("lake", LakeKeys.HIVE_EVENTS_ID);
            BsonDocument bad =
                    HiveEventCheckpointEntry.of(3, 2).encode().append(LakeKeys.CHECKPOINT_VID, new BsonInt64(0));
            long before = service.lastVid();

            assertThatThrownBy(
                            () -> service.commit(new WriteSet(List.of(new WriteOp.Add(index, ObjectKind.INNER, bad)))))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage(
                            "Invalid hms_event_checkpoint object: field 'checkpoint_vid' must be positive, not 0 at /lake/.hive_events");
            assertThat(service.lastVid()).isEqualTo(before);
            assertThat(service.get(index, ReadPoint.LATEST)).isEmpty();
        }
    }
}
