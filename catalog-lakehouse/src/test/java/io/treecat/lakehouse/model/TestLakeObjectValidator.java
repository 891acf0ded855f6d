package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Native commits on a real store with the validator the server installs. */
class TestLakeObjectValidator {
    private static final ObjectPath TABLE = ObjectPath.of("lake", "ns", "t");

    @TempDir
    Path directory;

    private CatalogService service;

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory);
        commit(
                new WriteOp.Add(
                        ObjectPath.of("lake"),
                        ObjectKind.INNER,
                        CatalogEntry.of("file:/w/lake").encode()),
                new WriteOp.Add(
                        ObjectPath.of("lake", "ns"),
                        ObjectKind.INNER,
                        NamespaceEntry.of(Map.of()).encode()));
    }

    @AfterEach
    void close() {
        service.close();
    }

    private void commit(WriteOp... writes) {
        service.commit(new WriteSet(List.of(writes)));
    }

    private static BsonDocument table() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("table"));
    }

    @Test
    void aTableNoInterfaceCanLoadIsRefusedAndNothingIsWritten() {
        long before = service.lastVid();

        assertThatThrownBy(() -> commit(new WriteOp.Add(TABLE, ObjectKind.INNER, table())))
                .isInstanceOf(CatalogException.class)
                .hasMessage(
                        "Invalid table object: field 'metadata_location' is required (or hms_table): without either no interface can load the table at /lake/ns/t");
        assertThat(service.lastVid()).isEqualTo(before);
        assertThat(service.get(TABLE, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void aFieldOfTheWrongTypeIsRefusedWithItsName() {
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        TABLE, ObjectKind.INNER, table().append(LakeKeys.METADATA_LOCATION, new BsonInt32(1)))))
                .hasMessage("Invalid table object: field 'metadata_location' must be a string, not int32 at /lake/ns/t")
                .satisfies(e -> assertThat(((CatalogException) e).context())
                        .containsEntry("field", "metadata_location")
                        .containsEntry("path", "/lake/ns/t"));
    }

    @Test
    void hiveConstraintsMustBeBinary() {
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        TABLE,
                        ObjectKind.INNER,
                        table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/m.json"))
                                .append(LakeKeys.HMS_CONSTRAINTS, new BsonString("pk")))))
                .hasMessage("Invalid table object: field 'hms_constraints' must be binary, not string at /lake/ns/t");
        assertThat(service.get(TABLE, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void aReadableTableAndAnyOtherObjectAreAccepted() {
        commit(
                new WriteOp.Add(
                        TABLE,
                        ObjectKind.INNER,
                        table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/m.json"))),
                new WriteOp.Add(
                        ObjectPath.of("lake", "ns", "notes"),
                        ObjectKind.INNER,
                        new BsonDocument("text", new BsonString("free form"))));

        assertThat(service.get(TABLE, ReadPoint.LATEST)).isPresent();
    }

    @Test
    void aTableCannotBecomeSomethingElse() {
        commit(new WriteOp.Add(
                TABLE, ObjectKind.INNER, table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/m.json"))));

        assertThatThrownBy(() ->
                        commit(new WriteOp.Update(TABLE, ObjectKind.INNER, new BsonDocument("x", new BsonInt32(1)))))
                .hasMessage("A table cannot change its obj_type (to none); drop it first at /lake/ns/t");
    }

    @Test
    void aLakeObjectIsNeverALeaf() {
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("lake", "ns2"),
                        ObjectKind.LEAF,
                        NamespaceEntry.of(Map.of()).encode())))
                .hasMessage("A namespace must be an inner object, not a leaf at /lake/ns2");
    }

    @Test
    void outsideCatalogsTheNativeModelIsFree() {
        commit(
                new WriteOp.Add(
                        ObjectPath.of("retail"),
                        ObjectKind.INNER,
                        new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("database"))),
                new WriteOp.Add(ObjectPath.of("retail", "sales"), ObjectKind.INNER, table()));

        assertThat(service.get(ObjectPath.of("retail", "sales"), ReadPoint.LATEST))
                .isPresent();
    }

    @Test
    void aCatalogMadeInTheSameWriteSetCountsAndABadOneIsRefused() {
        assertThatThrownBy(() -> commit(
                        new WriteOp.Add(
                                ObjectPath.of("other"),
                                ObjectKind.INNER,
                                CatalogEntry.of("file:/o").encode()),
                        new WriteOp.Add(ObjectPath.of("other", "t"), ObjectKind.INNER, table())))
                .hasMessageContaining("field 'metadata_location' is required");
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("bad"),
                        ObjectKind.INNER,
                        new BsonDocument(LakeKeys.OBJ_TYPE, new BsonString("catalog"))
                                .append(LakeKeys.LOCATION, new BsonInt32(1)))))
                .hasMessage("Invalid catalog object: field 'location' must be a string, not int32 at /bad");
    }

    @Test
    void aPartitionLevelIsCheckedFieldByField() {
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("lake", "ns", "p=1"),
                        ObjectKind.INNER,
                        PartitionEntry.hiveLevel("p", "1", null)
                                .encode()
                                .append(LakeKeys.PART_NUM, new BsonString("one")))))
                .hasMessage(
                        "Invalid partition object: field 'part_num' must be an integer, not string at /lake/ns/p=1");
        commit(new WriteOp.Add(
                ObjectPath.of("lake", "ns", "p=1"),
                ObjectKind.INNER,
                PartitionEntry.hiveLevel("p", "1", 1L).encode()));

        assertThat(service.get(ObjectPath.of("lake", "ns", "p=1"), ReadPoint.LATEST))
                .isPresent();
    }

    @Test
    void aNewLakeObjectsNameFollowsTheLakesRuleWhoeverWritesIt() {
        long before = service.lastVid();
        for (String name : List.of("..", "../x", "c\u001Fd", "a".repeat(256))) {
            assertThatThrownBy(() -> commit(new WriteOp.Add(
                            ObjectPath.of("lake", name),
                            ObjectKind.INNER,
                            NamespaceEntry.of(Map.of()).encode())))
                    .as(name)
                    .isInstanceOfSatisfying(
                            CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME))
                    .hasMessageStartingWith("Invalid namespace name: ");
        }
        // An upsert that makes a table is a new name too; so is a catalog.
        assertThatThrownBy(() -> commit(new WriteOp.Update(
                        ObjectPath.of("lake", "ns", ".."),
                        ObjectKind.INNER,
                        table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/m.json")))))
                .hasMessage("Invalid table name: it is '.' or '..', or has such a part between slashes");
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("."),
                        ObjectKind.INNER,
                        CatalogEntry.of("file:/w").encode())))
                .hasMessage("Invalid catalog name: it is '.' or '..', or has such a part between slashes");
        assertThat(service.lastVid()).isEqualTo(before);

        // What is no catalog, namespace, table or view keeps the native model's freedom.
        commit(new WriteOp.Add(
                ObjectPath.of("lake", "ns", "a\u0001b"), ObjectKind.INNER, new BsonDocument("n", new BsonInt32(1))));
    }

    @Test
    void aLocationAnObjectDeclaresIsCheckedWhenItIsMadeOrChanged() {
        BsonDocument escaping =
                table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/w/lake/ns/../../../m.json"));
        assertThatThrownBy(() -> commit(new WriteOp.Add(TABLE, ObjectKind.INNER, escaping)))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LOCATION);
                    assertThat(e.context()).containsEntry("field", "metadata_location");
                })
                .hasMessage("Invalid location: it has a '.' or '..' path segment");
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("lake", "ns2"),
                        ObjectKind.INNER,
                        NamespaceEntry.of(Map.of(NamespaceEntry.LOCATION, "/w/%2E%2E/x"))
                                .encode())))
                .hasMessage("Invalid location: it has a '.' or '..' path segment");

        commit(new WriteOp.Add(
                TABLE, ObjectKind.INNER, table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/m.json"))));
        assertThatThrownBy(() -> commit(new WriteOp.Update(TABLE, ObjectKind.INNER, escaping)))
                .hasMessage("Invalid location: it has a '.' or '..' path segment");
    }

    /** A location stored before the rule (or by a writer without it) does not block other changes of its object. */
    @Test
    void anUnchangedLocationIsNotCheckedAgain() {
        BsonDocument odd = table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/w/../m.json"));
        service.close();
        try (CatalogService unchecked = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory, RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC())) {
            unchecked.commit(new WriteSet(List.of(new WriteOp.Add(TABLE, ObjectKind.INNER, odd))));
        }
        service = LakeTestStores.open(directory);

        commit(new WriteOp.Update(TABLE, ObjectKind.INNER, odd.clone().append("note", new BsonInt32(1))));
        assertThat(service.get(TABLE, ReadPoint.LATEST)
                        .orElseThrow()
                        .value()
                        .getInt32("note")
                        .getValue())
                .isEqualTo(1);
    }

    @Test
    void withExternalLocationsRefusedEveryNewLocationLiesInsideItsCatalogsWarehouse() {
        service.close();
        service = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory, RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC(),
                CatalogMetrics.NONE,
                new LakeObjectValidator(
                        LakeNames.DEFAULT,
                        Warehouses.underRoot("file:/w", new LocalFileIO(), ExternalLocations.REFUSED)));

        commit(new WriteOp.Add(
                TABLE,
                ObjectKind.INNER,
                table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/w/lake/ns/t/metadata/1.json"))
                        .append(LakeKeys.LOCATION, new BsonString("file:/w/lake/ns/t"))));
        assertThatThrownBy(() -> commit(new WriteOp.Add(
                        ObjectPath.of("lake", "ns", "u"),
                        ObjectKind.INNER,
                        table().append(LakeKeys.METADATA_LOCATION, new BsonString("file:/elsewhere/1.json")))))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context())
                                .containsEntry("field", "metadata_location")
                                .containsEntry("catalog", "lake"))
                .hasMessageStartingWith("Invalid location: it is outside the catalog's warehouse");
    }
}
