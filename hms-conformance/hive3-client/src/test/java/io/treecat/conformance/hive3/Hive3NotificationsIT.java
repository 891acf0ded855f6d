package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.partition;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventsCountRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.messaging.AddPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterTableMessage;
import org.apache.hadoop.hive.metastore.messaging.MessageDeserializer;
import org.apache.hadoop.hive.metastore.messaging.json.JSONMessageDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client following the notification log ({@code get_current_notificationEventId}, {@code
 * get_next_notification}, {@code get_notification_events_count}), as Impala's and StarRocks' event processors do
 * with this client, and every message read with Hive 3.1's own {@code JSONMessageDeserializer} (Jackson 1, Hive 3.1's
 * message classes): the json-0.2 format is the same in Hive 3 and 4.
 */
class Hive3NotificationsIT {
    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private final MessageDeserializer deserializer = new JSONMessageDeserializer();

    @Test
    void hive3FollowsTheLogAndReadsEveryMessage() throws Exception {
        HiveMetaStoreClient client = hms.client();
        long start = client.getCurrentNotificationEventId().getEventId();
        client.createDatabase(database("h3_events"));
        Table table = table("h3_events", "t", TableType.EXTERNAL_TABLE, new FieldSchema("ds", "string", null));
        client.createTable(table);
        client.add_partitions(
                new ArrayList<>(List.of(partition("h3_events", "t", "a"), partition("h3_events", "t", "b"))));
        Partition first = client.getPartition("h3_events", "t", List.of("a"));
        first.putToParameters("numRows", "3");
        client.alter_partition("h3_events", "t", first);
        Table changed = client.getTable("h3_events", "t");
        changed.putToParameters("comment", "h3");
        client.alter_table("h3_events", "t", changed);
        client.dropPartition("h3_events", "t", List.of("b"), false);
        client.dropTable("h3_events", "t");
        client.dropDatabase("h3_events");

        // Hive 3.1's client checks that the ids follow each other without a gap, page after page.
        List<NotificationEvent> events = new ArrayList<>();
        long last = start;
        while (true) {
            List<NotificationEvent> page =
                    client.getNextNotification(last, 3, null).getEvents();
            if (page.isEmpty()) {
                break;
            }
            // The server is shared with the other ITs: only this class's database's events are looked at.
            page.stream().filter(event -> "h3_events".equals(event.getDbName())).forEach(events::add);
            last = page.get(page.size() - 1).getEventId();
        }
        assertThat(events)
                .extracting(NotificationEvent::getEventType)
                .containsExactly(
                        "CREATE_DATABASE",
                        "CREATE_TABLE",
                        "ADD_PARTITION",
                        "ALTER_PARTITION",
                        "ALTER_TABLE",
                        "DROP_PARTITION",
                        "DROP_TABLE",
                        "DROP_DATABASE");
        assertThat(client.getCurrentNotificationEventId().getEventId()).isGreaterThanOrEqualTo(start + 8);
        assertThat(events.get(7).getEventId()).isGreaterThan(events.get(0).getEventId());
        assertThat(events).allSatisfy(event -> {
            assertThat(event.getDbName()).isEqualTo("h3_events");
            assertThat(event.getCatName()).isEqualTo("hive");
            assertThat(event.getMessageFormat()).isEqualTo("json-0.2");
        });

        assertThat(deserializer
                        .getCreateDatabaseMessage(events.get(0).getMessage())
                        .getDatabaseObject()
                        .getName())
                .isEqualTo("h3_events");
        assertThat(deserializer
                        .getCreateTableMessage(events.get(1).getMessage())
                        .getTableObj()
                        .getPartitionKeys())
                .extracting(FieldSchema::getName)
                .containsExactly("ds");
        AddPartitionMessage added =
                deserializer.getAddPartitionMessage(events.get(2).getMessage());
        assertThat(added.getPartitions()).containsExactly(Map.of("ds", "a"), Map.of("ds", "b"));
        List<Partition> objects = new ArrayList<>();
        added.getPartitionObjs().forEach(objects::add);
        assertThat(objects).extracting(Partition::getValues).containsExactly(List.of("a"), List.of("b"));
        AlterPartitionMessage alteredPartition =
                deserializer.getAlterPartitionMessage(events.get(3).getMessage());
        assertThat(alteredPartition.getPtnObjAfter().getParameters()).containsEntry("numRows", "3");
        AlterTableMessage alteredTable =
                deserializer.getAlterTableMessage(events.get(4).getMessage());
        assertThat(alteredTable.getTableObjAfter().getParameters()).containsEntry("comment", "h3");
        assertThat(deserializer
                        .getDropPartitionMessage(events.get(5).getMessage())
                        .getPartitions())
                .containsExactly(Map.of("ds", "b"));
        assertThat(deserializer.getDropTableMessage(events.get(6).getMessage()).getTable())
                .isEqualTo("t");
        assertThat(deserializer
                        .getDropDatabaseMessage(events.get(7).getMessage())
                        .getDB())
                .isEqualTo("h3_events");

        NotificationEventsCountRequest count = new NotificationEventsCountRequest(start, "h3_events");
        assertThat(client.getNotificationEventsCount(count).getEventsCount()).isEqualTo(8);
    }
}
