package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's concurrency test: 8 of Iceberg's own Java {@link RESTCatalog} clients, each in its own thread, make 200
 * one-file {@code FastAppend} commits each to one table through REST, against a real server with its <b>default</b>
 * settings (no {@code treecat.rebase-appends} table property, no server setting) and the clients' retries at
 * Iceberg's defaults ({@code commit.retry.num-retries} 4, 100 ms to 60 s back-off).
 *
 * <p>What must hold whatever the server's default for rebasing is: every append whose {@code commit()} returned is in
 * the table exactly once (its data file path, across the live entries of the current snapshot's manifests), no append
 * whose {@code commit()} threw is, and the snapshot chain from the current snapshot back is linear: each snapshot's
 * parent is the one before it, sequence numbers strictly increase, and the chain has one snapshot per acknowledged
 * append plus the setup one. Without server-side rebase the clients' retries can run out under this contention; such
 * appends fail with {@link CommitFailedException}, which the assertions allow (the count is printed). Any other
 * failure, an unknown commit state above all, fails the test: it would leave the append's fate undecided.
 */
class TestConcurrentRestAppends {
    private static final int CLIENTS = 8;
    private static final int APPENDS_PER_CLIENT = 200;
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();

    @TempDir
    Path directory;

    /** What one client did: the paths of its acknowledged appends, and of those whose commit failed. */
    private record Outcome(List<String> acknowledged, List<String> failed) {}

    @Test
    void everyAcknowledgedAppendIsInTheTableOnceAndTheChainIsLinear() throws Exception {
        TableIdentifier id = TableIdentifier.of(Namespace.of("contended"), "t");
        long began = System.nanoTime();
        try (TreeCatTestServer server = new TreeCatTestServer(directory)) {
            String setupPath;
            try (RESTCatalog setup = server.icebergClient()) {
                setup.createNamespace(id.namespace());
                // No table property: the server's default decides whether a lost race is rebased.
                Table table = setup.createTable(id, SCHEMA, SPEC);
                DataFile first = file(table, "setup", 0);
                table.newFastAppend().appendFile(first).commit();
                setupPath = first.location();
            }

            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            CyclicBarrier start = new CyclicBarrier(CLIENTS);
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                futures.add(pool.submit(() -> appends(server, id, client, start)));
            }
            List<String> acknowledged = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            try {
                for (Future<Outcome> future : futures) {
                    Outcome outcome = future.get(10, TimeUnit.MINUTES);
                    acknowledged.addAll(outcome.acknowledged());
                    failed.addAll(outcome.failed());
                }
            } finally {
                pool.shutdownNow();
            }
            long appendedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            System.out.printf(
                    Locale.ROOT,
                    "TestConcurrentRestAppends: %d of %d appends acknowledged, %d failed after the clients' retries, in"
                            + " %d ms%n",
                    acknowledged.size(),
                    CLIENTS * APPENDS_PER_CLIENT,
                    failed.size(),
                    appendedMillis);
            assertThat(acknowledged.size() + failed.size()).isEqualTo(CLIENTS * APPENDS_PER_CLIENT);

            try (RESTCatalog reader = server.icebergClient()) {
                Table table = reader.loadTable(id);

                Map<String, Integer> live = livePaths(table);
                List<String> expected = new ArrayList<>(acknowledged);
                expected.add(setupPath);
                assertThat(live.keySet()).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(live)
                        .allSatisfy((path, count) ->
                                assertThat(count).as("entries for %s", path).isEqualTo(1));
                // (noneMatch, not doesNotContainAnyElementsOf: with rebase on, none failed, and AssertJ refuses an
                // empty list there.)
                assertThat(failed).noneMatch(live::containsKey);

                List<Snapshot> chain = chain(table);
                assertThat(chain).hasSize(acknowledged.size() + 1);
                for (int i = 0; i + 1 < chain.size(); i++) {
                    Snapshot child = chain.get(i);
                    Snapshot parent = chain.get(i + 1);
                    assertThat(child.parentId()).isEqualTo(parent.snapshotId());
                    assertThat(child.sequenceNumber()).isGreaterThan(parent.sequenceNumber());
                    assertThat(child.summary()).containsEntry("added-data-files", "1");
                }
                assertThat(chain.get(chain.size() - 1).parentId()).isNull();
            }
        }
    }

    /** One client's 200 appends, each with Iceberg's default retries; starts when all clients are ready. */
    private static Outcome appends(TreeCatTestServer server, TableIdentifier id, int client, CyclicBarrier start)
            throws Exception {
        List<String> acknowledged = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        try (RESTCatalog catalog = server.icebergClient("client-" + client, Map.of())) {
            Table table = catalog.loadTable(id);
            start.await(1, TimeUnit.MINUTES);
            for (int i = 0; i < APPENDS_PER_CLIENT; i++) {
                DataFile file = file(table, "c" + client, i);
                try {
                    table.newFastAppend().appendFile(file).commit();
                    acknowledged.add(file.location());
                } catch (CommitFailedException e) {
                    // The clients' retries ran out (409 after 4 retries): the append is not in the table.
                    failed.add(file.location());
                }
            }
        }
        return new Outcome(acknowledged, failed);
    }

    private static DataFile file(Table table, String writer, int n) {
        String day = String.format(Locale.ROOT, "2026-01-%02d", 1 + n % 28);
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/" + writer + "-" + n + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .withPartitionPath("day=" + day)
                .build();
    }

    /** Every live data file path in the current snapshot, with how many live entries name it. */
    private static Map<String, Integer> livePaths(Table table) {
        Map<String, Integer> counts = new HashMap<>();
        for (ManifestFile manifest : table.currentSnapshot().dataManifests(table.io())) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io())) {
                for (DataFile file : reader) {
                    counts.merge(file.location(), 1, Integer::sum);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return counts;
    }

    /** The snapshots from the current one back to the first, by parent id; a missing parent fails. */
    private static List<Snapshot> chain(Table table) {
        List<Snapshot> chain = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        Snapshot snapshot = table.currentSnapshot();
        while (snapshot != null) {
            assertThat(seen.add(snapshot.snapshotId()))
                    .as("a cycle at %s", snapshot.snapshotId())
                    .isTrue();
            chain.add(snapshot);
            Long parent = snapshot.parentId();
            if (parent == null) {
                break;
            }
            snapshot = table.snapshot(parent);
            assertThat(snapshot).as("parent %s of the chain", parent).isNotNull();
        }
        return chain;
    }
}
