package io.treecat.spark;

import static io.treecat.spark.SparkRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark appending to one Iceberg table through every node of a three-node TreeCat group (docs/replication.md),
 * one Iceberg REST catalog per node in one session, while the leader is frozen (SIGSTOP, then SIGCONT) and then
 * killed (SIGKILL), then restarted on its data. Afterwards the table, read through each of the three nodes, holds
 * every batch Spark was told was committed, all its rows; every batch there is whole and was sent; no row is there
 * twice.
 */
class ReplicatedGroupSparkIT {
    private static final List<String> IDS = List.of("n1", "n2", "n3");
    private static final int ROWS = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path directory;

    private static final Map<String, TreeCatServerProcess> servers = new LinkedHashMap<>();
    private static SparkSession spark;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @AfterAll
    static void stop() throws Exception {
        if (spark != null) {
            spark.stop();
        }
        for (TreeCatServerProcess server : servers.values()) {
            server.kill();
        }
    }

    @Test
    void sparkAppendsThroughEveryNodeLoseNoRowWhenTheLeaderIsFrozenAndKilled() throws Exception {
        startGroup();
        SparkSession.Builder builder = SparkSessions.local("treecat-replicated-group", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
        for (String id : IDS) {
            builder.config("spark.sql.catalog." + id, "org.apache.iceberg.spark.SparkCatalog")
                    .config("spark.sql.catalog." + id + ".type", "rest")
                    .config("spark.sql.catalog." + id + ".uri", servers.get(id).restUri())
                    .config("spark.sql.catalog." + id + ".cache-enabled", "false");
        }
        spark = builder.getOrCreate();
        spark.sql("CREATE NAMESPACE n1.rep");
        spark.sql("CREATE TABLE n1.rep.appends (batch INT, i INT) USING iceberg");

        Set<Integer> acknowledged = new HashSet<>();
        Set<Integer> unknown = new HashSet<>();
        int[] batch = {0};
        Runnable appendRound = () -> {
            for (String id : IDS) {
                if (servers.containsKey(id) && !frozen.contains(id)) {
                    int b = batch[0]++;
                    try {
                        spark.sql("INSERT INTO " + id + ".rep.appends SELECT " + b + ", CAST(id AS INT) FROM range("
                                + ROWS + ")");
                        acknowledged.add(b);
                    } catch (RuntimeException failed) {
                        // Refused or cut off: not acknowledged, so whole or absent.
                        unknown.add(b);
                    }
                }
            }
        };
        for (int round = 0; round < 4; round++) {
            appendRound.run();
        }
        List<String> faults = new ArrayList<>();

        // The leader frozen: appends through the other two go on once they elected a new leader.
        String leader = awaitLeader();
        servers.get(leader).signal("STOP");
        frozen.add(leader);
        for (int round = 0; round < 4; round++) {
            appendRound.run();
        }
        servers.get(leader).signal("CONT");
        frozen.remove(leader);
        faults.add("SIGSTOP/SIGCONT leader " + leader);
        for (int round = 0; round < 3; round++) {
            appendRound.run();
        }

        // The leader killed: the two left go on.
        String killed = awaitLeader();
        servers.remove(killed).kill();
        faults.add("SIGKILL leader " + killed);
        for (int round = 0; round < 5; round++) {
            appendRound.run();
        }

        // The killed node back on its own data: it catches up from the group, and is checked like the others,
        // through a catalog of its own (its HTTP port is new).
        servers.put(killed, start(killed));
        String restarted = killed + "_restarted";
        spark.conf().set("spark.sql.catalog." + restarted, "org.apache.iceberg.spark.SparkCatalog");
        spark.conf().set("spark.sql.catalog." + restarted + ".type", "rest");
        spark.conf()
                .set(
                        "spark.sql.catalog." + restarted + ".uri",
                        servers.get(killed).restUri());
        spark.conf().set("spark.sql.catalog." + restarted + ".cache-enabled", "false");
        faults.add("restart of " + killed + " on its data");
        Map<String, String> catalogs = new LinkedHashMap<>();
        for (String id : servers.keySet()) {
            catalogs.put(id, id.equals(killed) ? restarted : id);
        }

        for (String id : catalogs.values()) {
            Map<Integer, Long> rowsByBatch = new HashMap<>();
            for (List<Object> row : rows(spark, "SELECT batch, count(*) FROM " + id + ".rep.appends GROUP BY batch")) {
                rowsByBatch.put((Integer) row.get(0), (Long) row.get(1));
            }
            for (int b : acknowledged) {
                assertThat(rowsByBatch.get(b))
                        .as("rows of acknowledged batch %d through %s", b, id)
                        .isEqualTo(ROWS);
            }
            rowsByBatch.forEach((b, count) -> {
                assertThat(count).as("batch %d through %s is whole", b, id).isEqualTo(ROWS);
                assertThat(acknowledged.contains(b) || unknown.contains(b))
                        .as("batch %d was sent", b)
                        .isTrue();
            });
            assertThat(rows(
                            spark,
                            "SELECT batch, i, count(*) c FROM " + id + ".rep.appends GROUP BY batch, i HAVING c > 1"))
                    .as("rows there twice, through %s", id)
                    .isEmpty();
        }
        System.out.printf(
                "ReplicatedGroupSparkIT: faults %s; %d Spark appends acknowledged (all %d rows each on all three "
                        + "nodes), %d refused or cut off%n",
                faults, acknowledged.size(), ROWS, unknown.size());
        assertThat(acknowledged).hasSizeGreaterThan(20);
    }

    private static final Set<String> frozen = new HashSet<>();

    private static final List<String> peers = new ArrayList<>();

    /** A group has a leader only once a majority runs, and a node serves only then: start all three at once. */
    private static void startGroup() throws Exception {
        for (String id : IDS) {
            peers.add(id + "=127.0.0.1:" + TreeCatServerProcess.freePort());
        }
        ExecutorService starter = Executors.newFixedThreadPool(IDS.size());
        try {
            Map<String, Future<TreeCatServerProcess>> started = new LinkedHashMap<>();
            for (String id : IDS) {
                Files.createDirectories(directory.resolve(id));
                started.put(id, starter.submit(() -> start(id)));
            }
            for (Map.Entry<String, Future<TreeCatServerProcess>> server : started.entrySet()) {
                servers.put(server.getKey(), server.getValue().get());
            }
        } finally {
            starter.shutdownNow();
        }
    }

    /** Starts node {@code id} on its data directory (kept from an earlier run of it, if any). */
    private static TreeCatServerProcess start(String id) throws IOException, InterruptedException {
        return TreeCatServerProcess.start(
                directory.resolve(id),
                "",
                Map.of(),
                List.of("-Ddw.replication.node-id=" + id, "-Ddw.replication.peers=" + String.join(",", peers)));
    }

    /** The running node whose gauge says it leads; waits for one. */
    private String awaitLeader() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (Map.Entry<String, TreeCatServerProcess> server : servers.entrySet()) {
                if (!frozen.contains(server.getKey()) && leads(server.getValue())) {
                    return server.getKey();
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader within 60 s");
    }

    private boolean leads(TreeCatServerProcess server) {
        try {
            HttpResponse<String> metrics = http.send(
                    HttpRequest.newBuilder(URI.create(server.adminUri() + "/metrics"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(metrics.body())
                            .path("gauges")
                            .path("treecat.replication.leader")
                            .path("value")
                            .asLong()
                    == 1;
        } catch (IOException | InterruptedException notNow) {
            return false;
        }
    }
}
