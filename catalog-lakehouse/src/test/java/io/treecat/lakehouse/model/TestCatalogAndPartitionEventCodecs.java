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
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's HMS fields (description, the metastore id) and a table's Hive partition marks. */
class TestCatalogAndPartitionEventCodecs {
    @TempDir
    Path directory;

    @Test
    void aCatalogKeepsItsDescriptionTheMetastoreIdAndUndeclaredFields() {
        CatalogEntry catalog = CatalogEntry.of("file:/w/c1", "first").withHmsMetastoreUuid("u-1");
        BsonDocument encoded = catalog.encode().append("note", new BsonString("kept"));

        assertThat(encoded)
                .isEqualTo(new BsonDocument("obj_type", new BsonString("catalog"))
                        .append("location", new BsonString("file:/w/c1"))
                        .append("description", new BsonString("first"))
                        .append("hms_metastore_uuid", new BsonString("u-1"))
                        .append("note", new BsonString("kept")));
        CatalogEntry decoded = CatalogEntry.decode(encoded);
        assertThat(decoded.encode()).isEqualTo(encoded);
        assertThat(decoded.withLocationAndDescription("file:/w/c2", null).encode())
                .isEqualTo(new BsonDocument("obj_type", new BsonString("catalog"))
                        .append("location", new BsonString("file:/w/c2"))
                        .append("hms_metastore_uuid", new BsonString("u-1"))
                        .append("note", new BsonString("kept")));
        // A catalog made before these fields existed reads as it was.
        assertThat(CatalogEntry.decode(CatalogEntry.of("file:/w/c").encode())).satisfies(old -> {
            assertThat(old.description()).isNull();
            assertThat(old.hmsMetastoreUuid()).isNull();
        });
        assertThatThrownBy(() -> CatalogEntry.decode(
                        CatalogEntry.of("file:/w").encode().append("description", new BsonInt32(1))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid catalog object: field 'description' must be a string, not int32");
    }

    @Test
    void marksRoundTripAndAMarkOfTheSameEventReplacesTheOlder() {
        PartitionEventsEntry marks = PartitionEventsEntry.empty()
                .withMark(new PartitionEventsEntry.Mark("ds=1/hr=2", "LOAD_DONE", 10))
                .withMark(new PartitionEventsEntry.Mark("", "LOAD_DONE", 11))
                .withMark(new PartitionEventsEntry.Mark("ds=1/hr=2", "LOAD_DONE", 12));

        assertThat(marks.marks())
                .containsExactly(
                        new PartitionEventsEntry.Mark("ds=1/hr=2", "LOAD_DONE", 12),
                        new PartitionEventsEntry.Mark("", "LOAD_DONE", 11));
        assertThat(marks.isMarked("ds=1/hr=2", "LOAD_DONE")).isTrue();
        assertThat(marks.isMarked("ds=1/hr=3", "LOAD_DONE")).isFalse();
        assertThat(marks.isMarked("ds=1/hr=2", "OTHER")).isFalse();
        BsonDocument encoded = marks.encode();
        assertThat(encoded.getArray("events").get(0))
                .isEqualTo(new BsonDocument("partition", new BsonString("ds=1/hr=2"))
                        .append("event_type", new BsonString("LOAD_DONE"))
                        .append("event_time", new BsonInt64(12)));
        assertThat(PartitionEventsEntry.decode(encoded)).isEqualTo(marks);
    }

    @Test
    void malformedMarksAreRefusedNamingTheField() {
        BsonDocument base = new BsonDocument("obj_type", new BsonString("hms_partition_events"));
        assertThatThrownBy(() -> PartitionEventsEntry.decode(base.clone().append("events", new BsonString("x"))))
                .hasMessage("Invalid hms_partition_events object: field 'events' must be an array, not string");
        assertThatThrownBy(() -> PartitionEventsEntry.decode(
                        base.clone().append("events", new BsonArray(List.of(new BsonInt32(1))))))
                .hasMessage(
                        "Invalid hms_partition_events object: field 'events' must be an array of documents, not int32");
        assertThatThrownBy(() -> PartitionEventsEntry.decode(base.clone()
                        .append(
                                "events",
                                new BsonArray(List.of(new BsonDocument("partition", new BsonString("a=1")))))))
                .hasMessage("Invalid hms_partition_events object: field 'events' is required to hold partition,"
                        + " event_type and event_time in every mark");
        assertThat(PartitionEventsEntry.decode(base).marks()).isEmpty();
    }

    @Test
    void theValidatorChecksMarksAndCatalogsAreListedAndFound() {
        try (CatalogService service = LakeTestStores.open(directory)) {
            ObjectPath table = ObjectPath.of("lake", "ns", "t");
            service.commit(new WriteSet(List.of(
                    new WriteOp.Add(
                            ObjectPath.of("lake"),
                            ObjectKind.INNER,
                            CatalogEntry.of("file:/w/lake").encode()),
                    new WriteOp.Add(
                            ObjectPath.of("other"),
                            ObjectKind.INNER,
                            CatalogEntry.of("file:/o", "o").encode()),
                    new WriteOp.Add(ObjectPath.of("plain"), ObjectKind.INNER, new BsonDocument()),
                    new WriteOp.Add(
                            ObjectPath.of("lake", "ns"),
                            ObjectKind.INNER,
                            NamespaceEntry.of(Map.of()).encode()),
                    new WriteOp.Add(
                            table,
                            ObjectKind.INNER,
                            TableEntry.hive(new byte[] {1}, "MANAGED_TABLE", "file:/w/t", null)
                                    .encode()))));
            ObjectPath events = table.child(LakeKeys.PARTITION_EVENTS_ID);
            long before = service.lastVid();

            assertThatThrownBy(() -> service.commit(new WriteSet(List.of(new WriteOp.Add(
                            events,
                            ObjectKind.INNER,
                            new BsonDocument("obj_type", new BsonString("hms_partition_events"))
                                    .append("events", new BsonInt32(3)))))))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid hms_partition_events object: field 'events' must be an array, not int32"
                            + " at /lake/ns/t/.partition_events");
            assertThat(service.lastVid()).isEqualTo(before);
            PartitionEventsEntry marks =
                    PartitionEventsEntry.empty().withMark(new PartitionEventsEntry.Mark("", "LOAD_DONE", 1));
            service.commit(new WriteSet(List.of(new WriteOp.Add(events, ObjectKind.INNER, marks.encode()))));
            assertThat(PartitionEventsEntry.decode(
                            service.get(events, ReadPoint.LATEST).orElseThrow().value()))
                    .isEqualTo(marks);

            TransactionRunner runner = new TransactionRunner(() -> service, Authorizer.allowAll());
            Access access = Access.of(Principal.ANONYMOUS, Action.LIST_NAMESPACES, ObjectPath.ROOT);
            Map<String, CatalogEntry> catalogs = runner.read(access, Catalogs::list);
            assertThat(catalogs).containsOnlyKeys("lake", "other");
            assertThat(catalogs.get("other").description()).isEqualTo("o");
            Optional<CatalogEntry> lake = runner.read(access, txn -> Catalogs.find(txn, "lake"));
            assertThat(lake)
                    .hasValueSatisfying(found -> assertThat(found.location()).isEqualTo("file:/w/lake"));
            Optional<CatalogEntry> missing = runner.read(access, txn -> Catalogs.find(txn, "missing"));
            assertThat(missing).isEmpty();
            assertThatThrownBy(() -> runner.read(access, txn -> Catalogs.find(txn, "plain")))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Not a catalog: plain");
        }
    }
}
