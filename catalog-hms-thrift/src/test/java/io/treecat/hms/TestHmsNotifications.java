package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.NotificationEventResponse;
import org.apache.hadoop.hive.metastore.api.NotificationEventsCountRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.messaging.AddPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterTableMessage;
import org.apache.hadoop.hive.metastore.messaging.CreateDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.CreateTableMessage;
import org.apache.hadoop.hive.metastore.messaging.DropDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.DropPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.DropTableMessage;
import org.apache.hadoop.hive.metastore.messaging.EventMessage;
import org.apache.hadoop.hive.metastore.messaging.MessageBuilder;
import org.apache.hadoop.hive.metastore.messaging.MessageDeserializer;
import org.apache.hadoop.hive.metastore.messaging.json.JSONMessageDeserializer;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's notification log from the commit log, followed with Hive's own {@code HiveMetaStoreClient} (which refuses
 * a gap in the ids) and every message read back with Hive's own {@code JSONMessageDeserializer}.
 */
class TestHmsNotifications {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MessageDeserializer deserializer = new JSONMessageDeserializer();

    @Test
    void databaseTableAndPartitionLifecycleAsHiveEvents() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        long start = client.getCurrentNotificationEventId().getEventId();

        Database db = new Database();
        db.setName("sales");
        db.setDescription("first");
        client.createDatabase(db);
        Database altered = client.getDatabase("sales");
        altered.setDescription("second");
        client.alterDatabase("sales", altered);
        Table table = partitionedTable("sales", "orders");
        client.createTable(table);
        client.add_partitions(new ArrayList<>(List.of(partition(table, "2025-01-01"), partition(table, "2025-01-02"))));
        Partition first = client.getPartition("sales", "orders", List.of("2025-01-01"));
        first.getParameters().put("numRows", "7");
        client.alter_partition("sales", "orders", first);
        Table changed = client.getTable("sales", "orders");
        changed.getParameters().put("comment", "orders of the day");
        client.alter_table("sales", "orders", changed);
        client.dropPartition("sales", "orders", List.of("2025-01-02"), false);
        client.dropTable("sales", "orders");
        client.dropDatabase("sales");

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(NotificationEvent::getEventType)
                .containsExactly(
                        "CREATE_DATABASE",
                        "ALTER_DATABASE",
                        "CREATE_TABLE",
                        "ADD_PARTITION",
                        "ALTER_PARTITION",
                        "ALTER_TABLE",
                        "DROP_PARTITION",
                        "DROP_TABLE",
                        "DROP_DATABASE");
        for (int i = 0; i < events.size(); i++) {
            NotificationEvent event = events.get(i);
            assertThat(event.getEventId()).isEqualTo(start + i + 1);
            assertThat(event.getCatName()).isEqualTo("hive");
            assertThat(event.getDbName()).isEqualTo("sales");
            assertThat(event.getMessageFormat()).isEqualTo("json-0.2");
            assertThat((long) event.getEventTime())
                    .isBetween(System.currentTimeMillis() / 1000 - 600, System.currentTimeMillis() / 1000 + 1);
            assertThat(event.getTableName()).isEqualTo(i < 2 || i == 8 ? null : "orders");
        }
        assertThat(client.getCurrentNotificationEventId().getEventId()).isEqualTo(start + 9);
        for (NotificationEvent event : events) {
            assertWrittenAsHiveWrites(event);
        }

        CreateDatabaseMessage created =
                deserializer.getCreateDatabaseMessage(events.get(0).getMessage());
        assertThat(created.getDB()).isEqualTo("sales");
        assertThat(created.getDatabaseObject().getDescription()).isEqualTo("first");
        AlterDatabaseMessage alteredDb =
                deserializer.getAlterDatabaseMessage(events.get(1).getMessage());
        assertThat(alteredDb.getDbObjBefore().getDescription()).isEqualTo("first");
        assertThat(alteredDb.getDbObjAfter()).isEqualTo(altered);

        CreateTableMessage createdTable =
                deserializer.getCreateTableMessage(events.get(2).getMessage());
        assertThat(createdTable.getTable()).isEqualTo("orders");
        assertThat(createdTable.getTableType()).isEqualTo("EXTERNAL_TABLE");
        Table stored = createdTable.getTableObj();
        assertThat(stored.getSd().getCols()).extracting(FieldSchema::getName).containsExactly("id");
        assertThat(stored.getPartitionKeys()).extracting(FieldSchema::getName).containsExactly("ds");

        AddPartitionMessage added =
                deserializer.getAddPartitionMessage(events.get(3).getMessage());
        assertThat(added.getPartitions()).containsExactly(Map.of("ds", "2025-01-01"), Map.of("ds", "2025-01-02"));
        List<Partition> addedPartitions = new ArrayList<>();
        added.getPartitionObjs().forEach(addedPartitions::add);
        assertThat(addedPartitions)
                .extracting(Partition::getValues)
                .containsExactly(List.of("2025-01-01"), List.of("2025-01-02"));
        assertThat(addedPartitions.get(0).getTableName()).isEqualTo("orders");

        AlterPartitionMessage alteredPartition =
                deserializer.getAlterPartitionMessage(events.get(4).getMessage());
        assertThat(alteredPartition.getKeyValues()).containsExactly(Map.entry("ds", "2025-01-01"));
        assertThat(alteredPartition.getPtnObjBefore().getParameters()).doesNotContainKey("numRows");
        assertThat(alteredPartition.getPtnObjAfter().getParameters()).containsEntry("numRows", "7");
        assertThat(alteredPartition.getIsTruncateOp()).isFalse();

        AlterTableMessage alteredTable =
                deserializer.getAlterTableMessage(events.get(5).getMessage());
        assertThat(alteredTable.getTableObjBefore().getParameters()).doesNotContainKey("comment");
        assertThat(alteredTable.getTableObjAfter().getParameters()).containsEntry("comment", "orders of the day");

        DropPartitionMessage dropped =
                deserializer.getDropPartitionMessage(events.get(6).getMessage());
        assertThat(dropped.getPartitions()).containsExactly(Map.of("ds", "2025-01-02"));
        assertThat(dropped.getTableObj().getTableName()).isEqualTo("orders");

        DropTableMessage droppedTable =
                deserializer.getDropTableMessage(events.get(7).getMessage());
        assertThat(droppedTable.getTable()).isEqualTo("orders");
        assertThat(droppedTable.getTableObj().getPartitionKeys()).hasSize(1);
        DropDatabaseMessage droppedDb =
                deserializer.getDropDatabaseMessage(events.get(8).getMessage());
        assertThat(droppedDb.getDB()).isEqualTo("sales");
    }

    @Test
    void renameIsOneAlterTableAndCascadeDropsTablesFirst() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("d");
        client.createDatabase(db);
        Table table = partitionedTable("d", "a");
        client.createTable(table);
        client.add_partitions(new ArrayList<>(List.of(partition(table, "x"))));
        long start = client.getCurrentNotificationEventId().getEventId();

        Table renamed = client.getTable("d", "a");
        renamed.setTableName("b");
        client.alter_table("d", "a", renamed);
        client.createTable(partitionedTable("d", "c"));
        client.dropDatabase("d", true, true, true);

        List<NotificationEvent> events =
                client.getNextNotification(start, 100, null).getEvents();
        assertThat(events)
                .extracting(NotificationEvent::getEventType, NotificationEvent::getTableName)
                .containsExactly(
                        tuple("ALTER_TABLE", "b"),
                        tuple("CREATE_TABLE", "c"),
                        tuple("DROP_TABLE", "b"),
                        tuple("DROP_TABLE", "c"),
                        tuple("DROP_DATABASE", null));
        AlterTableMessage rename =
                deserializer.getAlterTableMessage(events.get(0).getMessage());
        assertThat(rename.getTable()).isEqualTo("a");
        assertThat(rename.getTableObjBefore().getTableName()).isEqualTo("a");
        assertThat(rename.getTableObjAfter().getTableName()).isEqualTo("b");
    }

    @Test
    void pagingFiltersAndCounts() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        long start = client.getCurrentNotificationEventId().getEventId();
        for (String name : List.of("one", "two")) {
            Database db = new Database();
            db.setName(name);
            client.createDatabase(db);
            client.createTable(partitionedTable(name, "t"));
            client.createTable(partitionedTable(name, "u"));
        }
        long end = client.getCurrentNotificationEventId().getEventId();
        assertThat(end).isEqualTo(start + 6);

        // maxEvents pages; Hive's client checks that each page follows the last without a gap.
        List<Long> ids = new ArrayList<>();
        long last = start;
        while (true) {
            NotificationEventResponse page = client.getNextNotification(last, 4, null);
            if (page.getEventsSize() == 0) {
                break;
            }
            assertThat(page.getEventsSize()).isLessThanOrEqualTo(4);
            page.getEvents().forEach(event -> ids.add(event.getEventId()));
            last = page.getEvents().get(page.getEventsSize() - 1).getEventId();
        }
        assertThat(ids).containsExactly(start + 1, start + 2, start + 3, start + 4, start + 5, start + 6);

        // The skip list and the filters of Hive 4's request.
        NotificationEventRequest skipTables = new NotificationEventRequest(start);
        skipTables.setEventTypeSkipList(List.of("CREATE_TABLE"));
        assertThat(client.getNextNotification(skipTables, true, null).getEvents())
                .extracting(NotificationEvent::getDbName)
                .containsExactly("one", "two");
        NotificationEventRequest oneTable = new NotificationEventRequest(start);
        oneTable.setDbName("TWO");
        oneTable.setTableNames(List.of("U"));
        assertThat(client.getNextNotification(oneTable, true, null).getEvents())
                .extracting(NotificationEvent::getEventId)
                .containsExactly(start + 6);
        NotificationEventRequest types = new NotificationEventRequest(start);
        types.setEventTypeList(List.of("CREATE_DATABASE"));
        types.setCatName("HIVE");
        assertThat(client.getNextNotification(types, true, null).getEvents())
                .extracting(NotificationEvent::getEventId)
                .containsExactly(start + 1, start + 4);

        assertThat(count(client, start, "*", null, null)).isEqualTo(6);
        assertThat(count(client, start, "one", null, null)).isEqualTo(3);
        assertThat(count(client, start, "one", start + 2, null)).isEqualTo(2);
        assertThat(count(client, start, "*", null, 5L)).isEqualTo(5);
        assertThat(count(client, start, "*", null, 0L)).isZero();
        NotificationEventsCountRequest tables = new NotificationEventsCountRequest(start, "*");
        tables.setTableNames(List.of("t"));
        assertThat(client.getNotificationEventsCount(tables).getEventsCount()).isEqualTo(2);
        NotificationEventsCountRequest otherCatalog = new NotificationEventsCountRequest(start, "*");
        otherCatalog.setCatName("spark");
        assertThat(client.getNotificationEventsCount(otherCatalog).getEventsCount())
                .isZero();
    }

    @Test
    void idsSurviveARestart() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("kept");
        client.createDatabase(db);
        client.createTable(partitionedTable("kept", "t"));
        List<NotificationEvent> before =
                client.getNextNotification(0, 100, null).getEvents();
        long current = client.getCurrentNotificationEventId().getEventId();

        hms.restart();
        HiveMetaStoreClient again = hms.hiveClient();
        assertThat(again.getCurrentNotificationEventId().getEventId()).isEqualTo(current);
        assertThat(again.getNextNotification(0, 100, null).getEvents()).isEqualTo(before);
        again.dropTable("kept", "t");
        assertThat(again.getNextNotification(current, 100, null).getEvents())
                .extracting(NotificationEvent::getEventId, NotificationEvent::getEventType)
                .containsExactly(tuple(current + 1, "DROP_TABLE"));
    }

    @Test
    void oddRequestsAreAnsweredAsHiveDoesAndTheConnectionStaysUp() throws Exception {
        HiveMetaStoreClient hive = hms.hiveClient();
        Database db = new Database();
        db.setName("odd");
        hive.createDatabase(db);
        long current = hive.getCurrentNotificationEventId().getEventId();
        ThriftHiveMetastore.Client client = hms.client();

        // Hive's store reads "ids above lastEvent": a negative one is every event.
        NotificationEventRequest negative = new NotificationEventRequest(-5);
        assertThat(client.get_next_notification(negative).getEvents()).hasSize((int) current);
        // maxEvents of zero or below is the server's most; a huge one too.
        NotificationEventRequest zero = new NotificationEventRequest(0);
        zero.setMaxEvents(0);
        assertThat(client.get_next_notification(zero).getEvents()).hasSize((int) current);
        NotificationEventRequest huge = new NotificationEventRequest(0);
        huge.setMaxEvents(Integer.MAX_VALUE);
        assertThat(client.get_next_notification(huge).getEvents()).hasSize((int) current);
        NotificationEventRequest beyond = new NotificationEventRequest(Long.MAX_VALUE);
        assertThat(client.get_next_notification(beyond).getEvents()).isEmpty();

        // A catalog no one made, or a name no catalog can have: no events, not an error.
        for (String catalog : List.of("nosuch", "a/b", "@hive#", "UPPER")) {
            NotificationEventRequest named = new NotificationEventRequest(0);
            named.setCatName(catalog);
            assertThat(client.get_next_notification(named).getEvents())
                    .as(catalog)
                    .isEmpty();
            NotificationEventsCountRequest counted = new NotificationEventsCountRequest(0, "*");
            counted.setCatName(catalog);
            assertThat(client.get_notification_events_count(counted).getEventsCount())
                    .as(catalog)
                    .isZero();
        }
        NotificationEventsCountRequest negativeFrom = new NotificationEventsCountRequest(-3, "*");
        negativeFrom.setLimit(-1);
        assertThat(client.get_notification_events_count(negativeFrom).getEventsCount())
                .isEqualTo(current);

        assertThatThrownBy(() -> client.get_next_notification(null))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("get_next_notification: the request (NotificationEventRequest) is missing");
        assertThatThrownBy(() -> client.get_notification_events_count(null))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("get_notification_events_count: the request (NotificationEventsCountRequest) is missing");
        assertThat(client.get_current_notificationEventId().getEventId()).isEqualTo(current);
    }

    /**
     * The message is what Hive's own {@code MessageBuilder} (4.0.1) writes for the same objects, field for field, the
     * embedded Thrift JSON included: only {@code server}, {@code servicePrincipal} and {@code timestamp} differ, and
     * the fields Hive leaves null.
     */
    private void assertWrittenAsHiveWrites(NotificationEvent event) throws Exception {
        MessageBuilder hive = MessageBuilder.getInstance();
        String message = event.getMessage();
        EventMessage expected = switch (event.getEventType()) {
            case "CREATE_DATABASE" ->
                hive.buildCreateDatabaseMessage(
                        deserializer.getCreateDatabaseMessage(message).getDatabaseObject());
            case "ALTER_DATABASE" -> {
                AlterDatabaseMessage altered = deserializer.getAlterDatabaseMessage(message);
                yield hive.buildAlterDatabaseMessage(altered.getDbObjBefore(), altered.getDbObjAfter());
            }
            case "DROP_DATABASE" ->
                hive.buildDropDatabaseMessage(
                        deserializer.getDropDatabaseMessage(message).getDatabaseObject());
            case "CREATE_TABLE" ->
                hive.buildCreateTableMessage(
                        deserializer.getCreateTableMessage(message).getTableObj(), Collections.emptyIterator());
            case "ALTER_TABLE" -> {
                AlterTableMessage altered = deserializer.getAlterTableMessage(message);
                yield hive.buildAlterTableMessage(altered.getTableObjBefore(), altered.getTableObjAfter(), false, null);
            }
            case "DROP_TABLE" ->
                hive.buildDropTableMessage(
                        deserializer.getDropTableMessage(message).getTableObj());
            case "ADD_PARTITION" -> {
                AddPartitionMessage added = deserializer.getAddPartitionMessage(message);
                yield hive.buildAddPartitionMessage(
                        added.getTableObj(), added.getPartitionObjs().iterator(), Collections.emptyIterator());
            }
            case "ALTER_PARTITION" -> {
                AlterPartitionMessage altered = deserializer.getAlterPartitionMessage(message);
                yield hive.buildAlterPartitionMessage(
                        altered.getTableObj(), altered.getPtnObjBefore(), altered.getPtnObjAfter(), false, null);
            }
            case "DROP_PARTITION" -> {
                DropPartitionMessage dropped = deserializer.getDropPartitionMessage(message);
                List<Partition> partitions = new ArrayList<>();
                for (Map<String, String> values : dropped.getPartitions()) {
                    Partition partition = new Partition();
                    partition.setValues(new ArrayList<>(values.values()));
                    partitions.add(partition);
                }
                yield hive.buildDropPartitionMessage(dropped.getTableObj(), partitions.iterator());
            }
            default -> throw new AssertionError("unexpected event type " + event.getEventType());
        };
        assertThat(comparable(message)).as(event.getEventType()).isEqualTo(comparable(expected.toString()));
    }

    private static JsonNode comparable(String message) throws Exception {
        ObjectNode fields = (ObjectNode) JSON.readTree(message);
        fields.remove(List.of("server", "servicePrincipal", "timestamp"));
        List<String> nulls = new ArrayList<>();
        fields.fieldNames().forEachRemaining(name -> {
            if (fields.get(name).isNull()) {
                nulls.add(name);
            }
        });
        fields.remove(nulls);
        return fields;
    }

    private static long count(HiveMetaStoreClient client, long from, String db, Long to, Long limit) throws Exception {
        NotificationEventsCountRequest request = new NotificationEventsCountRequest(from, db);
        if (to != null) {
            request.setToEventId(to);
        }
        if (limit != null) {
            request.setLimit(limit);
        }
        return client.getNotificationEventsCount(request).getEventsCount();
    }

    private static Table partitionedTable(String db, String name) {
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("ds", "string", null)));
        table.setParameters(new HashMap<>());
        return table;
    }

    private static Partition partition(Table table, String ds) {
        Partition partition = new Partition();
        partition.setDbName(table.getDbName());
        partition.setTableName(table.getTableName());
        partition.setValues(List.of(ds));
        partition.setSd(table.getSd().deepCopy());
        partition.setParameters(new HashMap<>());
        return partition;
    }
}
