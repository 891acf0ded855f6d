package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability under {@code kill -9}: a forked JVM commits under load and is killed with SIGKILL at a
 * random moment, 20 times over the same store. After each kill, every acknowledged commit is there,
 * and no commit is there in part.
 */
class TestCrashRecovery {
    private static final int KILLS = 20;

    @TempDir
    Path directory;

    @Test
    void acknowledgedCommitsSurviveSigkillAndNothingIsHalfApplied() throws Exception {
        Random random = new Random(42);
        Map<String, Long> acknowledged = new HashMap<>();
        long lastVid = 0;
        for (int run = 0; run < KILLS; run++) {
            Map<String, Long> acks = runAndKill(run, 200 + random.nextInt(800));
            acknowledged.putAll(acks);

            try (CatalogService catalog = CatalogService.open(directory)) {
                long newest =
                        acks.values().stream().mapToLong(Long::longValue).max().orElse(0);
                assertThat(catalog.lastVid())
                        .as("run %d", run)
                        .isGreaterThanOrEqualTo(newest)
                        .isGreaterThan(lastVid);
                lastVid = catalog.lastVid();

                Map<String, List<String>> children = new HashMap<>();
                for (CatalogObject row : all(catalog, "/[obj_id='crash']/*/*")) {
                    children.computeIfAbsent(row.path().parent().id(), k -> new ArrayList<>())
                            .add(row.id());
                }
                List<CatalogObject> keys = all(catalog, "/[obj_id='crash']/*");
                for (String key : acknowledged.keySet()) {
                    assertThat(children.get(key))
                            .as("acknowledged commit %s after run %d", key, run)
                            .containsExactly("a", "b");
                }
                for (CatalogObject key : keys) {
                    assertThat(children.get(key.id()))
                            .as("commit %s is all there or not at all", key.id())
                            .containsExactly("a", "b");
                }
                int count = catalog.get(CrashWorkload.ROOT, ReadPoint.LATEST)
                        .orElseThrow()
                        .value()
                        .getInt32("count")
                        .getValue();
                assertThat(count)
                        .as("the merged counter agrees with the commits present")
                        .isEqualTo(keys.size());
            }
        }
        try (CatalogService catalog = CatalogService.open(directory)) {
            long before = catalog.lastVid();
            long next = catalog.commit(
                            WriteSet.of(new WriteOp.Add(ObjectPath.of("after"), ObjectKind.INNER, new BsonDocument())))
                    .vid();
            assertThat(next).as("the vid counter resumes after the last commit").isEqualTo(before + 1);
        }
        assertThat(acknowledged.size()).isGreaterThan(KILLS);
    }

    /** Every row of a query, page by page: after a few fast runs there are more than one page's worth. */
    private static List<CatalogObject> all(CatalogService catalog, String query) {
        List<CatalogObject> rows = new ArrayList<>();
        QueryRequest request = QueryRequest.of(query).withLimit(QueryRequest.MAX_LIMIT);
        while (true) {
            QueryPage page = catalog.query(request);
            rows.addAll(page.rows());
            if (page.continuation().isEmpty()) {
                return rows;
            }
            request = request.withPageToken(page.continuation().get());
        }
    }

    /** Starts the workload, lets it commit for {@code millis} after it is ready, then kills it with SIGKILL. */
    private Map<String, Long> runAndKill(int run, int millis) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(
                        java,
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        CrashWorkload.class.getName(),
                        directory.toString(),
                        Integer.toString(run))
                .redirectErrorStream(false)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Map<String, Long> acks = new ConcurrentHashMap<>();
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch firstAck = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.equals("READY")) {
                        ready.countDown();
                    } else if (line.startsWith("ACK ")) {
                        String[] parts = line.split(" ");
                        acks.put(parts[1], Long.parseLong(parts[2]));
                        firstAck.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                // The process died: its output ends here.
            }
        });
        reader.start();
        assertThat(ready.await(60, TimeUnit.SECONDS))
                .as("workload %d started", run)
                .isTrue();
        // On a busy machine the first commit can take a while: kill only once commits are flowing.
        assertThat(firstAck.await(60, TimeUnit.SECONDS))
                .as("workload %d committed something", run)
                .isTrue();
        Thread.sleep(millis); // let it commit for a random while: the point is to kill it mid-flight
        process.destroyForcibly(); // SIGKILL on Linux
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        reader.join(10_000);
        return new HashMap<>(acks);
    }
}
