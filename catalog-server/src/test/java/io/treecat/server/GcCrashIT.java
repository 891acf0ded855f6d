package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage collection survives {@code kill -9} (issue 16): the packaged server, in its own process,
 * keeps the newest 20 versions and collects continuously, rate-limited so that a pass takes seconds;
 * the test writes a history (every commit rewrites the same leaves and their table), waits until the
 * collector has started deleting, kills the server with SIGKILL in the middle of the pass, and starts
 * it again on the same data. Then:
 *
 * <ul>
 *   <li>the horizon is where it was or further (it is durable before anything below it is deleted);
 *   <li>every vid from the horizon to the newest reads exactly what the test wrote up to it (the
 *       table's value and all its leaves, each with the round that last wrote it);
 *   <li>vids below the horizon are VERSION_EXPIRED, never a partial answer.
 * </ul>
 *
 * Three kills (for CI); runs after {@code package} (failsafe).
 */
class GcCrashIT {
    private static final int KILLS = Integer.getInteger("treecat.gc-crash.kills", 3);
    private static final int LEAVES = 40;
    private static final int COMMITS_PER_ROUND = 150;
    private static final int RETAINED = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The round each acknowledged vid wrote: a commit of round r sets the table and every leaf to r. */
    private final TreeMap<Long, Integer> written = new TreeMap<>();

    @Test
    void aKillDuringCollectionLosesNoRetainedVersionAndExpiresTheRest() throws Exception {
        Random random = new Random(16);
        Path home = directory.resolve("server");
        List<String> options = List.of(
                "-Ddw.retention.keep-for=0 seconds",
                "-Ddw.retention.keep-versions=" + RETAINED,
                "-Ddw.retention.gc-interval=200ms",
                "-Ddw.retention.gc-rate-limit=1500");
        PackagedServer server = PackagedServer.start(home, "server-0.log", options);
        long reclaimedAtKills = 0;
        try {
            long setUp = commit(
                    server.uri(),
                    "{\"writes\": [{\"op\": \"add\", \"path\": \"/gc\", \"value\": {\"round\": 0}}" + leaves("add", 0)
                            + "]}");
            written.put(setUp, 0);
            int round = 1;
            for (int kill = 1; kill <= KILLS; kill++) {
                for (int i = 0; i < COMMITS_PER_ROUND; i++, round++) {
                    long vid = commit(
                            server.uri(),
                            "{\"writes\": [{\"op\": \"update\", \"path\": \"/gc\", \"kind\": \"inner\", \"value\": {\"round\": "
                                    + round + "}}" + leaves("update", round) + "]}");
                    written.put(vid, round);
                }
                long horizonBefore = awaitCollecting(server);
                reclaimedAtKills += gauge(server, "treecat.gc.keys-reclaimed");
                Thread.sleep(random.nextInt(400));
                server.kill();

                // Restarted paused, so the horizon stays where the kill left it while every vid is read.
                List<String> paused = new ArrayList<>(options);
                paused.add("-Ddw.retention.gc-paused=true");
                server = PackagedServer.start(home, "server-" + kill + ".log", paused);
                long horizon = check(server);
                assertThat(horizon).isGreaterThanOrEqualTo(horizonBefore);
                // Then the collector finishes what the kill interrupted: the retained versions still read the same.
                admin(server, "/tasks/gc-resume");
                awaitHorizon(server, written.lastKey() - RETAINED + 1);
                // Paused again before reading: the server commits too (the Hive event log's checkpoints), and with
                // keep-versions each of its commits moves the horizon past a vid this test wrote while it reads.
                // The task returns once a pass already started has stopped: the horizon no longer moves.
                admin(server, "/tasks/gc-pause");
                check(server);
                admin(server, "/tasks/gc-resume");
            }
        } finally {
            server.close();
        }
        String figures = String.format(
                "kills=%d commits=%d keysReclaimedBeforeKills=%d%n", KILLS, written.size(), reclaimedAtKills);
        System.out.print("GcCrashIT: " + figures);
        Files.writeString(Path.of("target/gc-crash.txt"), figures);
    }

    private static String leaves(String op, int round) {
        StringBuilder writes = new StringBuilder();
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            writes.append(", {\"op\": \"")
                    .append(op)
                    .append("\", \"path\": \"/gc/f")
                    .append(leaf)
                    .append("\", \"kind\": \"leaf\", \"value\": {\"round\": ")
                    .append(round)
                    .append("}}");
        }
        return writes.toString();
    }

    /** Waits until a pass has deleted something; returns the horizon then. */
    private long awaitCollecting(PackagedServer server) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long start = gauge(server, "treecat.gc.keys-reclaimed");
        while (gauge(server, "treecat.gc.keys-reclaimed") == start) {
            assertThat(System.nanoTime())
                    .as("the collector never started deleting")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        return gauge(server, "treecat.gc.horizon");
    }

    private void awaitHorizon(PackagedServer server, long horizon) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (gauge(server, "treecat.gc.horizon") < horizon) {
            assertThat(System.nanoTime())
                    .as("the horizon never reached %d", horizon)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Checks every vid against what was written; returns the horizon. */
    private long check(PackagedServer server) throws Exception {
        long horizon = gauge(server, "treecat.gc.horizon");
        long newest = written.lastKey();
        assertThat(horizon).isBetween(1L, newest);
        for (long vid = horizon; vid <= newest; vid++) {
            int round = written.floorEntry(vid).getValue();
            JsonNode table = read(server, "/treecat/v1/objects?path=%2Fgc&vid=" + vid);
            assertThat(table.get("value").get("round").asInt())
                    .as("/gc at %d", vid)
                    .isEqualTo(round);
            JsonNode rows = read(
                            server, "/treecat/v1/query?q=" + encode("/[obj_id='gc']/*") + "&vid=" + vid + "&limit=1000")
                    .get("rows");
            Map<String, Integer> rounds = new TreeMap<>();
            rows.forEach(row -> rounds.put(
                    row.get("path").asText(), row.get("value").get("round").asInt()));
            assertThat(rounds).as("leaves at %d", vid).hasSize(LEAVES);
            assertThat(rounds.values()).as("leaves at %d", vid).containsOnly(round);
        }
        List<Long> expired = new ArrayList<>(List.of(0L, horizon - 1, horizon / 2));
        for (long vid : expired) {
            HttpResponse<String> response =
                    get(server, "/treecat/v1/query?q=" + encode("/[obj_id='gc']/*") + "&vid=" + vid);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
            JsonNode error = JSON.readTree(response.body()).get("error");
            assertThat(error.get("type").asText()).isEqualTo("VERSION_EXPIRED");
            assertThat(error.get("message").asText())
                    .startsWith("Version " + vid + " has expired: the oldest readable version is ");
        }
        return horizon;
    }

    private JsonNode read(PackagedServer server, String path) throws Exception {
        HttpResponse<String> response = get(server, path);
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> get(PackagedServer server, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(server.uri().resolve(path))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void admin(PackagedServer server, String task) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + task))
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private long gauge(PackagedServer server, String name) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body())
                .get("gauges")
                .get(name)
                .get("value")
                .asLong();
    }

    private long commit(URI server, String writeSet) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(server.resolve("/treecat/v1/commit"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(writeSet))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("vid").asLong();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
