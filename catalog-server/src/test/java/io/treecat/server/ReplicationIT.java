package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three packaged servers on loopback as one replicated group (docs/replication.md), with writers on
 * every node committing without pause, while the leader is killed with SIGKILL again and again and
 * comes back on its own data. After the run every node holds every acknowledged commit, the nodes
 * agree on the commit log vid by vid, and the fail-over times are printed.
 *
 * <p>{@code -Dtreecat.replication.kills} (3 in CI) sets how many leaders are killed.
 */
class ReplicationIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KILLS = Integer.getInteger("treecat.replication.kills", 3);
    private static final List<String> IDS = List.of("n1", "n2", "n3");

    /** Under target/, not a temporary directory: the three servers' logs outlive a failed run. */
    private final Path directory = Path.of("target", "replication-it").toAbsolutePath();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<String, PackagedServer> servers = new ConcurrentHashMap<>();
    private final Map<String, Integer> raftPorts = new ConcurrentHashMap<>();
    /** Refused commits by status and error code, for the report. */
    private final Map<String, Integer> refusals = new ConcurrentHashMap<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (PackagedServer server : servers.values()) {
            server.kill();
        }
    }

    @BeforeEach
    void cleanDirectory() throws IOException {
        if (Files.exists(directory)) {
            try (var paths = Files.walk(directory)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    private List<String> options(String id) {
        List<String> options = new ArrayList<>(
                List.of("-Ddw.replication.node-id=" + id, "-Ddw.logging.loggers.io\\.treecat\\.replication=INFO"));
        List<String> peers = new ArrayList<>();
        for (String peer : IDS) {
            peers.add(peer + "=127.0.0.1:" + raftPorts.get(peer));
        }
        options.add("-Ddw.replication.peers=" + String.join(",", peers));
        return options;
    }

    private PackagedServer start(String id) throws IOException, InterruptedException {
        PackagedServer server = PackagedServer.start(directory.resolve(id), id + ".log", options(id));
        servers.put(id, server);
        return server;
    }

    /** A group starts only once a majority runs: start every node at once. */
    private void startGroup() throws Exception {
        for (String id : IDS) {
            raftPorts.put(id, freePort());
        }
        ExecutorService starter = Executors.newFixedThreadPool(IDS.size());
        try {
            List<Future<PackagedServer>> started = new ArrayList<>();
            for (String id : IDS) {
                started.add(starter.submit(() -> start(id)));
            }
            for (Future<PackagedServer> future : started) {
                future.get();
            }
        } finally {
            starter.shutdownNow();
        }
    }

    @Test
    void killingTheLeaderUnderContinuousCommitsLosesNoAcknowledgedCommit() throws Exception {
        startGroup();
        assertThat(commit(servers.get("n1").uri(), "/w")).isPositive();

        Map<String, Long> acknowledged = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean writing = new AtomicBoolean(true);
        // Fail-over: from the kill to the first acknowledged commit that was sent after it.
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstAckAfterKill = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        for (String home : IDS) {
            Thread writer = new Thread(() -> {
                int sequence = 0;
                while (writing.get()) {
                    PackagedServer server = servers.get(home);
                    String name = home + "-" + sequence++;
                    try {
                        if (server == null || !server.isAlive()) {
                            Thread.sleep(50);
                            continue;
                        }
                        long sentAt = System.nanoTime();
                        long vid = commit(server.uri(), "/w/" + name);
                        if (vid > 0) {
                            acknowledged.put(name, vid);
                            if (sentAt > killedAt.get()) {
                                firstAckAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        } else {
                            refused.incrementAndGet();
                        }
                    } catch (IOException notAnswered) {
                        // Its node died under it: outcome unknown, not acknowledged.
                        refused.incrementAndGet();
                        refusals.merge("no answer", 1, Integer::sum);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            writer.start();
            writers.add(writer);
        }

        List<Long> failoverMillis = new ArrayList<>();
        for (int kill = 0; kill < KILLS; kill++) {
            Thread.sleep(2_000);
            String leader = awaitLeader(null);
            firstAckAfterKill.set(0);
            killedAt.set(System.nanoTime());
            servers.get(leader).kill();
            servers.remove(leader);
            String next = awaitLeader(leader);
            assertThat(next).isNotEqualTo(leader);
            while (firstAckAfterKill.get() == 0) {
                Thread.sleep(10);
                assertThat(Duration.ofNanos(System.nanoTime() - killedAt.get())).isLessThan(Duration.ofSeconds(60));
            }
            failoverMillis.add((firstAckAfterKill.get() - killedAt.get()) / 1_000_000);
            killedAt.set(Long.MAX_VALUE);
            start(leader); // back on its own data and log, while the others go on committing
        }
        Thread.sleep(1_000);
        writing.set(false);
        for (Thread writer : writers) {
            writer.join(60_000);
        }

        // Every node converges on the same newest vid, holds every acknowledged commit, and agrees with
        // the others on the commit log, vid by vid.
        long newest = 0;
        for (String id : IDS) {
            newest = Math.max(newest, newestVid(servers.get(id).uri()));
        }
        long target = newest;
        for (String id : IDS) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (newestVid(servers.get(id).uri()) < target) {
                assertThat(System.nanoTime())
                        .as("%s reaches vid %d", id, target)
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        String log = null;
        for (String id : IDS) {
            URI uri = servers.get(id).uri();
            Set<String> names = names(uri);
            assertThat(names).as("acknowledged commits on %s", id).containsAll(acknowledged.keySet());
            String nodeLog = commitLog(uri, target);
            if (log == null) {
                log = nodeLog;
            } else {
                assertThat(nodeLog).as("the commit log of %s", id).isEqualTo(log);
            }
        }
        // Read-your-writes across nodes: a commit through one node, read through another with its vid.
        long written = commit(servers.get("n1").uri(), "/w/read-your-writes");
        HttpResponse<String> read = http.send(
                HttpRequest.newBuilder(servers.get("n2")
                                .uri()
                                .resolve("/treecat/v1/query?q="
                                        + URLEncoder.encode(
                                                "/[obj_id='w']/[obj_id='read-your-writes']", StandardCharsets.UTF_8)))
                        .header("X-TreeCat-Min-Vid", Long.toString(written))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(JSON.readTree(read.body()).get("rows")).hasSize(1);
        assertThat(Long.parseLong(read.headers().firstValue("X-TreeCat-Vid").orElseThrow()))
                .isGreaterThanOrEqualTo(written);

        Collections.sort(failoverMillis);
        System.out.printf(
                "ReplicationIT: %d leaders killed, %d commits acknowledged (0 lost), %d refused or unanswered, "
                        + "newest vid %d; fail-over (kill to the first acknowledged commit sent after it) p50 %d ms, "
                        + "max %d ms: %s; "
                        + "refusals %s%n",
                KILLS,
                acknowledged.size(),
                refused.get(),
                target,
                failoverMillis.get(failoverMillis.size() / 2),
                failoverMillis.get(failoverMillis.size() - 1),
                failoverMillis,
                refusals);
        assertThat(acknowledged).hasSizeGreaterThan(KILLS * 10);
    }

    /** The node whose gauge says it leads, other than {@code not}; waits for one. */
    private String awaitLeader(String not) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (Map.Entry<String, PackagedServer> server : servers.entrySet()) {
                if (!server.getKey().equals(not) && gauge(server.getValue(), "treecat.replication.leader") == 1) {
                    return server.getKey();
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no leader within 60 s");
    }

    private long gauge(PackagedServer server, String name) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(response.body())
                    .get("gauges")
                    .get(name)
                    .get("value")
                    .asLong();
        } catch (IOException | InterruptedException | RuntimeException notNow) {
            return -1;
        }
    }

    /** The vid of an acknowledged commit, or -1 for a refusal (no leader, outcome unknown). */
    private long commit(URI server, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(server.resolve("/treecat/v1/commit"))
                        .timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"" + path + "\", \"value\": {}}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            assertThat(response.statusCode()).as(response.body()).isIn(500, 503);
            String code =
                    JSON.readTree(response.body()).path("error").path("type").asText("?");
            if (refusals.merge(response.statusCode() + " " + code, 1, Integer::sum) == 1) {
                System.out.println("ReplicationIT: first " + code + ": " + response.body());
            }
            return -1;
        }
        return JSON.readTree(response.body()).get("vid").asLong();
    }

    private long newestVid(URI server) throws IOException, InterruptedException {
        JsonNode page = get(server, "/treecat/v1/commits?limit=1&order=newest");
        return page.get("commits").get(0).get("vid").asLong();
    }

    private Set<String> names(URI server) throws IOException, InterruptedException {
        Set<String> names = new HashSet<>();
        String continuation = null;
        do {
            JsonNode page = get(
                    server,
                    "/treecat/v1/query?q=" + URLEncoder.encode("/[obj_id='w']/*", StandardCharsets.UTF_8)
                            + (continuation == null
                                    ? ""
                                    : "&pageToken=" + URLEncoder.encode(continuation, StandardCharsets.UTF_8)));
            for (JsonNode row : page.get("rows")) {
                String path = row.get("path").asText();
                names.add(path.substring(path.lastIndexOf('/') + 1));
            }
            continuation =
                    page.hasNonNull("nextPageToken") ? page.get("nextPageToken").asText() : null;
        } while (continuation != null);
        return names;
    }

    /** The commit log up to {@code through}, as the node lists it: vids, times, origins and changes. */
    private String commitLog(URI server, long through) throws IOException, InterruptedException {
        StringBuilder log = new StringBuilder();
        String token = null;
        do {
            JsonNode page = get(
                    server,
                    "/treecat/v1/commits?limit=1000&until=" + through
                            + (token == null ? "" : "&pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8)));
            for (JsonNode commit : page.get("commits")) {
                log.append(commit).append('\n');
            }
            token = page.hasNonNull("nextPageToken") ? page.get("nextPageToken").asText() : null;
        } while (token != null && !token.isEmpty());
        return log.toString();
    }

    private JsonNode get(URI server, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(server.resolve(path))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
