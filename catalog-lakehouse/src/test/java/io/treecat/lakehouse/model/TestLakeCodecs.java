package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class TestLakeCodecs {
    private static final IcebergPointer POINTER = new IcebergPointer(
            "file:/w/ns/t/metadata/00001-a.metadata.json", 2, "u-1", 42L, "file:/w/ns/t", Map.of("k", "v"));

    @Test
    void aTableRoundTripsWithEveryField() {
        TableEntry table = TableEntry.hive(new byte[] {1, 2, 3}, "MANAGED_TABLE", "file:/w/ns/t", null)
                .withIceberg(POINTER)
                .withColumnStatistics(new BsonDocument("c", new BsonString("x")), 7L)
                .withHiveConstraints(new byte[] {4}, new byte[] {5, 6});
        BsonDocument encoded = table.encode().append("native_note", new BsonString("kept"));

        TableEntry decoded = TableEntry.decode(encoded);

        assertThat(decoded.encode()).isEqualTo(encoded);
        assertThat(decoded.icebergPointer()).contains(POINTER);
        assertThat(decoded.hiveTable()).containsExactly(1, 2, 3);
        assertThat(decoded.hiveConstraints()).containsExactly(4);
        assertThat(decoded.hiveReferencedBy()).containsExactly(5, 6);
        assertThat(decoded.others()).isEqualTo(new BsonDocument("native_note", new BsonString("kept")));
    }

    @Test
    void aHiveViewReadsTheStoredBytesAsDecodeDoes() {
        TableEntry table = TableEntry.hive(new byte[] {1, 2, 3}, "MANAGED_TABLE", "file:/w/ns/t", null)
                .withIceberg(POINTER)
                .withColumnStatistics(new BsonDocument("c", new BsonString("x")), 7L);
        RawBsonDocument stored = new RawBsonDocument(table.encode(), new BsonDocumentCodec());

        TableEntry.HiveView view = TableEntry.hiveViewOf(stored).orElseThrow();

        assertThat(view.location()).isEqualTo("file:/w/ns/t");
        assertThat(view.metadataLocation()).isEqualTo(POINTER.metadataLocation());
        assertThat(view.hiveTable()).containsExactly(1, 2, 3);
        assertThat(TableEntry.hiveViewOf(table.encode()).orElseThrow().hiveTable())
                .containsExactly(1, 2, 3);
        assertThat(TableEntry.hiveViewOf(new RawBsonDocument(
                        NamespaceEntry.decode(new BsonDocument("obj_type", new BsonString("namespace")))
                                .encode(),
                        new BsonDocumentCodec())))
                .isEmpty();
        assertThatThrownBy(() -> TableEntry.hiveViewOf(new RawBsonDocument(
                        table.encode().append("location", new BsonInt32(3)), new BsonDocumentCodec())))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid table object: field 'location' must be a string, not int32");
    }

    @Test
    void aRestCommitKeepsWhatHiveWrote() {
        TableEntry hive = TableEntry.hive(new byte[] {9}, "EXTERNAL_TABLE", "file:/w/ns/t", "file:/old.json")
                .withColumnStatistics(new BsonDocument("c", new BsonInt64(1)), 5L)
                .withHiveConstraints(new byte[] {7}, new byte[] {8});

        TableEntry committed = TableEntry.decode(hive.encode()).withIceberg(POINTER);

        assertThat(committed.hiveTable()).containsExactly(9);
        assertThat(committed.hiveConstraints()).containsExactly(7);
        assertThat(committed.hiveReferencedBy()).containsExactly(8);
        assertThat(committed.tableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(committed.columnStatistics()).isEqualTo(new BsonDocument("c", new BsonInt64(1)));
        assertThat(committed.metadataLocation()).isEqualTo(POINTER.metadataLocation());
    }

    @Test
    void anIcebergTableWithoutSnapshotStoresAnExplicitNull() {
        BsonDocument encoded = TableEntry.iceberg(new IcebergPointer("file:/m.json", 2, "u", null, "file:/t", Map.of()))
                .encode();

        assertThat(encoded.get(LakeKeys.CURRENT_SNAPSHOT_ID)).isEqualTo(BsonNull.VALUE);
        assertThat(TableEntry.decode(encoded).currentSnapshotId()).isNull();
    }

    @Test
    void aFieldOfTheWrongTypeIsNamed() {
        BsonDocument value = new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("table"))
                .append(LakeKeys.METADATA_LOCATION, new BsonInt32(3));

        assertThatThrownBy(() -> TableEntry.decode(value))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid table object: field 'metadata_location' must be a string, not int32");
    }

    @Test
    void aNonStringPropertyIsNamedWithItsKey() {
        BsonDocument value = new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("namespace"))
                .append(LakeKeys.PROPERTIES, new BsonDocument("owner", new BsonInt32(1)));

        assertThatThrownBy(() -> NamespaceEntry.decode(value))
                .hasMessage("Invalid namespace object: field 'properties.owner' must be a string, not int32");
    }

    @Test
    void aValueOfAnotherTypeIsRefused() {
        assertThatThrownBy(() -> NamespaceEntry.decode(new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("table"))))
                .hasMessage("Not a namespace object: obj_type is 'table'");
    }

    @Test
    void namespacesViewsCatalogsAndPartitionsRoundTrip() {
        NamespaceEntry namespace = NamespaceEntry.of(Map.of(NamespaceEntry.COMMENT, "sales"));
        ViewEntry view = ViewEntry.of(POINTER);
        CatalogEntry catalog = CatalogEntry.of("file:/w/cat");
        PartitionEntry level = PartitionEntry.hiveLevel("ds", "2025-01-01", null)
                .withHivePartition(new byte[] {4}, "file:/w/t/ds=2025-01-01");
        PartitionEntry icebergPartition =
                PartitionEntry.icebergPartition(0, new BsonDocument("day", new BsonInt32(3)), "day=3");

        assertThat(NamespaceEntry.decode(namespace.encode())).isEqualTo(namespace);
        assertThat(ViewEntry.decode(view.encode()).encode()).isEqualTo(view.encode());
        assertThat(CatalogEntry.decode(catalog.encode()).encode()).isEqualTo(catalog.encode());
        assertThat(PartitionEntry.decode(level.encode())).isEqualTo(level);
        assertThat(PartitionEntry.decode(icebergPartition.encode())).isEqualTo(icebergPartition);
        assertThat(level.encode().getBinary(LakeKeys.HMS_PARTITION)).isEqualTo(new BsonBinary(new byte[] {4}));
    }

    @Test
    void aViewWithoutItsMetadataFileIsRefused() {
        assertThatThrownBy(() -> ViewEntry.decode(new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("view"))))
                .hasMessage("Invalid view object: field 'metadata_location' is required (a view is its metadata file)");
    }
}
