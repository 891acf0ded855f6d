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
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Hive transaction records: round trips, strict fields, and the lake validator refusing a bad native write. */
class TestHiveTransactionCodecs {
    @TempDir
    Path directory;

    private static BsonDocument stored(BsonDocument value) {
        return new RawBsonDocument(value, new BsonDocumentCodec());
    }

    @Test
    void everyRecordRoundTripsAndKeepsUndeclaredFields() {
        HiveTransactionsEntry counters =
                HiveTransactionsEntry.initial().withNextTxnId(42).withNextCompactionId(7);
        HiveTransactionEntry txn = HiveTransactionEntry.open("DEFAULT", "alice", "host", 1_000)
                .withHeartbeat(2_000)
                .withWriteId("db.t", 3)
                .withWriteId("db.p", 1)
                .withState(HiveTransactionEntry.State.ABORTED);
        HiveCompactionEntry compaction =
                HiveCompactionEntry.of("db", "p", "ds=1", "initiated", 5_000, new byte[] {1, 2});
        HiveWriteIdsEntry writeIds = HiveWriteIdsEntry.initial().withNextWriteId(9);
        HiveWriteIdEntry writeId = new HiveWriteIdEntry(42);

        BsonDocument withNote = counters.encode().append("native_note", new BsonString("kept"));
        assertThat(HiveTransactionsEntry.decode(stored(withNote)).encode()).isEqualTo(withNote);
        assertThat(HiveTransactionsEntry.decode(stored(counters.encode()))).isEqualTo(counters);
        HiveTransactionEntry decoded = HiveTransactionEntry.decode(stored(txn.encode()));
        assertThat(decoded).isEqualTo(txn);
        assertThat(decoded.writeIds()).isEqualTo(Map.of("db.t", 3L, "db.p", 1L));
        assertThat(decoded.started()).isEqualTo(1_000);
        assertThat(decoded.lastHeartbeat()).isEqualTo(2_000);
        assertThat(decoded.isOpen()).isFalse();
        assertThat(HiveCompactionEntry.decode(stored(compaction.encode()))).isEqualTo(compaction);
        assertThat(HiveWriteIdsEntry.decode(stored(writeIds.encode()))).isEqualTo(writeIds);
        assertThat(HiveWriteIdEntry.decode(stored(writeId.encode()))).isEqualTo(writeId);
        assertThat(txn.encode().getString(LakeKeys.TXN_STATE).getValue()).isEqualTo("aborted");
    }

    @Test
    void aBadFieldIsNamed() {
        assertThatThrownBy(() -> HiveTransactionEntry.decode(HiveTransactionEntry.open("DEFAULT", null, null, 1)
                        .encode()
                        .append(LakeKeys.TXN_STATE, new BsonString("maybe"))))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Invalid hms_txn object: field 'txn_state' must be open, aborted or committed, not 'maybe'");
        assertThatThrownBy(() -> HiveTransactionEntry.decode(HiveTransactionEntry.open("DEFAULT", null, null, 1)
                        .encode()
                        .append(LakeKeys.WRITE_IDS, new BsonDocument("db.t", new BsonString("3")))))
                .hasMessage("Invalid hms_txn object: field 'write_ids.db.t' must be an integer, not string");
        assertThatThrownBy(() -> HiveTransactionsEntry.decode(
                        HiveTransactionsEntry.initial().encode().append(LakeKeys.NEXT_TXN_ID, new BsonInt64(0))))
                .hasMessage("Invalid hms_txns object: field 'next_txn_id' must be positive, not 0");
        assertThatThrownBy(() ->
                        HiveWriteIdsEntry.decode(new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.HIVE_WRITE_IDS.bson())))
                .hasMessage("Invalid hms_write_ids object: field 'next_write_id' is required (a positive integer)");
        assertThatThrownBy(() -> HiveWriteIdEntry.decode(
                        new HiveWriteIdEntry(1).encode().append(LakeKeys.TXN_ID, new BsonString("1"))))
                .hasMessage("Invalid hms_write_id object: field 'txn_id' must be an integer, not string");
        assertThatThrownBy(() ->
                        HiveCompactionEntry.decode(HiveCompactionEntry.of("db", "t", null, "initiated", 1, new byte[0])
                                .encode()
                                .append(LakeKeys.COMPACTION_STATE, new BsonInt32(1))))
                .hasMessage("Invalid hms_compaction object: field 'compaction_state' must be a string, not int32");
        BsonDocument noRequest = HiveCompactionEntry.of("db", "t", null, "initiated", 1, new byte[0])
                .encode();
        noRequest.remove(LakeKeys.HMS_COMPACTION);
        assertThatThrownBy(() -> HiveCompactionEntry.decode(noRequest))
                .hasMessage("Invalid hms_compaction object: field 'hms_compaction' is required for a compaction");
        assertThatThrownBy(() -> HiveTransactionEntry.decode(new HiveWriteIdEntry(1).encode()))
                .hasMessage("Not a hms_txn object: obj_type is 'hms_write_id'");
    }

    @Test
    void theValidatorRefusesABadNativeWriteUnderACatalog() {
        try (CatalogService service = LakeTestStores.open(directory)) {
            service.commit(new WriteSet(List.of(new WriteOp.Add(
                    ObjectPath.of("lake"),
                    ObjectKind.INNER,
                    CatalogEntry.of("file:/w/lake").encode()))));
            ObjectPath txn = ObjectPath.of("lake", LakeKeys.HIVE_TRANSACTIONS_ID);
            BsonDocument bad = HiveTransactionsEntry.initial().encode().append(LakeKeys.NEXT_TXN_ID, new BsonInt64(-3));
            long before = service.lastVid();

            assertThatThrownBy(() -> service.commit(new WriteSet(List.of(new WriteOp.Add(txn, ObjectKind.INNER, bad)))))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage(
                            "Invalid hms_txns object: field 'next_txn_id' must be positive, not -3 at /lake/.hive_txns");
            assertThat(service.lastVid()).isEqualTo(before);
            assertThat(service.get(txn, ReadPoint.LATEST)).isEmpty();
        }
    }
}
