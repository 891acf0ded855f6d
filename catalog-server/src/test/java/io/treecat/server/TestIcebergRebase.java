package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server-side rebase of appends that lost a race (CommitRebaser), driven by Iceberg's own REST
 * client against a real server. Commits are built on a base the client loaded and sent after
 * another commit moved the table, which is the race Iceberg clients hit under concurrency, made
 * deterministic; the client's own retries are off, so any 409 fails the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergRebase {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final String REBASED_FROM = "treecat.rebased-from";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RESTCatalog client() {
        return server.icebergClient();
    }

    private static Map<String, String> tableProperties(boolean rebase) {
        return new HashMap<>(Map.of("treecat.rebase-appends", String.valueOf(rebase), "commit.retry.num-retries", "0"));
    }

    private static DataFile file(Table table, String name, String day) {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .withPartitionPath("day=" + day)
                .build();
    }

    /** A snapshot update built on the table as the client loaded it, committed later through the client's operations. */
    private record Stale(TableOperations ops, TableMetadata base, TableMetadata updated, Snapshot snapshot) {
        void commit() {
            ops.commit(base, updated);
        }

        TableCommit asTableCommit(TableIdentifier identifier) {
            return TableCommit.create(identifier, base, updated);
        }
    }

    private static Stale stale(Table table, Function<Table, SnapshotUpdate<?>> update) {
        Snapshot snapshot = update.apply(table).apply();
        TableOperations ops = ((BaseTable) table).operations();
        TableMetadata base = ops.current();
        return new Stale(
                ops,
                base,
                TableMetadata.buildFrom(base)
                        .setBranchSnapshot(snapshot, "main")
                        .build(),
                snapshot);
    }

    private static Stale staleAppend(Table table, DataFile file) {
        return stale(table, t -> t.newFastAppend().appendFile(file));
    }

    /**
     * The race, made deterministic: {@code first} lands, client {@code two} builds an append of
     * {@code late} on that state, then {@code one} lands {@code winner}. Answers the late append, not yet sent.
     */
    private static Stale lostRace(RESTCatalog one, RESTCatalog two, TableIdentifier id, String month) {
        Table table = one.loadTable(id);
        table.newFastAppend().appendFile(file(table, "first", month + "-01")).commit();
        Stale late = staleAppend(two.loadTable(id), file(table, "late", month + "-02"));
        Table winner = one.loadTable(id);
        winner.newFastAppend().appendFile(file(winner, "winner", month + "-03")).commit();
        return late;
    }

    private static List<Snapshot> mainHistory(Table table) {
        List<Snapshot> history = new ArrayList<>();
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            history.add(s);
        }
        return history;
    }

    @Test
    void appendFromStaleBaseIsRebasedAndTheClientAdoptsIt() throws Exception {
        TableIdentifier id = TableIdentifier.of(Namespace.of("rebase1"), "t");
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            one.createNamespace(id.namespace());
            one.createTable(id, SCHEMA, SPEC, tableProperties(true));
            Stale late = lostRace(one, two, id, "2025-01");
            long winnerId = one.loadTable(id).currentSnapshot().snapshotId();

            late.commit();

            // The client adopted the server's answer: its snapshot, now on top of the winner.
            Snapshot adopted = late.ops().current().currentSnapshot();
            assertThat(adopted.snapshotId()).isEqualTo(late.snapshot().snapshotId());
            assertThat(adopted.parentId()).isEqualTo(winnerId);
            assertThat(adopted.summary())
                    .containsEntry(REBASED_FROM, String.valueOf(late.snapshot().parentId()))
                    .containsEntry("total-data-files", "3")
                    .containsEntry("total-records", "30")
                    .containsEntry("total-files-size", "300")
                    .containsEntry("added-data-files", "1")
                    .containsEntry("added-files-size", "100")
                    .containsEntry("changed-partition-count", "1");
            // The client's manifest is taken over as it is, not rewritten: one new file, the manifest list.
            assertThat(adopted.dataManifests(late.ops().io()))
                    .filteredOn(m -> m.snapshotId() == adopted.snapshotId())
                    .extracting(ManifestFile::path)
                    .containsExactlyElementsOf(
                            late.snapshot().dataManifests(late.ops().io()).stream()
                                    .filter(m ->
                                            m.snapshotId() == late.snapshot().snapshotId())
                                    .map(ManifestFile::path)
                                    .toList());

            Table result = one.loadTable(id);
            List<Snapshot> history = mainHistory(result);
            assertThat(history).hasSize(3);
            assertThat(history.get(0).sequenceNumber())
                    .isGreaterThan(history.get(1).sequenceNumber());
            // The rebased files carry the rebased snapshot's sequence number, not the one the client wrote.
            assertThat(result.snapshot(adopted.snapshotId()).addedDataFiles(result.io()))
                    .singleElement()
                    .satisfies(f -> assertThat(f.dataSequenceNumber()).isEqualTo(adopted.sequenceNumber()));
            assertThat(adopted.sequenceNumber()).isGreaterThan(late.snapshot().sequenceNumber());
            assertThat(countFiles(result)).isEqualTo(3);
        }
    }

    @Test
    void formatOneTablesAreRebasedByCopyingTheManifest() throws Exception {
        // Format 1 manifests cannot inherit a snapshot id, so Iceberg's append copies them; that copy is the rebase's
        // own.
        TableIdentifier id = TableIdentifier.of(Namespace.of("rebase5"), "v1");
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            one.createNamespace(id.namespace());
            Map<String, String> properties = tableProperties(true);
            properties.put("format-version", "1");
            one.createTable(id, SCHEMA, SPEC, properties);
            Stale late = lostRace(one, two, id, "2025-05");
            late.commit();

            Table result = one.loadTable(id);
            Snapshot adopted = result.snapshot(late.snapshot().snapshotId());
            assertThat(adopted.summary()).containsKey(REBASED_FROM).containsEntry("total-data-files", "3");
            assertThat(adopted.dataManifests(result.io()))
                    .filteredOn(m -> m.snapshotId() == adopted.snapshotId())
                    .singleElement()
                    .satisfies(m -> assertThat(m.path())
                            .isNotEqualTo(late.snapshot()
                                    .dataManifests(result.io())
                                    .get(0)
                                    .path()));
            assertThat(adopted.addedDataFiles(result.io()))
                    .singleElement()
                    .satisfies(f -> assertThat(f.location()).endsWith("late.parquet"));
            assertThat(countFiles(result)).isEqualTo(3);
        }
    }

    @Test
    void concurrentAppendsFromOneBaseAllLandWithoutA409() throws Exception {
        int clients = 4;
        int rounds = 6;
        TableIdentifier id = TableIdentifier.of(Namespace.of("rebase2"), "hot");
        try (RESTCatalog setup = client()) {
            setup.createNamespace(id.namespace());
            setup.createTable(id, SCHEMA, SPEC, tableProperties(true));
        }
        CyclicBarrier loaded = new CyclicBarrier(clients);
        CyclicBarrier built = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                writers.add(pool.submit(() -> {
                    try (RESTCatalog catalog = client()) {
                        for (int round = 0; round < rounds; round++) {
                            loaded.await(30, TimeUnit.SECONDS);
                            Table table = catalog.loadTable(id);
                            // Every client builds on the same base, then all commit at once: all but one lose the race.
                            Stale append = staleAppend(
                                    table, file(table, client + "-" + round, "2025-02-0" + (1 + round % 3)));
                            built.await(30, TimeUnit.SECONDS);
                            append.commit();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (RESTCatalog check = client()) {
            Table result = check.loadTable(id);
            List<Snapshot> history = mainHistory(result);
            assertThat(history).hasSize(clients * rounds);
            assertThat(history.stream()
                            .filter(s -> s.summary().containsKey(REBASED_FROM))
                            .count())
                    .isEqualTo((long) rounds * (clients - 1));
            assertThat(result.currentSnapshot().summary())
                    .containsEntry("total-data-files", String.valueOf(clients * rounds))
                    .containsEntry("total-records", String.valueOf(clients * rounds * 10));
            assertThat(countFiles(result)).isEqualTo(clients * rounds);
            for (int i = 0; i + 1 < history.size(); i++) {
                assertThat(history.get(i).sequenceNumber())
                        .isGreaterThan(history.get(i + 1).sequenceNumber());
            }
            for (Snapshot snapshot : history) {
                snapshot.addedDataFiles(result.io())
                        .forEach(f -> assertThat(f.dataSequenceNumber()).isEqualTo(snapshot.sequenceNumber()));
            }
        }
    }

    @Test
    void deletesOverwritesSchemaChangesAndTablesWithoutTheOptionStillConflict() throws Exception {
        Namespace ns = Namespace.of("rebase3");
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            one.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "t");
            Table table = one.createTable(id, SCHEMA, SPEC, tableProperties(true));
            DataFile kept = file(table, "kept", "2025-03-01");
            table.newFastAppend().appendFile(kept).commit();

            // A delete or an overwrite of `kept` decided on the old state does not land on top of an append in its
            // partition that it never saw: the server cannot tell whether its condition would have matched the
            // appended rows (TestIcebergRebaseDifferential has the ones in other partitions, which are rebased).
            Stale delete = stale(two.loadTable(id), t -> t.newDelete().deleteFile(kept));
            Stale overwrite = stale(
                    two.loadTable(id),
                    t -> t.newOverwrite().deleteFile(kept).addFile(file(t, "rewritten", "2025-03-01")));
            Table now = one.loadTable(id);
            now.newFastAppend()
                    .appendFile(file(now, "concurrent", "2025-03-01"))
                    .commit();
            assertThatThrownBy(delete::commit)
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed");
            assertThatThrownBy(overwrite::commit)
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed");
            assertThat(countFiles(one.loadTable(id))).isEqualTo(2);

            // An append written against a schema that changed since is not rebased either.
            Stale oldSchema = staleAppend(two.loadTable(id), file(table, "old-schema", "2025-03-03"));
            one.loadTable(id)
                    .updateSchema()
                    .addColumn("extra", Types.IntegerType.get())
                    .commit();
            Table afterSchema = one.loadTable(id);
            afterSchema
                    .newFastAppend()
                    .appendFile(file(afterSchema, "new-schema", "2025-03-03"))
                    .commit();
            assertThatThrownBy(oldSchema::commit)
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed");

            // A table that opted out keeps Iceberg's behaviour: the late append gets 409.
            TableIdentifier plain = TableIdentifier.of(ns, "plain");
            Table plainTable = one.createTable(plain, SCHEMA, SPEC, tableProperties(false));
            plainTable
                    .newFastAppend()
                    .appendFile(file(plainTable, "a", "2025-03-01"))
                    .commit();
            Stale late = staleAppend(two.loadTable(plain), file(plainTable, "late", "2025-03-01"));
            Table plainNow = one.loadTable(plain);
            plainNow.newFastAppend()
                    .appendFile(file(plainNow, "b", "2025-03-01"))
                    .commit();
            assertThatThrownBy(late::commit)
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed: branch main has changed");
            assertThat(countFiles(one.loadTable(plain))).isEqualTo(2);
        }
    }

    /**
     * The server default (this class's server runs with the embedded configuration): tables without the
     * property are rebased, except merge-on-read tables whose MERGE is serializable (a MERGE there may commit an
     * {@code append} that validated a conflict filter); a table's own property wins either way.
     */
    @Test
    void theServerDefaultRebasesExceptSerializableMergeOnReadTablesAndTheTablePropertyWins() throws Exception {
        Namespace ns = Namespace.of("rebase6");
        Map<String, Map<String, String>> rebased = Map.of(
                "defaulted", Map.of(),
                "copy-on-write-merge", Map.of("write.merge.mode", "copy-on-write"),
                "merge-on-read-snapshot-isolation",
                        Map.of("write.merge.mode", "merge-on-read", "write.merge.isolation-level", "snapshot"),
                "merge-on-read-opted-in", Map.of("write.merge.mode", "merge-on-read", "treecat.rebase-appends", "true"),
                // Only MERGE can commit a validated append: merge-on-read deletes and updates do not matter here.
                "merge-on-read-delete-and-update",
                        Map.of("write.delete.mode", "merge-on-read", "write.update.mode", "merge-on-read"));
        Map<String, Map<String, String>> refused = Map.of(
                "opted-out", Map.of("treecat.rebase-appends", "false"),
                "merge-on-read", Map.of("write.merge.mode", "merge-on-read"),
                "merge-on-read-serializable",
                        Map.of("write.merge.mode", "MERGE-ON-READ", "write.merge.isolation-level", "serializable"),
                "opted-out-despite-snapshot-isolation",
                        Map.of(
                                "write.merge.mode", "merge-on-read",
                                "write.merge.isolation-level", "snapshot",
                                "treecat.rebase-appends", "false"));
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            one.createNamespace(ns);
            for (Map.Entry<String, Map<String, String>> table : rebased.entrySet()) {
                TableIdentifier id = TableIdentifier.of(ns, table.getKey());
                Map<String, String> properties = new HashMap<>(table.getValue());
                properties.put("commit.retry.num-retries", "0");
                one.createTable(id, SCHEMA, SPEC, properties);
                Stale late = lostRace(one, two, id, "2025-06");
                late.commit();
                assertThat(one.loadTable(id).currentSnapshot().summary())
                        .as(table.getKey())
                        .containsEntry(
                                REBASED_FROM, String.valueOf(late.snapshot().parentId()));
                assertThat(countFiles(one.loadTable(id))).as(table.getKey()).isEqualTo(3);
            }
            for (Map.Entry<String, Map<String, String>> table : refused.entrySet()) {
                TableIdentifier id = TableIdentifier.of(ns, table.getKey());
                Map<String, String> properties = new HashMap<>(table.getValue());
                properties.put("commit.retry.num-retries", "0");
                one.createTable(id, SCHEMA, SPEC, properties);
                Stale late = lostRace(one, two, id, "2025-06");
                assertThatThrownBy(late::commit)
                        .as(table.getKey())
                        .isInstanceOf(CommitFailedException.class)
                        .hasMessageContaining("Requirement failed: branch main has changed");
                assertThat(countFiles(one.loadTable(id))).as(table.getKey()).isEqualTo(2);
            }
        }
    }

    @Test
    void aServerWithRebaseOffRebasesOnlyTablesThatOptIn(@TempDir Path other) throws Exception {
        try (TreeCatTestServer plain =
                        new TreeCatTestServer(other, ConfigOverride.config("iceberg.rebase-appends", "false"));
                RESTCatalog one = plain.icebergClient();
                RESTCatalog two = plain.icebergClient()) {
            Namespace ns = Namespace.of("rebase7");
            one.createNamespace(ns);
            for (String name : List.of("defaulted", "opted-in")) {
                TableIdentifier id = TableIdentifier.of(ns, name);
                Map<String, String> properties = new HashMap<>(Map.of("commit.retry.num-retries", "0"));
                if (name.equals("opted-in")) {
                    properties.put("treecat.rebase-appends", "true");
                }
                one.createTable(id, SCHEMA, SPEC, properties);
                Stale late = lostRace(one, two, id, "2025-06");
                if (name.equals("opted-in")) {
                    late.commit();
                    assertThat(one.loadTable(id).currentSnapshot().summary()).containsKey(REBASED_FROM);
                    assertThat(countFiles(one.loadTable(id))).isEqualTo(3);
                } else {
                    assertThatThrownBy(late::commit)
                            .isInstanceOf(CommitFailedException.class)
                            .hasMessageContaining("branch main has changed");
                    assertThat(countFiles(one.loadTable(id))).isEqualTo(2);
                }
            }
        }
    }

    @Test
    void multiTableCommitIsRebasedWholeOrFailsWhole() throws Exception {
        Namespace ns = Namespace.of("rebase4");
        try (RESTCatalog one = client();
                RESTCatalog two = client()) {
            one.createNamespace(ns);
            TableIdentifier a = TableIdentifier.of(ns, "a");
            TableIdentifier b = TableIdentifier.of(ns, "b");
            Table tableA = one.createTable(a, SCHEMA, SPEC, tableProperties(true));
            Table tableB = one.createTable(b, SCHEMA, SPEC, tableProperties(true));
            DataFile inB = file(tableB, "b0", "2025-04-01");
            tableB.newFastAppend().appendFile(inB).commit();

            // Both tables move under a two-table append: both halves are rebased, in one commit.
            Stale appendA = staleAppend(two.loadTable(a), file(tableA, "a1", "2025-04-01"));
            Stale appendB = staleAppend(two.loadTable(b), file(tableB, "b1", "2025-04-01"));
            for (TableIdentifier id : List.of(a, b)) {
                Table t = one.loadTable(id);
                t.newFastAppend()
                        .appendFile(file(t, "other-" + id.name(), "2025-04-02"))
                        .commit();
            }
            two.commitTransaction(appendA.asTableCommit(a), appendB.asTableCommit(b));
            assertThat(countFiles(one.loadTable(a))).isEqualTo(2);
            assertThat(countFiles(one.loadTable(b))).isEqualTo(3);
            assertThat(one.loadTable(a).currentSnapshot().summary()).containsKey(REBASED_FROM);
            assertThat(one.loadTable(b).currentSnapshot().summary()).containsKey(REBASED_FROM);

            // One half could be rebased (an append to a) but the other cannot (a stale delete in b, with an append in
            // its partition since): nothing lands.
            Stale appendA2 = staleAppend(two.loadTable(a), file(tableA, "a2", "2025-04-03"));
            Stale deleteB = stale(two.loadTable(b), t -> t.newDelete().deleteFile(inB));
            long snapshotsOfA = mainHistory(one.loadTable(a)).size();
            for (TableIdentifier id : List.of(a, b)) {
                Table t = one.loadTable(id);
                t.newFastAppend()
                        .appendFile(file(t, "more-" + id.name(), "2025-04-01"))
                        .commit();
            }
            assertThatThrownBy(() -> two.commitTransaction(appendA2.asTableCommit(a), deleteB.asTableCommit(b)))
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed");
            assertThat(mainHistory(one.loadTable(a))).hasSize((int) snapshotsOfA + 1);
            assertThat(countFiles(one.loadTable(a))).isEqualTo(3);
            assertThat(countFiles(one.loadTable(b))).isEqualTo(4);
        }
    }

    private static int countFiles(Table table) throws Exception {
        int count = 0;
        try (var tasks = table.newScan().planFiles()) {
            for (var ignored : tasks) {
                count++;
            }
        }
        return count;
    }
}
