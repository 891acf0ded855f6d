package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.model.HiveEventCheckpointEntry;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Event ids that stay the same when retention collects the commit log (issue 16): the index's checkpoints are saved
 * in the tree as commits arrive and loaded at start, and the log's pin keeps the collector from removing commits the
 * index has not counted durably. Real RocksDB, real Thrift on loopback, Hive's own client (which refuses a gap), and
 * the core's own garbage collector with the shortest retention (the newest vid only).
 */
class TestHmsEventIds {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    @Test
    void idsStayTheSameWhenRetentionCollectsTheLogAndAfterARestart() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        createDatabases(client, "a", 300);
        awaitSavedUpToTheLastStride();
        // Held from here: the stop below saves nothing more, as a crash between commits and their checkpoint.
        hms.server().eventIndexer().pause();
        List<NotificationEvent> before = allEvents(hms.client());
        long current = client.getCurrentNotificationEventId().getEventId();
        assertThat(before).hasSize((int) current);
        assertThat(current).isGreaterThanOrEqualTo(300);
        long saved = savedVid();

        collect(hms.catalog());
        long horizon = hms.catalog().tree().horizon();
        // The collector went as far as the pin: at or after the vid before the newest saved checkpoint, before the
        // first commit with events no saved checkpoint counts.
        assertThat(horizon)
                .isEqualTo(hms.server().eventLog().pinnedVid())
                .isGreaterThanOrEqualTo(saved - 1)
                .isGreaterThan(HmsEventLog.STRIDE);
        assertThat(hms.catalog().tree().log().find(1)).isEmpty();
        long first = hms.server().eventLog().firstEventId();
        assertThat(first).isGreaterThan(1);
        assertThat(allEvents(hms.client())).isEqualTo(before.subList((int) first - 1, before.size()));

        hms.restart();
        HiveMetaStoreClient again = hms.hiveClient();
        assertThat(again.getCurrentNotificationEventId().getEventId()).isEqualTo(current);
        // Loaded, not rebuilt: only the commits since the newest saved checkpoint were counted again.
        assertThat(hms.server().eventLog().recordsCounted()).isPositive().isLessThan(HmsEventLog.STRIDE + 2);
        // Another pass after the restart stops at the pin too, and the log answers the same ids.
        hms.server().eventIndexer().pause();
        collect(hms.catalog());
        assertThat(hms.catalog().tree().horizon())
                .isEqualTo(hms.server().eventLog().pinnedVid())
                .isGreaterThanOrEqualTo(horizon);
        assertThat(hms.server().eventLog().firstEventId()).isEqualTo(first);
        assertThat(allEvents(hms.client())).isEqualTo(before.subList((int) first - 1, before.size()));

        // A follower that was at event N (any N the log still keeps) goes on at N + 1 with Hive's own client.
        long follower = current - 5;
        assertThat(again.getNextNotification(follower, 100, null).getEvents())
                .isEqualTo(before.subList((int) follower, before.size()));
        Database db = new Database();
        db.setName("after_restart");
        again.createDatabase(db);
        assertThat(again.getNextNotification(current, 100, null).getEvents())
                .extracting(
                        NotificationEvent::getEventId, NotificationEvent::getEventType, NotificationEvent::getDbName)
                .containsExactly(tuple(current + 1, "CREATE_DATABASE", "after_restart"));
        // One from before the oldest event kept is told of the gap, as by a metastore whose cleaner removed events.
        assertThatThrownBy(() -> again.getNextNotification(0, 10, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Notification events are missing");
    }

    @Test
    void thePinHoldsCollectionBackWhileTheIndexLags() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        createDatabases(client, "warm", 3);
        HmsEventIndexer indexer = hms.server().eventIndexer();
        indexer.pause();
        long saved = savedVid();
        long pinned = hms.server().eventLog().pinnedVid();
        assertThat(pinned).isGreaterThanOrEqualTo(saved - 1);

        createDatabases(client, "lag", 2 * HmsEventLog.STRIDE);
        List<NotificationEvent> before = allEvents(hms.client());
        collect(hms.catalog());
        // The index has not saved what it counted: the collector waits at its pin, before the first new event.
        assertThat(hms.catalog().tree().horizon()).isEqualTo(pinned);
        assertThat(pinned).isLessThan(saved + 3);
        assertThat(hms.catalog().lastVid()).isGreaterThan(saved + 2L * HmsEventLog.STRIDE);

        indexer.resume();
        awaitSavedUpToTheLastStride();
        collect(hms.catalog());
        long horizon = hms.catalog().tree().horizon();
        assertThat(horizon).isEqualTo(hms.server().eventLog().pinnedVid()).isGreaterThan(saved + HmsEventLog.STRIDE);
        long first = hms.server().eventLog().firstEventId();
        assertThat(first).isGreaterThan(1);
        assertThat(allEvents(hms.client())).isEqualTo(before.subList((int) first - 1, before.size()));
    }

    @Test
    void aCleanStopSavesEveryEventSoNothingIsCountedAgain() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        createDatabases(client, "few", 5);
        List<NotificationEvent> before = allEvents(hms.client());

        hms.restart();
        assertThat(hms.server().eventLog().saved().map(HiveEventCheckpointEntry::eventsBefore))
                .contains((long) before.size());
        assertThat(allEvents(hms.client())).isEqualTo(before);
        // Counted again: only the commits of the saves themselves (the first save saves the start too).
        assertThat(hms.server().eventLog().recordsCounted()).isLessThanOrEqualTo(2);
    }

    @Test
    void commitsWithoutHiveEventsDoNotHoldCollectionBack() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        createDatabases(client, "kept", 3);
        long current = client.getCurrentNotificationEventId().getEventId();
        // Commits outside any catalog make no Hive event.
        hms.catalog()
                .commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.of("notes"),
                        ObjectKind.INNER,
                        NamespaceEntry.of(Map.of()).encode())));
        for (int i = 0; i < 5; i++) {
            hms.catalog()
                    .commit(WriteSet.of(new WriteOp.Update(
                            ObjectPath.of("notes"),
                            ObjectKind.INNER,
                            NamespaceEntry.of(Map.of("n", String.valueOf(i))).encode())));
        }
        long newest = hms.catalog().lastVid();
        // The kept databases' events are not saved yet (fewer than a stride of records): the first one is held.
        collect(hms.catalog());
        long horizon = hms.catalog().tree().horizon();
        assertThat(horizon).isLessThan(newest - 5);
        assertThat(hms.catalog().tree().log().find(horizon + 1)).isPresent();
        // Once they are saved (a clean stop), the pin follows every commit without events.
        hms.restart();
        await(() -> hms.server().eventLog().pinnedVid() >= hms.catalog().lastVid(), "the pin never moved");
        collect(hms.catalog());
        assertThat(hms.catalog().tree().horizon()).isEqualTo(hms.catalog().lastVid());
        HiveMetaStoreClient again = hms.hiveClient();
        assertThat(again.getCurrentNotificationEventId().getEventId()).isEqualTo(current);
        Database db = new Database();
        db.setName("after_collection");
        again.createDatabase(db);
        assertThat(again.getNextNotification(current, 10, null).getEvents())
                .extracting(NotificationEvent::getEventId, NotificationEvent::getDbName)
                .containsExactly(tuple(current + 1, "after_collection"));
    }

    @Test
    void commitsCollectedWhileNoHmsListenerRanAreNotCounted() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        createDatabases(client, "kept", 5);
        long current = client.getCurrentNotificationEventId().getEventId();

        hms.restart(catalog -> {
            // While no HMS listener holds the log: databases made natively (Hive events nobody counted), then
            // everything but the newest vid collected.
            catalog.commit(WriteSet.of(new WriteOp.Add(
                    ObjectPath.of("warehouse", "lost"),
                    ObjectKind.INNER,
                    NamespaceEntry.of(Map.of()).encode())));
            catalog.commit(WriteSet.of(new WriteOp.Add(
                    ObjectPath.of("warehouse", "lost_too"),
                    ObjectKind.INNER,
                    NamespaceEntry.of(Map.of()).encode())));
            collect(catalog);
            assertThat(catalog.tree().horizon()).isEqualTo(catalog.lastVid());
        });
        HiveMetaStoreClient again = hms.hiveClient();
        // Counted on from the saved count: the lost databases' events are not reported (documented).
        assertThat(again.getCurrentNotificationEventId().getEventId()).isEqualTo(current);
        Database db = new Database();
        db.setName("after_loss");
        again.createDatabase(db);
        assertThat(again.getNextNotification(current, 10, null).getEvents())
                .extracting(NotificationEvent::getEventId, NotificationEvent::getDbName)
                .containsExactly(tuple(current + 1, "after_loss"));
    }

    @Test
    void twoLogsSavingIntoOneTreeAgreeOnEveryId() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        HmsCalls hive = new HmsCalls(
                new TransactionRunner(() -> hms.catalog(), Authorizer.allowAll()),
                Warehouses.underRoot(hms.warehouse(), new LocalFileIO()),
                new HmsNames("warehouse"));
        // A second writer of the same checkpoints as the server's indexer, with a short stride: their saves race.
        try (HmsEventLog other = new HmsEventLog(
                () -> hms.catalog(), new HmsCommitEvents(hive), HmsEventCheckpointStore.inTree(hive), 3)) {
            for (int i = 0; i < 40; i++) {
                Database db = new Database();
                db.setName("race" + i);
                client.createDatabase(db);
                other.saveIfDue(false);
            }
            other.saveIfDue(true);
            awaitSavedUpToTheLastStride();
            List<NotificationEvent> events = allEvents(hms.client());
            assertThat(other.next(0, 1000, Long.MAX_VALUE, event -> true)).isEqualTo(events);
            // Every checkpoint either saved counts what the log says before its vid.
            hms.restart();
            assertThat(allEvents(hms.client())).isEqualTo(events);
        }
    }

    /** One pass of the core's collector keeping only the newest vid (and whatever is pinned). */
    private static void collect(CatalogService catalog) {
        RetentionConfig newestOnly =
                RetentionConfig.defaults().withRetention(Optional.of(Duration.ZERO), OptionalLong.of(1));
        try (GarbageCollector collector = new GarbageCollector(catalog.tree(), newestOnly, Clock.systemUTC())) {
            assertThat(collector.collect().completed()).isTrue();
        }
    }

    private static void createDatabases(HiveMetaStoreClient client, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Database db = new Database();
            db.setName(prefix + i);
            client.createDatabase(db);
        }
    }

    /** Every event the log serves, paged as a follower would, with Thrift's generated client (which allows gaps). */
    private static List<NotificationEvent> allEvents(ThriftHiveMetastore.Client client) throws Exception {
        List<NotificationEvent> all = new ArrayList<>();
        long last = 0;
        while (true) {
            NotificationEventRequest request = new NotificationEventRequest(last);
            request.setMaxEvents(100);
            List<NotificationEvent> page = client.get_next_notification(request).getEvents();
            if (page.isEmpty()) {
                return all;
            }
            all.addAll(page);
            last = page.get(page.size() - 1).getEventId();
        }
    }

    private long savedVid() {
        return hms.server().eventLog().saved().orElseThrow().vid();
    }

    /** Waits until the indexer has saved all but less than a stride of what was committed. */
    private void awaitSavedUpToTheLastStride() throws InterruptedException {
        await(() -> savedVid() > hms.catalog().lastVid() - HmsEventLog.STRIDE + 1, "the index was never saved");
    }

    private static void await(BooleanSupplier condition, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(failure).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
