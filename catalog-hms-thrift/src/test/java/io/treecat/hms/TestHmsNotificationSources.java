package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.treecat.core.history.CommitOrigin;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.IcebergPointer;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.NotificationEventsCountRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.messaging.AddPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterTableMessage;
import org.apache.hadoop.hive.metastore.messaging.CreateDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.DropPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.MessageDeserializer;
import org.apache.hadoop.hive.metastore.messaging.json.JSONMessageDeserializer;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which commits make which Hive events: commits over other interfaces (an Iceberg REST swap, a native commit), other
 * catalogs, partition renames and exchanges, changes Hive reports otherwise (no event, ids still dense), compact
 * records (the events found by comparing the tree below their prefixes), a follower polling during commits, and the id
 * index read from every position across many checkpoints.
 */
class TestHmsNotificationSources {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private final MessageDeserializer deserializer = new JSONMessageDeserializer();

    @Test
    void icebergRestSwapIsAlterTableAndNativeNamespaceIsCreateDatabase() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("lake");
        client.createDatabase(db);
        Table table = table("lake", "events", List.of());
        table.getParameters().put("table_type", "ICEBERG");
        table.getParameters().put("metadata_location", "file:/m/v1.metadata.json");
        client.createTable(table);
        long start = client.getCurrentNotificationEventId().getEventId();

        // What the Iceberg REST side commits: the metadata pointer swapped through the lakehouse layer.
        TransactionRunner rest = new TransactionRunner(() -> hms.catalog(), Authorizer.allowAll()).forInterface("rest");
        ObjectPath path = ObjectPath.of("warehouse", "lake", "events");
        rest.write(
                Access.of(Principal.ANONYMOUS, Action.COMMIT_TABLE, path),
                txn -> Tables.swapMetadataLocation(
                        txn,
                        path,
                        "file:/m/v1.metadata.json",
                        entry -> entry.withIceberg(new IcebergPointer(
                                "file:/m/v2.metadata.json",
                                2,
                                "9e6c5f2a-1b7e-4c43-a1c2-3f5e1d9a7b10",
                                null,
                                entry.location(),
                                Map.of()))));
        // A native commit of a namespace is a database to Hive.
        hms.catalog()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.of("warehouse", "native_db"),
                        ObjectKind.INNER,
                        NamespaceEntry.of(Map.of("comment", "made natively")).encode())));

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(
                        NotificationEvent::getEventType, NotificationEvent::getDbName, NotificationEvent::getTableName)
                .containsExactly(tuple("ALTER_TABLE", "lake", "events"), tuple("CREATE_DATABASE", "native_db", null));
        AlterTableMessage swap = deserializer.getAlterTableMessage(events.get(0).getMessage());
        assertThat(swap.getTableObjBefore().getParameters())
                .containsEntry("metadata_location", "file:/m/v1.metadata.json");
        assertThat(swap.getTableObjAfter().getParameters())
                .containsEntry("metadata_location", "file:/m/v2.metadata.json");
        CreateDatabaseMessage created =
                deserializer.getCreateDatabaseMessage(events.get(1).getMessage());
        assertThat(created.getDatabaseObject().getDescription()).isEqualTo("made natively");

        // A swap that also indexes more than 1,000 files has a compact record: the table is found changed by
        // comparing the tables of its database, the prefix the record keeps.
        long before = client.getCurrentNotificationEventId().getEventId();
        rest.write(Access.of(Principal.ANONYMOUS, Action.COMMIT_TABLE, path), txn -> {
            txn.write(new WriteOp.Add(path.child("data"), ObjectKind.INNER, new BsonDocument()));
            for (int i = 0; i <= 1000; i++) {
                txn.write(new WriteOp.Add(path.child("data").child("f" + i), ObjectKind.LEAF, new BsonDocument()));
            }
            return Tables.swapMetadataLocation(
                    txn,
                    path,
                    "file:/m/v2.metadata.json",
                    entry -> entry.withIceberg(new IcebergPointer(
                            "file:/m/v3.metadata.json",
                            2,
                            "9e6c5f2a-1b7e-4c43-a1c2-3f5e1d9a7b10",
                            null,
                            entry.location(),
                            Map.of())));
        });
        assertThat(hms.catalog().lastVid())
                .satisfies(vid -> assertThat(
                                hms.catalog().commitRecord(vid).orElseThrow().compact())
                        .isTrue());
        List<NotificationEvent> swapped =
                client.getNextNotification(before, 100, null).getEvents();
        assertThat(swapped)
                .extracting(NotificationEvent::getEventType, NotificationEvent::getTableName)
                .containsExactly(tuple("ALTER_TABLE", "events"));
        assertThat(deserializer
                        .getAlterTableMessage(swapped.get(0).getMessage())
                        .getTableObjAfter()
                        .getParameters())
                .containsEntry("metadata_location", "file:/m/v3.metadata.json");
    }

    @Test
    void hiddenObjectsAndUndecodableStructsMakeNoEventAndIdsStayDense() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("d");
        client.createDatabase(db);
        client.createTable(table("d", "t", List.of(new FieldSchema("ds", "string", null))));
        client.add_partitions(new ArrayList<>(List.of(partition("d", "t", "x"))));
        long start = client.getCurrentNotificationEventId().getEventId();

        // Partition marks live in a hidden object below the table: not a Hive object change.
        client.markPartitionForEvent("d", "t", Map.of("ds", "x"), PartitionEventType.LOAD_DONE);
        // A table whose stored Hive struct does not decode is passed over, the same way every time, not a log that
        // fails from this commit on.
        hms.catalog()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.of("warehouse", "d", "broken"),
                        ObjectKind.INNER,
                        TableEntry.hive(new byte[] {1, 2, 3}, "EXTERNAL_TABLE", "file:/x", null)
                                .encode())));
        assertThat(client.getCurrentNotificationEventId().getEventId()).isEqualTo(start);

        Database next = new Database();
        next.setName("after");
        client.createDatabase(next);
        assertThat(client.getNextNotification(start, 100, null).getEvents())
                .extracting(NotificationEvent::getEventId, NotificationEvent::getDbName)
                .containsExactly(tuple(start + 1, "after"));
    }

    @Test
    void compactRecordsMakeTheEventsTheTreeShowsBelowTheirPrefixes() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("big");
        client.createDatabase(db);
        client.createTable(table("big", "t", List.of(new FieldSchema("ds", "string", null))));
        long start = client.getCurrentNotificationEventId().getEventId();

        // More than CommitLog.FULL_RECORD_LIMIT partitions in one commit: a compact record.
        List<Partition> many = new ArrayList<>();
        for (int i = 0; i <= 1000; i++) {
            many.add(partition("big", "t", String.format(Locale.ROOT, "p%04d", i)));
        }
        client.add_partitions(many);
        Table renamed = client.getTable("big", "t");
        renamed.setTableName("u");
        client.alter_table("big", "t", renamed);
        // A bulk-load chunk's record is compact too: the database it adds is found below its prefix.
        hms.catalog()
                .commit(new WriteSet(
                        List.of(new WriteOp.Add(
                                ObjectPath.of("warehouse", "bulk"),
                                ObjectKind.INNER,
                                NamespaceEntry.of(Map.of()).encode())),
                        CommitOrigin.LOAD_CHUNK));
        client.dropDatabase("big", true, true, true);
        assertThat(hms
                        .catalog()
                        .listCommits(new CommitQuery(1, Long.MAX_VALUE, ObjectPath.ROOT, 1000, false))
                        .records()
                        .stream()
                        .filter(CommitRecord::compact)
                        .count())
                .isEqualTo(4);

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(
                        NotificationEvent::getEventType, NotificationEvent::getDbName, NotificationEvent::getTableName)
                .containsExactly(
                        tuple("ADD_PARTITION", "big", "t"),
                        tuple("ALTER_TABLE", "big", "u"),
                        tuple("CREATE_DATABASE", "bulk", null),
                        tuple("DROP_TABLE", "big", "u"),
                        tuple("DROP_DATABASE", "big", null));
        assertThat(deserializer
                        .getAddPartitionMessage(events.get(0).getMessage())
                        .getPartitions())
                .hasSize(1001)
                .startsWith(Map.of("ds", "p0000"))
                .endsWith(Map.of("ds", "p1000"));
        AlterTableMessage rename =
                deserializer.getAlterTableMessage(events.get(1).getMessage());
        assertThat(rename.getTableObjBefore().getTableName()).isEqualTo("t");
        assertThat(rename.getTableObjAfter().getTableName()).isEqualTo("u");
    }

    @Test
    void anotherCatalogsEventsCarryItsNameAndItsDefaultDatabaseMakesNone() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        long start = client.getCurrentNotificationEventId().getEventId();
        client.createCatalog(
                new Catalog("spark", hms.directory().resolve("spark").toUri().toString()));
        Database db = new Database();
        db.setName("db");
        db.setCatalogName("spark");
        client.createDatabase(db);

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(
                        NotificationEvent::getEventType, NotificationEvent::getCatName, NotificationEvent::getDbName)
                .containsExactly(tuple("CREATE_DATABASE", "spark", "db"));
        assertThat(deserializer
                        .getCreateDatabaseMessage(events.get(0).getMessage())
                        .getDatabaseObject()
                        .getCatalogName())
                .isEqualTo("spark");
        // A request naming the catalog is routed to its call areas: the same one log, filtered.
        NotificationEventRequest inSpark = new NotificationEventRequest(start);
        inSpark.setCatName("spark");
        assertThat(client.getNextNotification(inSpark, true, null).getEvents()).isEqualTo(events);
        NotificationEventRequest inHive = new NotificationEventRequest(start);
        inHive.setCatName("hive");
        assertThat(client.getNextNotification(inHive, true, null).getEvents()).isEmpty();
        NotificationEventsCountRequest count = new NotificationEventsCountRequest(start, "*");
        count.setCatName("spark");
        assertThat(client.getNotificationEventsCount(count).getEventsCount()).isEqualTo(1);
        count.setCatName("hive");
        assertThat(client.getNotificationEventsCount(count).getEventsCount()).isZero();
    }

    @Test
    void partitionRenameIsAlterPartitionAndExchangeIsAddAndDrop() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("s");
        client.createDatabase(db);
        List<FieldSchema> keys = List.of(new FieldSchema("ds", "string", null));
        client.createTable(table("s", "src", keys));
        client.createTable(table("s", "dst", keys));
        client.add_partitions(new ArrayList<>(List.of(partition("s", "src", "a"), partition("s", "src", "b"))));
        long start = client.getCurrentNotificationEventId().getEventId();

        Partition renamed = client.getPartition("s", "src", List.of("a"));
        renamed.setValues(List.of("c"));
        client.renamePartition("s", "src", List.of("a"), renamed);
        client.exchange_partition(Map.of("ds", "b"), "s", "src", "s", "dst");

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(NotificationEvent::getEventType, NotificationEvent::getTableName)
                .containsExactly(
                        tuple("ALTER_PARTITION", "src"), tuple("ADD_PARTITION", "dst"), tuple("DROP_PARTITION", "src"));
        AlterPartitionMessage rename =
                deserializer.getAlterPartitionMessage(events.get(0).getMessage());
        assertThat(rename.getKeyValues()).containsExactly(Map.entry("ds", "a"));
        assertThat(rename.getPtnObjBefore().getValues()).containsExactly("a");
        assertThat(rename.getPtnObjAfter().getValues()).containsExactly("c");
        AddPartitionMessage added =
                deserializer.getAddPartitionMessage(events.get(1).getMessage());
        assertThat(added.getPartitions()).containsExactly(Map.of("ds", "b"));
        DropPartitionMessage dropped =
                deserializer.getDropPartitionMessage(events.get(2).getMessage());
        assertThat(dropped.getPartitions()).containsExactly(Map.of("ds", "b"));
    }

    @Test
    void levelsOfATwoKeyTableAreNotPartitions() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("k");
        client.createDatabase(db);
        client.createTable(
                table("k", "t", List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null))));
        long start = client.getCurrentNotificationEventId().getEventId();
        List<Partition> partitions = new ArrayList<>();
        for (List<String> values : List.of(List.of("a", "1"), List.of("a", "2"), List.of("b", "1"))) {
            Partition partition = partition("k", "t", "unused");
            partition.setValues(values);
            partitions.add(partition);
        }
        client.add_partitions(partitions);
        client.dropPartition("k", "t", List.of("a", "1"), false);
        client.dropPartition("k", "t", List.of("b", "1"), false); // its level ds=b goes with it

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(NotificationEvent::getEventType)
                .containsExactly("ADD_PARTITION", "DROP_PARTITION", "DROP_PARTITION");
        assertThat(deserializer
                        .getAddPartitionMessage(events.get(0).getMessage())
                        .getPartitions())
                .containsExactly(
                        Map.of("ds", "a", "hr", "1"), Map.of("ds", "a", "hr", "2"), Map.of("ds", "b", "hr", "1"));
        assertThat(deserializer
                        .getDropPartitionMessage(events.get(2).getMessage())
                        .getPartitions())
                .containsExactly(Map.of("ds", "b", "hr", "1"));
    }

    @Test
    void theIndexAnswersFromEveryIdAcrossManyCheckpoints() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        for (int i = 0; i < 12; i++) {
            Database db = new Database();
            db.setName("db" + i);
            client.createDatabase(db);
            if (i % 3 == 0) {
                client.createTable(table("db" + i, "t", List.of()));
                client.markPartitionForEvent("db" + i, "t", Map.of(), PartitionEventType.LOAD_DONE);
            }
        }
        List<NotificationEvent> all = client.getNextNotification(0, 1000, null).getEvents();
        assertThat(all).hasSize(16);

        // A fresh log with a checkpoint every two records, asked from every position, answers what the server does.
        HmsCalls hive = new HmsCalls(
                new TransactionRunner(() -> hms.catalog(), Authorizer.allowAll()),
                Warehouses.underRoot(hms.warehouse(), new LocalFileIO()),
                new HmsNames("warehouse"));
        HmsEventLog log = new HmsEventLog(() -> hms.catalog(), new HmsCommitEvents(hive), 2);
        assertThat(log.currentEventId()).isEqualTo(16);
        for (int last = 0; last <= 16; last++) {
            for (int max : new int[] {1, 3, 100}) {
                List<NotificationEvent> page = log.next(last, max, Long.MAX_VALUE, event -> true);
                assertThat(page).isEqualTo(all.subList(last, Math.min(16, last + max)));
            }
            assertThat(log.count(last, 12, Long.MAX_VALUE, event -> true)).isEqualTo(Math.max(0, 12 - last));
        }
        // The size budget ends a page after the event that reaches it, never before the first.
        assertThat(log.next(0, 100, 1, event -> true)).isEqualTo(all.subList(0, 1));
        long firstTwo =
                all.get(0).getMessage().length() + all.get(1).getMessage().length();
        assertThat(log.next(0, 100, firstTwo, event -> true)).isEqualTo(all.subList(0, 2));
    }

    @Test
    void aFollowerPollingWhileClientsCommitSeesEveryEventOnceInOrder() throws Exception {
        HiveMetaStoreClient follower = hms.hiveClient();
        long start = follower.getCurrentNotificationEventId().getEventId();
        List<HiveMetaStoreClient> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            writers.add(hms.hiveClient());
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers.size(); w++) {
                HiveMetaStoreClient writer = writers.get(w);
                String prefix = "w" + w + "_";
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        Database db = new Database();
                        db.setName(prefix + i);
                        writer.createDatabase(db);
                    }
                    return null;
                }));
            }
            // Hive's client throws if a page does not follow the last id without a gap.
            List<NotificationEvent> seen = new ArrayList<>();
            long last = start;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (seen.size() < 60 && System.nanoTime() < deadline) {
                List<NotificationEvent> page =
                        follower.getNextNotification(last, 7, null).getEvents();
                if (!page.isEmpty()) {
                    seen.addAll(page);
                    last = page.get(page.size() - 1).getEventId();
                }
                for (Future<?> future : done) {
                    if (future.isDone()) {
                        future.get();
                    }
                }
            }
            for (Future<?> future : done) {
                future.get();
            }
            assertThat(seen)
                    .extracting(NotificationEvent::getEventId)
                    .isEqualTo(LongStream.rangeClosed(start + 1, start + 60)
                            .boxed()
                            .toList());
            assertThat(seen).extracting(NotificationEvent::getDbName).doesNotHaveDuplicates();
            assertThat(follower.getNextNotification(start, 100, null).getEvents())
                    .isEqualTo(seen);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Table table(String db, String name, List<FieldSchema> keys) {
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(keys);
        table.setParameters(new HashMap<>());
        return table;
    }

    private static Partition partition(String db, String table, String ds) {
        Partition partition = new Partition();
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setValues(List.of(ds));
        partition.setParameters(new HashMap<>());
        return partition;
    }
}
