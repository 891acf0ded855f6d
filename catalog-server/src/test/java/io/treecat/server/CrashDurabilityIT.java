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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability from outside (docs/robustness.md): the packaged server, in its own process, is killed
 * with SIGKILL while PyIceberg appends to one table from two processes and two native clients
 * commit write sets over HTTP; it is started again on the same data directory, and then:
 *
 * <ul>
 *   <li>every append the server acknowledged is readable, all its rows, and its snapshot is in the
 *       table's history; no row is there twice;
 *   <li>every native commit the server acknowledged has all its objects;
 *   <li>a write whose answer the kill cut off is there whole or not at all, and nothing that was never
 *       sent is there.
 * </ul>
 *
 * <p>{@code treecat.crash.kills} kills per run (3 by default, for CI; the longer run of
 * docs/robustness.md passes more). The PyIceberg virtual environment is {@link PyIcebergIT}'s
 * ({@link PythonProcesses}). Runs after {@code package} (failsafe).
 */
class CrashDurabilityIT {
    private static final int KILLS = Integer.getInteger("treecat.crash.kills", 3);
    private static final int PYICEBERG_WRITERS = 2;
    private static final int NATIVE_WRITERS = 2;
    /** Leaves each native commit adds below its own inner object. */
    private static final List<String> LEAVES = List.of("a", "b", "c");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void everyAcknowledgedWriteSurvivesSigkillExactlyOnceAndNothingIsHalfThere() throws Exception {
        Random random = new Random(24);
        Path python = PythonProcesses.python(directory);
        PyIcebergAppends pyiceberg = new PyIcebergAppends(python, directory);
        Path home = directory.resolve("server");
        List<PyIcebergAppends.Ledger> appends = new ArrayList<>();
        List<PyIcebergAppends.Ledger> commits = new ArrayList<>();
        for (int writer = 0; writer < PYICEBERG_WRITERS; writer++) {
            appends.add(new PyIcebergAppends.Ledger());
        }
        for (int writer = 0; writer < NATIVE_WRITERS; writer++) {
            commits.add(new PyIcebergAppends.Ledger());
        }
        int presentUnknown = 0;
        long started = System.nanoTime();

        PackagedServer server = PackagedServer.start(home, "server-0.log");
        try {
            setUp(pyiceberg, server);
            for (int round = 1; round <= KILLS; round++) {
                Round writing = new Round(round, pyiceberg, server, appends, commits);
                writing.start();
                writing.awaitAcknowledgements();
                Thread.sleep(300 + random.nextInt(2500));
                server.kill();
                writing.awaitEnd();

                server = PackagedServer.start(home, "server-" + round + ".log");
                // Writes cut off in earlier rounds are still there or still absent: the last check counts them all.
                presentUnknown = pyiceberg.check(server.uri(), appends) + checkCommits(server, commits);
            }
        } finally {
            server.close();
        }

        long acknowledgedAppends = count(appends, true);
        long acknowledgedCommits = count(commits, true);
        String figures = String.format(
                "kills=%d acknowledgedAppends=%d acknowledgedNativeCommits=%d unknownOutcome=%d "
                        + "(of which committed=%d) lost=0 seconds=%d%n",
                KILLS,
                acknowledgedAppends,
                acknowledgedCommits,
                count(appends, false) + count(commits, false),
                presentUnknown,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        System.out.print("CrashDurabilityIT: " + figures);
        Files.writeString(Path.of("target/crash-durability.txt"), figures);
        assertThat(acknowledgedAppends).isGreaterThanOrEqualTo(KILLS);
        assertThat(acknowledgedCommits).isGreaterThanOrEqualTo(KILLS);
    }

    private static long count(List<PyIcebergAppends.Ledger> ledgers, boolean acknowledged) {
        return ledgers.stream()
                .mapToLong(ledger -> acknowledged
                        ? ledger.acknowledged.size()
                        : ledger.unknown().size())
                .sum();
    }

    private void setUp(PyIcebergAppends pyiceberg, PackagedServer server) throws Exception {
        pyiceberg.setUp(server.uri());
        StringBuilder writes =
                new StringBuilder("{\"writes\": [{\"op\": \"add\", \"path\": \"/crash\", \"value\": {}}");
        for (int writer = 0; writer < NATIVE_WRITERS; writer++) {
            writes.append(", {\"op\": \"add\", \"path\": \"/crash/w")
                    .append(writer)
                    .append("\", \"value\": {}}");
        }
        HttpResponse<String> response = commit(server.uri(), writes.append("]}").toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    /** One round of writing: the PyIceberg processes and the native threads, until the server dies. */
    private final class Round {
        private final int round;
        private final PyIcebergAppends pyiceberg;
        private final PackagedServer server;
        private final List<PyIcebergAppends.Ledger> appends;
        private final List<PyIcebergAppends.Ledger> commits;
        private final List<Process> appenders = new ArrayList<>();
        private final List<Path> ackFiles = new ArrayList<>();
        private final List<Thread> committers = new ArrayList<>();

        Round(
                int round,
                PyIcebergAppends pyiceberg,
                PackagedServer server,
                List<PyIcebergAppends.Ledger> appends,
                List<PyIcebergAppends.Ledger> commits) {
            this.round = round;
            this.pyiceberg = pyiceberg;
            this.server = server;
            this.appends = appends;
            this.commits = commits;
        }

        void start() throws IOException {
            for (int writer = 0; writer < appends.size(); writer++) {
                Path acks = directory.resolve("acks-" + round + "-" + writer + ".txt");
                Files.createFile(acks);
                ackFiles.add(acks);
                appenders.add(pyiceberg.start(
                        server.uri(),
                        writer,
                        appends.get(writer),
                        acks,
                        directory.resolve("appender-" + round + "-" + writer + ".log"),
                        180));
            }
            for (int writer = 0; writer < commits.size(); writer++) {
                int id = writer;
                Thread thread = new Thread(() -> commitUntilStopped(id), "native-writer-" + writer);
                thread.start();
                committers.add(thread);
            }
        }

        /** Until every writer has had a write acknowledged this round: the kill then hits them mid-flight. */
        void awaitAcknowledgements() throws Exception {
            Map<Integer, Long> before = new HashMap<>();
            for (int writer = 0; writer < commits.size(); writer++) {
                before.put(writer, (long) commits.get(writer).acknowledged.size());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                boolean all = true;
                for (int writer = 0; writer < appenders.size(); writer++) {
                    if (!Files.readString(ackFiles.get(writer)).contains("ack ")) {
                        all = false;
                        assertThat(appenders.get(writer).isAlive())
                                .as("appender %d stopped before its first append:%n%s", writer, appenderLog(writer))
                                .isTrue();
                    }
                }
                for (int writer = 0; writer < commits.size(); writer++) {
                    all &= commits.get(writer).acknowledged.size() > before.get(writer);
                }
                if (all) {
                    return;
                }
                assertThat(System.nanoTime())
                        .as("writers acknowledged within 120 s; server log:%n%s", server.logTail())
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }

        /** The writers stop on the dead server; their acknowledgements go into the ledgers. */
        void awaitEnd() throws Exception {
            for (Thread thread : committers) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
            }
            for (int writer = 0; writer < appenders.size(); writer++) {
                Process appender = appenders.get(writer);
                if (!appender.waitFor(60, TimeUnit.SECONDS)) {
                    appender.destroyForcibly();
                    throw new AssertionError("appender " + writer + " did not stop:\n" + appenderLog(writer));
                }
                PyIcebergAppends.collect(ackFiles.get(writer), appends.get(writer));
            }
        }

        private String appenderLog(int writer) throws IOException {
            return Files.readString(directory.resolve("appender-" + round + "-" + writer + ".log"));
        }

        /** Commits until the server stops answering: each commit adds one inner object and its leaves. */
        private void commitUntilStopped(int writer) {
            PyIcebergAppends.Ledger ledger = commits.get(writer);
            long seq = ledger.nextSeq();
            while (true) {
                ledger.attempted.add(seq);
                HttpResponse<String> response;
                try {
                    response = commit(server.uri(), writeSet(writer, seq));
                } catch (IOException e) {
                    return; // the server is gone: this commit's outcome is unknown
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (response.statusCode() != 200) {
                    return; // unknown too; a kill answers nothing, so the check finds out
                }
                try {
                    ledger.acknowledged.put(
                            seq, JSON.readTree(response.body()).get("vid").asLong());
                } catch (IOException e) {
                    throw new IllegalStateException("unreadable commit answer: " + response.body(), e);
                }
                seq++;
            }
        }
    }

    private static String writeSet(int writer, long seq) {
        String parent = "/crash/w" + writer + "/c" + seq;
        StringBuilder writes = new StringBuilder("{\"writes\": [{\"op\": \"add\", \"path\": \"")
                .append(parent)
                .append("\", \"value\": {\"seq\": ")
                .append(seq)
                .append("}}");
        for (String leaf : LEAVES) {
            writes.append(", {\"op\": \"add\", \"path\": \"")
                    .append(parent)
                    .append('/')
                    .append(leaf)
                    .append("\", \"kind\": \"leaf\", \"value\": {\"writer\": ")
                    .append(writer)
                    .append("}}");
        }
        return writes.append("]}").toString();
    }

    private HttpResponse<String> commit(URI server, String writeSet) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(server.resolve("/treecat/v1/commit"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(writeSet))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Checks the tree against the native writers' ledgers; answers how many unknown-outcome commits are there. */
    private int checkCommits(PackagedServer server, List<PyIcebergAppends.Ledger> commits) throws Exception {
        Map<String, Set<String>> leaves = new HashMap<>();
        for (String path : query(server.uri(), "/[obj_id='crash']/*/*", "inner")) {
            leaves.put(path, new HashSet<>());
        }
        for (String path : query(server.uri(), "/[obj_id='crash']/*/*/*", "leaves")) {
            String parent = path.substring(0, path.lastIndexOf('/'));
            assertThat(leaves).as("parent of %s", path).containsKey(parent);
            leaves.get(parent).add(path.substring(path.lastIndexOf('/') + 1));
        }
        int presentUnknown = 0;
        for (int writer = 0; writer < commits.size(); writer++) {
            PyIcebergAppends.Ledger ledger = commits.get(writer);
            for (long seq : ledger.acknowledged.keySet()) {
                assertThat(leaves.get("/crash/w" + writer + "/c" + seq))
                        .as("objects of acknowledged commit %d:%d", writer, seq)
                        .containsExactlyInAnyOrderElementsOf(LEAVES);
            }
            for (long seq : ledger.unknown()) {
                presentUnknown += leaves.containsKey("/crash/w" + writer + "/c" + seq) ? 1 : 0;
            }
        }
        for (Map.Entry<String, Set<String>> commit : leaves.entrySet()) {
            assertThat(commit.getValue())
                    .as("objects of commit %s (whole or absent)", commit.getKey())
                    .containsExactlyInAnyOrderElementsOf(LEAVES);
            String[] levels = commit.getKey().split("/");
            assertThat(commits.get(Integer.parseInt(levels[2].substring(1))).attempted)
                    .as("commit %s was sent", commit.getKey())
                    .contains(Long.parseLong(levels[3].substring(1)));
        }
        return presentUnknown;
    }

    /** Every path the query answers, page after page. */
    private List<String> query(URI server, String query, String results) throws Exception {
        List<String> paths = new ArrayList<>();
        String token = null;
        do {
            String uri = "/treecat/v1/query?limit=100000&results=" + results + "&q="
                    + URLEncoder.encode(query, StandardCharsets.UTF_8)
                    + (token == null ? "" : "&pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(server.resolve(uri))
                            .timeout(Duration.ofSeconds(60))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode page = JSON.readTree(response.body());
            page.get("rows").forEach(row -> paths.add(row.get("path").asText()));
            token = page.hasNonNull("nextPageToken") ? page.get("nextPageToken").asText() : null;
        } while (token != null);
        return paths;
    }
}
