package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive event ids survive {@code kill -9} while retention collects (issue 16): the packaged server keeps the newest 5
 * versions and collects every 200 ms, so the commit log's oldest records are gone; the notification log's index is
 * saved as checkpoints in the tree and its pin holds the collector at the newest one. The test makes Hive events
 * with Hive's own client, reads every event the server serves, makes a last burst and kills the server with SIGKILL
 * at once (between those commits and their checkpoint), then starts it again on the same data:
 *
 * <ul>
 *   <li>every event still served has the id, type and message it had before the kill, the newest id included;
 *   <li>the horizon did not pass the events the index had counted only in memory: they are recounted, not lost;
 *   <li>a follower goes on at the next id with Hive's client (which refuses a gap), also after 140 more events let
 *       the index save past the burst and the collector move on (from any event still kept).
 * </ul>
 *
 * Runs after {@code package} (failsafe).
 */
class HmsEventIdsCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void eventIdsAreTheSameAfterAKillBetweenCommitsAndTheirCheckpoint() throws Exception {
        Path home = directory.resolve("server");
        List<String> options = List.of(
                "-Ddw.retention.keep-for=0 seconds",
                "-Ddw.retention.keep-versions=5",
                "-Ddw.retention.gc-interval=200ms");
        PackagedServer server = PackagedServer.start(home, "server-0.log", options);
        List<NotificationEvent> beforeKill;
        long newest;
        try {
            HiveMetaStoreClient client = hiveClient(server);
            try {
                createDatabases(client, "early", 300);
                // The collector has removed what the saved checkpoints count.
                awaitGauge(server, "treecat.gc.horizon", 200);
                createDatabases(client, "burst", 20);
                newest = client.getCurrentNotificationEventId().getEventId();
                beforeKill = allEvents(server);
            } finally {
                client.close();
            }
            server.kill();
        } catch (Throwable e) {
            server.close();
            throw e;
        }
        assertThat(newest).isEqualTo(320);
        long firstBefore = beforeKill.get(0).getEventId();
        assertThat(firstBefore).isGreaterThan(1);
        assertThat(beforeKill.get(beforeKill.size() - 1).getEventId()).isEqualTo(newest);

        server = PackagedServer.start(home, "server-1.log", options);
        try {
            List<NotificationEvent> after = allEvents(server);
            // The same ids for the same events; the collector may have moved on since the start, never backwards.
            assertThat(after).isNotEmpty();
            long firstAfter = after.get(0).getEventId();
            assertThat(firstAfter).isGreaterThanOrEqualTo(firstBefore);
            assertThat(after).isEqualTo(beforeKill.subList((int) (firstAfter - firstBefore), beforeKill.size()));

            HiveMetaStoreClient client = hiveClient(server);
            try {
                assertThat(client.getCurrentNotificationEventId().getEventId()).isEqualTo(newest);
                Database db = new Database();
                db.setName("after_kill");
                client.createDatabase(db);
                assertThat(client.getNextNotification(newest, 10, null).getEvents())
                        .extracting(NotificationEvent::getEventId, NotificationEvent::getDbName)
                        .containsExactly(tuple(newest + 1, "after_kill"));
                // Once the index has saved past the burst (a checkpoint per 128 records), the collector moves on, and
                // what is left still has its ids; a follower goes on without a gap.
                long horizon = gauge(server, "treecat.gc.horizon");
                createDatabases(client, "late", 140);
                awaitGauge(server, "treecat.gc.horizon", horizon + 100);
                List<NotificationEvent> kept = allEvents(server);
                assertThat(kept.get(kept.size() - 1).getEventId()).isEqualTo(newest + 141);
                long first = kept.get(0).getEventId();
                assertThat(first).isGreaterThan(firstAfter);
                if (first <= newest) {
                    assertThat(kept.subList(0, (int) (newest - first + 1)))
                            .isEqualTo(beforeKill.subList((int) (first - firstBefore), beforeKill.size()));
                }
                // A follower at the event before the oldest kept goes on (one further behind is told of the gap, as
                // with Hive's own cleaner: retention here keeps 5 versions).
                assertThat(client.getNextNotification(first - 1, 200, null).getEvents())
                        .extracting(NotificationEvent::getEventId)
                        .hasSize((int) (newest + 141 - first + 1))
                        .startsWith(first)
                        .endsWith(newest + 141);
            } finally {
                client.close();
            }
        } finally {
            server.close();
        }
    }

    private static HiveMetaStoreClient hiveClient(PackagedServer server) throws Exception {
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", "thrift://127.0.0.1:" + server.hmsPort());
        return new HiveMetaStoreClient(conf);
    }

    private static void createDatabases(HiveMetaStoreClient client, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Database db = new Database();
            db.setName(prefix + i);
            client.createDatabase(db);
        }
    }

    /** Every event served, with Thrift's generated client (which allows the gap before the oldest one kept). */
    private static List<NotificationEvent> allEvents(PackagedServer server) throws Exception {
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            List<NotificationEvent> all = new ArrayList<>();
            long last = 0;
            while (true) {
                NotificationEventRequest request = new NotificationEventRequest(last);
                request.setMaxEvents(100);
                List<NotificationEvent> page =
                        client.get_next_notification(request).getEvents();
                if (page.isEmpty()) {
                    return all;
                }
                all.addAll(page);
                last = page.get(page.size() - 1).getEventId();
            }
        } finally {
            socket.close();
        }
    }

    private void awaitGauge(PackagedServer server, String name, long atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (gauge(server, name) < atLeast) {
            assertThat(System.nanoTime())
                    .as("%s never reached %d", name, atLeast)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private long gauge(PackagedServer server, String name) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode gauges = JSON.readTree(response.body()).get("gauges");
        return gauges.get(name).get("value").asLong();
    }
}
