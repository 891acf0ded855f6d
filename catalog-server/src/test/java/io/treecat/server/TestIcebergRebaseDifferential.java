package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server-side rebase of row-level deltas, copy-on-write changes and compactions (ManifestListRebase) against
 * Iceberg's own client-side retry. Each scenario runs on two tables of one server with its default settings: on
 * the first the server rebases (the client's retries are off, so any 409 fails the test), the second opts out
 * ({@code treecat.rebase-appends=false}) and Iceberg's Java client refreshes and retries after the 409. What a
 * user relies on must be the same: the live data and delete files with their data and file sequence numbers and
 * partitions, the snapshot's summary totals and counts, and the rows a scan returns, read by Iceberg's generic
 * reader over the real Parquet data and delete files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergRebaseDifferential {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final Schema ID_ONLY = SCHEMA.select("id");
    private static final String REBASED_FROM = "treecat.rebased-from";
    private static final String DAY1 = "2025-01-01";
    private static final String DAY2 = "2025-01-02";
    private static final String DAY3 = "2025-01-03";
    private static final String DAY4 = "2025-01-04";

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

    /** One scenario, run the same way on a table: {@code one} commits the concurrent changes, {@code two} the late one. */
    @FunctionalInterface
    private interface Scenario {
        void run(RESTCatalog one, RESTCatalog two, TableIdentifier id) throws IOException;
    }

    private static Map<String, String> properties(boolean serverRebases) {
        return serverRebases
                ? new HashMap<>(Map.of("commit.retry.num-retries", "0"))
                : new HashMap<>(Map.of(
                        "treecat.rebase-appends", "false",
                        "commit.retry.num-retries", "4",
                        "commit.retry.min-wait-ms", "1",
                        "commit.retry.max-wait-ms", "10"));
    }

    /** Runs {@code scenario} on a rebased and a retried table and checks they came out the same; answers both. */
    private List<Table> differential(String name, Scenario scenario) throws IOException {
        Namespace ns = Namespace.of("differential_" + name);
        TableIdentifier rebasedId = TableIdentifier.of(ns, "rebased");
        TableIdentifier retriedId = TableIdentifier.of(ns, "retried");
        try (RESTCatalog one = server.icebergClient();
                RESTCatalog two = server.icebergClient();
                RESTCatalog serverPlanning = server.icebergServerPlanningClient()) {
            one.createNamespace(ns);
            one.createTable(rebasedId, SCHEMA, SPEC, properties(true));
            one.createTable(retriedId, SCHEMA, SPEC, properties(false));
            scenario.run(one, two, rebasedId);
            scenario.run(one, two, retriedId);
            Table rebased = one.loadTable(rebasedId);
            Table retried = one.loadTable(retriedId);

            // The server rebased one and the client retried the other (which the server did not rebase).
            assertThat(rebased.currentSnapshot().summary()).containsKey(REBASED_FROM);
            assertThat(retried.currentSnapshot().summary()).doesNotContainKey(REBASED_FROM);

            assertThat(liveFiles(rebased)).isEqualTo(liveFiles(retried)).isNotEmpty();
            assertThat(counts(rebased.currentSnapshot())).isEqualTo(counts(retried.currentSnapshot()));
            // File sizes differ between the tables (a position delete file holds its data files' paths): each table's
            // total is the sum of its live files' sizes instead.
            for (Table table : List.of(rebased, retried)) {
                assertThat(table.currentSnapshot().summary())
                        .containsEntry("total-files-size", String.valueOf(liveFilesSize(table)));
            }
            assertThat(rebased.currentSnapshot().operation())
                    .isEqualTo(retried.currentSnapshot().operation());
            assertThat(rebased.currentSnapshot().sequenceNumber())
                    .isEqualTo(retried.currentSnapshot().sequenceNumber());
            assertThat(history(rebased)).isEqualTo(history(retried));
            assertThat(rows(rebased)).isEqualTo(rows(retried));
            // The server's file index followed the rebased snapshot: its plan is the one Iceberg makes from the
            // manifests.
            assertThat(tasks(serverPlanning.loadTable(rebasedId))).isEqualTo(tasks(rebased));
            return List.of(rebased, retried);
        }
    }

    @Test
    void rowLevelDeltaOverAppendsInOtherPartitionsMatchesTheClientsRetry() throws IOException {
        List<Table> tables = differential("delta", (one, two, id) -> {
            Table seed = one.loadTable(id);
            DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3, 4, 5);
            seed.newFastAppend().appendFile(a1).commit();
            seed.newFastAppend()
                    .appendFile(writeData(seed, "b1", DAY2, 6, 7, 8, 9, 10))
                    .commit();
            Table stale = stale(two.loadTable(id));
            long base = stale.currentSnapshot().snapshotId();
            // Concurrent appends, in partitions the delta's delete files are not in.
            Table now = one.loadTable(id);
            now.newFastAppend()
                    .appendFile(writeData(now, "c1", DAY3, 11, 12, 13))
                    .commit();
            now.newAppend().appendFile(writeData(now, "d1", DAY4, 14)).commit();

            // A merge-on-read UPDATE as Spark commits it: position deletes of updated rows, their new versions, and an
            // equality delete; validated as Spark validates it under serializable isolation.
            stale.newRowDelta()
                    .addDeletes(writePositionDeletes(stale, "pos-a1", a1, 0, 2))
                    .addDeletes(writeEqualityDeletes(stale, "eq-b", DAY2, 7))
                    .addRows(writeData(stale, "updated-a", DAY1, 101, 103))
                    .validateFromSnapshot(base)
                    .conflictDetectionFilter(Expressions.in("day", DAY1, DAY2))
                    .validateDataFilesExist(List.of(a1.location()))
                    .validateDeletedFiles()
                    .validateNoConflictingDataFiles()
                    .validateNoConflictingDeleteFiles()
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "2/" + DAY1,
                        "4/" + DAY1,
                        "5/" + DAY1,
                        "6/" + DAY2,
                        "8/" + DAY2,
                        "9/" + DAY2,
                        "10/" + DAY2,
                        "11/" + DAY3,
                        "12/" + DAY3,
                        "13/" + DAY3,
                        "14/" + DAY4,
                        "101/" + DAY1,
                        "103/" + DAY1);
        // The delta's files carry the rebased snapshot's sequence number, above the appends'.
        Snapshot delta = rebased.currentSnapshot();
        assertThat(delta.operation()).isEqualTo("overwrite");
        assertThat(liveFiles(rebased))
                .filteredOn(
                        file -> file.startsWith("pos-a1") || file.startsWith("eq-b") || file.startsWith("updated-a"))
                .hasSize(3)
                .allSatisfy(file ->
                        assertThat(file).endsWith("seq " + delta.sequenceNumber() + "/" + delta.sequenceNumber()));
        assertThat(delta.summary())
                .containsEntry("total-data-files", "5")
                .containsEntry("total-delete-files", "2")
                .containsEntry("total-records", "16")
                .containsEntry("total-position-deletes", "2")
                .containsEntry("total-equality-deletes", "1");
    }

    @Test
    void compactionWithStartingSequenceNumberOverAppendsMatchesTheClientsRetry() throws IOException {
        List<Table> tables = differential("replace_starting_seq", (one, two, id) -> {
            Table seed = one.loadTable(id);
            DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3);
            DataFile a2 = writeData(seed, "a2", DAY1, 4, 5, 6);
            seed.newFastAppend().appendFile(a1).commit();
            seed.newFastAppend().appendFile(a2).commit();
            // A data file of the base that the compaction leaves live (see the tests below for why it matters).
            seed.newFastAppend().appendFile(writeData(seed, "b1", DAY2, 10)).commit();
            seed.newRowDelta()
                    .addDeletes(writeEqualityDeletes(seed, "eq-a", DAY1, 2))
                    .commit();
            Table stale = stale(two.loadTable(id));
            Snapshot start = stale.currentSnapshot();
            // The compaction applies the delete (id 2 is gone) and keeps the starting sequence number, as Spark's
            // rewrite_data_files does with use-starting-sequence-number.
            DataFile compacted = writeData(stale, "compacted-a", DAY1, 1, 3, 4, 5, 6);
            // Concurrent appends, one in the compacted partition: they add nothing the compaction rewrote.
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY1, 7, 8)).commit();
            now.newFastAppend().appendFile(writeData(now, "c2", DAY2, 9)).commit();

            stale.newRewrite()
                    .validateFromSnapshot(start.snapshotId())
                    .dataSequenceNumber(start.sequenceNumber())
                    .deleteFile(a1)
                    .deleteFile(a2)
                    .addFile(compacted)
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "1/" + DAY1,
                        "3/" + DAY1,
                        "4/" + DAY1,
                        "5/" + DAY1,
                        "6/" + DAY1,
                        "7/" + DAY1,
                        "8/" + DAY1,
                        "9/" + DAY2,
                        "10/" + DAY2);
        Snapshot replace = rebased.currentSnapshot();
        assertThat(replace.operation()).isEqualTo("replace");
        // The compacted file keeps the starting sequence number as its data sequence number; its file sequence
        // number is the rebased snapshot's.
        assertThat(liveFiles(rebased))
                .filteredOn(file -> file.startsWith("compacted-a"))
                .singleElement()
                .satisfies(file -> assertThat(file).endsWith("seq 4/" + replace.sequenceNumber()));
        assertThat(replace.sequenceNumber()).isEqualTo(7);
        // The equality delete stays (it is no older than the base's DAY2 file), on both tables.
        assertThat(liveFiles(rebased)).anyMatch(file -> file.startsWith("eq-a"));
    }

    @Test
    void compactionThatDropsAnObsoleteDeleteFileOverAppendsMatchesTheClientsRetry() throws IOException {
        // Without the starting sequence number the compacted file is newer than the equality delete, which then
        // applies to no live file: Iceberg drops it (older than every live data file), on the first attempt and on
        // the retry alike, since the data file of DAY2 stays live in both.
        List<Table> tables = differential("replace_new_seq", (one, two, id) -> {
            Table seed = one.loadTable(id);
            DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3);
            seed.newFastAppend().appendFile(a1).commit();
            seed.newRowDelta()
                    .addDeletes(writeEqualityDeletes(seed, "eq-a", DAY1, 2))
                    .commit();
            seed.newFastAppend().appendFile(writeData(seed, "b1", DAY2, 4)).commit();
            Table stale = stale(two.loadTable(id));
            long start = stale.currentSnapshot().snapshotId();
            DataFile compacted = writeData(stale, "compacted-a", DAY1, 1, 3);
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 5)).commit();

            stale.newRewrite()
                    .validateFromSnapshot(start)
                    .deleteFile(a1)
                    .addFile(compacted)
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased)).containsExactly("1/" + DAY1, "3/" + DAY1, "4/" + DAY2, "5/" + DAY3);
        assertThat(liveFiles(rebased)).noneMatch(file -> file.startsWith("eq-a"));
        assertThat(rebased.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
    }

    @Test
    void copyOnWriteUpdateOverAppendsInOtherPartitionsMatchesTheClientsRetry() throws IOException {
        List<Table> tables = differential("cow_update", (one, two, id) -> {
            Table seed = one.loadTable(id);
            DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3, 4, 5);
            seed.newFastAppend().appendFile(a1).commit();
            seed.newFastAppend().appendFile(writeData(seed, "b1", DAY2, 6, 7)).commit();
            Table stale = stale(two.loadTable(id));
            long base = stale.currentSnapshot().snapshotId();
            // Concurrent appends, in partitions the update neither rewrote nor wrote to.
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 11, 12)).commit();
            now.newAppend().appendFile(writeData(now, "d1", DAY4, 13)).commit();

            copyOnWriteUpdate(stale, base, a1, writeData(stale, "rewritten-a1", DAY1, 1, 2, 103, 4, 5));
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "1/" + DAY1,
                        "2/" + DAY1,
                        "4/" + DAY1,
                        "5/" + DAY1,
                        "6/" + DAY2,
                        "7/" + DAY2,
                        "11/" + DAY3,
                        "12/" + DAY3,
                        "13/" + DAY4,
                        "103/" + DAY1);
        Snapshot update = rebased.currentSnapshot();
        assertThat(update.operation()).isEqualTo("overwrite");
        // The rewrite carries the rebased snapshot's sequence number, above the appends'.
        assertThat(liveFiles(rebased))
                .filteredOn(file -> file.startsWith("rewritten-a1"))
                .singleElement()
                .satisfies(file ->
                        assertThat(file).endsWith("seq " + update.sequenceNumber() + "/" + update.sequenceNumber()));
        assertThat(update.summary())
                .containsEntry("total-data-files", "4")
                .containsEntry("total-records", "10")
                .containsEntry("deleted-data-files", "1")
                .containsEntry("added-data-files", "1");
    }

    @Test
    void copyOnWriteUpdateOverAnotherOfADifferentPartitionMatchesTheClientsRetry() throws IOException {
        List<Table> tables = differential("cow_over_cow", (one, two, id) -> {
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            long base = stale.currentSnapshot().snapshotId();
            // Since its base: an append, another statement's rewrite of DAY2, another append.
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 7)).commit();
            now.newOverwrite()
                    .overwriteByRowFilter(Expressions.equal("day", DAY2))
                    .addFile(writeData(now, "rewritten-b1", DAY2, 4, 105, 6))
                    .commit();
            now.newFastAppend().appendFile(writeData(now, "d1", DAY4, 8)).commit();

            copyOnWriteUpdate(stale, base, a1, writeData(stale, "rewritten-a1", DAY1, 1, 102, 3));
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "1/" + DAY1,
                        "3/" + DAY1,
                        "4/" + DAY2,
                        "6/" + DAY2,
                        "7/" + DAY3,
                        "8/" + DAY4,
                        "102/" + DAY1,
                        "105/" + DAY2);
        assertThat(rebased.currentSnapshot().summary())
                .containsEntry("total-data-files", "4")
                .containsEntry("total-records", "8");
    }

    @Test
    void wholeFileDeleteOverAppendsInOtherPartitionsMatchesTheClientsRetry() throws IOException {
        // A DELETE whose condition covers whole files (Spark commits it without rewriting anything): Iceberg's retry
        // evaluates the row filter again on the new head, where the appends' files do not match it.
        List<Table> tables = differential("cow_delete", (one, two, id) -> {
            seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 7)).commit();

            stale.newDelete()
                    .deleteFromRowFilter(Expressions.equal("day", DAY2))
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased)).containsExactly("1/" + DAY1, "2/" + DAY1, "3/" + DAY1, "7/" + DAY3);
        assertThat(rebased.currentSnapshot().operation()).isEqualTo("delete");
    }

    @Test
    void validatedOverwriteOfAnEmptyPartitionOverAppendsElsewhereMatchesTheClientsRetry() throws IOException {
        // The conflict study's heavy transaction, on a partition with no file yet: Iceberg names an overwrite by row
        // filter `overwrite` even when the filter matched nothing, so only the file it adds says where it wrote.
        List<Table> tables = differential("overwrite_empty_partition", (one, two, id) -> {
            seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            long base = stale.currentSnapshot().snapshotId();
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY4, 7)).commit();

            stale.newOverwrite()
                    .overwriteByRowFilter(Expressions.equal("day", DAY3))
                    .addFile(writeData(stale, "o1", DAY3, 30))
                    .validateFromSnapshot(base)
                    .conflictDetectionFilter(Expressions.equal("day", DAY3))
                    .validateNoConflictingData()
                    .validateNoConflictingDeletes()
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "1/" + DAY1,
                        "2/" + DAY1,
                        "3/" + DAY1,
                        "4/" + DAY2,
                        "5/" + DAY2,
                        "6/" + DAY2,
                        "7/" + DAY4,
                        "30/" + DAY3);
        assertThat(rebased.currentSnapshot().operation()).isEqualTo("overwrite");
        assertThat(rebased.currentSnapshot().summary()).doesNotContainKey("deleted-data-files");
    }

    @Test
    void dynamicPartitionOverwriteOverAppendsInOtherPartitionsMatchesTheClientsRetry() throws IOException {
        // INSERT OVERWRITE in Spark's dynamic mode, validated as under serializable isolation: the partitions it
        // writes replaced whole.
        List<Table> tables = differential("replace_partitions", (one, two, id) -> {
            seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            long base = stale.currentSnapshot().snapshotId();
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 7)).commit();
            now.newFastAppend().appendFile(writeData(now, "d1", DAY4, 8)).commit();

            stale.newReplacePartitions()
                    .addFile(writeData(stale, "replaced-b", DAY2, 60, 70))
                    .validateFromSnapshot(base)
                    .validateNoConflictingData()
                    .validateNoConflictingDeletes()
                    .commit();
        });
        Table rebased = tables.get(0);
        assertThat(rows(rebased))
                .containsExactly(
                        "1/" + DAY1, "2/" + DAY1, "3/" + DAY1, "7/" + DAY3, "8/" + DAY4, "60/" + DAY2, "70/" + DAY2);
        assertThat(rebased.currentSnapshot().operation()).isEqualTo("overwrite");
    }

    @Test
    void aCompactionThatLeavesNoDataFileOfItsBaseIsLeftToTheClientWhileDeleteFilesRemain() throws IOException {
        // Iceberg's retry would drop the equality delete (its minimum becomes the appends' sequence number) where the
        // first attempt kept it: the server cannot list that, so the client retries.
        refused("replace_everything", (one, two, id) -> {
            Table seed = one.loadTable(id);
            DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3);
            seed.newFastAppend().appendFile(a1).commit();
            seed.newRowDelta()
                    .addDeletes(writeEqualityDeletes(seed, "eq-a", DAY1, 2))
                    .commit();
            Table stale = stale(two.loadTable(id));
            long start = stale.currentSnapshot().snapshotId();
            DataFile compacted = writeData(stale, "compacted-a", DAY1, 1, 3);
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY2, 4)).commit();
            return () -> stale.newRewrite()
                    .validateFromSnapshot(start)
                    .deleteFile(a1)
                    .addFile(compacted)
                    .commit();
        });
    }

    @Test
    void anEqualityDeleteInThePartitionOfAConcurrentAppendConflicts() throws IOException {
        // Its sequence number rebased, the delete would also remove the appended row 20's neighbours it never saw.
        refusedAfterAnAppend(
                "eq_same_partition",
                DAY1,
                (stale, a1) -> stale.newRowDelta()
                        .addDeletes(writeEqualityDeletes(stale, "eq-a", DAY1, 20))
                        .commit());
    }

    @Test
    void aPositionDeleteInThePartitionOfAConcurrentAppendConflicts() throws IOException {
        refusedAfterAnAppend(
                "pos_same_partition",
                DAY1,
                (stale, a1) -> stale.newRowDelta()
                        .addDeletes(writePositionDeletes(stale, "pos-a1", a1, 0))
                        .commit());
    }

    @Test
    void aCopyOnWriteChangeInThePartitionOfAConcurrentAppendConflicts() throws IOException {
        // The server cannot see the change's conflict filter: an append in a partition it rewrote may hold rows the
        // filter matches (Iceberg's retry would fail, or, unvalidated, delete them), so the client decides.
        refusedAfterAnAppend(
                "cow_same_partition",
                DAY1,
                (stale, a1) -> stale.newOverwrite()
                        .deleteFile(a1)
                        .addFile(writeData(stale, "rewritten-a1", DAY1, 1, 2))
                        .commit());
    }

    @Test
    void aCopyOnWriteChangeThatWritesToThePartitionOfAConcurrentAppendConflicts() throws IOException {
        // Rows moved from DAY1 to DAY3, where the append wrote.
        refusedAfterAnAppend(
                "cow_written_partition",
                DAY3,
                (stale, a1) -> stale.newOverwrite()
                        .deleteFile(a1)
                        .addFile(writeData(stale, "moved-a1", DAY3, 1, 2, 3))
                        .commit());
    }

    @Test
    void anOverwriteOfAPartitionAConcurrentAppendWroteToFirstConflicts() throws IOException {
        // Iceberg's retry would find the appended row under its filter (and fail, or delete it unvalidated).
        refusedAfterAnAppend(
                "overwrite_appended_partition",
                DAY3,
                (stale, a1) -> stale.newOverwrite()
                        .overwriteByRowFilter(Expressions.equal("day", DAY3))
                        .addFile(writeData(stale, "o1", DAY3, 30))
                        .commit());
    }

    @Test
    void aCopyOnWriteChangeOverAnotherOfTheSamePartitionConflicts() throws IOException {
        refused("cow_over_cow_same_partition", (one, two, id) -> {
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newOverwrite()
                    .deleteFile(a1)
                    .addFile(writeData(now, "theirs-a1", DAY1, 1, 2))
                    .commit();
            return () -> stale.newOverwrite()
                    .deleteFile(a1)
                    .addFile(writeData(stale, "ours-a1", DAY1, 2, 3))
                    .commit();
        });
    }

    @Test
    void aCopyOnWriteChangeOverOneThatMergedTheManifestOfItsFileConflicts() throws IOException {
        // The other change rewrote DAY2 only, but merged the manifest that lists a1 into its own: the head no longer
        // has the manifest the late change rewrote, so its list cannot be spliced in; the client's retry rewrites it.
        refused("cow_over_merge", (one, two, id) -> {
            one.loadTable(id)
                    .updateProperties()
                    .set("commit.manifest.min-count-to-merge", "2")
                    .commit();
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newOverwrite()
                    .overwriteByRowFilter(Expressions.equal("day", DAY2))
                    .addFile(writeData(now, "theirs-b", DAY2, 40))
                    .commit();
            List<String> baseManifests = stale.currentSnapshot().allManifests(stale.io()).stream()
                    .map(ManifestFile::path)
                    .toList();
            assertThat(one.loadTable(id).currentSnapshot().allManifests(now.io()))
                    .noneMatch(manifest -> baseManifests.contains(manifest.path()));
            return () -> stale.newOverwrite()
                    .deleteFile(a1)
                    .addFile(writeData(stale, "ours-a1", DAY1, 2, 3))
                    .commit();
        });
    }

    @Test
    void aCompactionOverAConcurrentDeleteOfAFileItRewroteConflicts() throws IOException {
        refused("replace_over_delete", (one, two, id) -> {
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            long start = stale.currentSnapshot().snapshotId();
            DataFile compacted = writeData(stale, "compacted-a", DAY1, 1, 2);
            one.loadTable(id).newDelete().deleteFile(a1).commit();
            return () -> stale.newRewrite()
                    .validateFromSnapshot(start)
                    .deleteFile(a1)
                    .addFile(compacted)
                    .commit();
        });
    }

    @Test
    void aDeltaOverAConcurrentDeltaConflicts() throws IOException {
        refused("delta_over_delta", (one, two, id) -> {
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newRowDelta()
                    .addDeletes(writeEqualityDeletes(now, "eq-b", DAY2, 6))
                    .commit();
            return () -> stale.newRowDelta()
                    .addDeletes(writePositionDeletes(stale, "pos-a1", a1, 0))
                    .commit();
        });
    }

    @Test
    void aDeltaOnATableThatOptedOutIsNotRebased() throws IOException {
        // The table property turns every kind of rebase off, not only appends'.
        Namespace ns = Namespace.of("differential_opted_out");
        TableIdentifier id = TableIdentifier.of(ns, "t");
        try (RESTCatalog one = server.icebergClient();
                RESTCatalog two = server.icebergClient()) {
            one.createNamespace(ns);
            Map<String, String> properties = properties(true);
            properties.put("treecat.rebase-appends", "false");
            one.createTable(id, SCHEMA, SPEC, properties);
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", DAY3, 20)).commit();
            assertThatThrownBy(() -> stale.newRowDelta()
                            .addDeletes(writePositionDeletes(stale, "pos-a1", a1, 0))
                            .commit())
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed: branch main has changed");
        }
    }

    /** A late change on {@link #seedTwoPartitions}' table as loaded ({@code stale}), whose DAY1 file is {@code a1}. */
    @FunctionalInterface
    private interface LateOnSeed {
        void commit(Table stale, DataFile a1) throws IOException;
    }

    /** {@link #refused}, where what lands first is one append of row 20 to {@code appendDay} on the seeded table. */
    private void refusedAfterAnAppend(String name, String appendDay, LateOnSeed late) throws IOException {
        refused(name, (one, two, id) -> {
            DataFile a1 = seedTwoPartitions(one, id);
            Table stale = stale(two.loadTable(id));
            Table now = one.loadTable(id);
            now.newFastAppend().appendFile(writeData(now, "c1", appendDay, 20)).commit();
            return () -> late.commit(stale, a1);
        });
    }

    /** The late change of a refused scenario, sent once the concurrent one has landed. */
    @FunctionalInterface
    private interface Late {
        void commit() throws IOException;
    }

    @FunctionalInterface
    private interface RefusedScenario {
        Late prepare(RESTCatalog one, RESTCatalog two, TableIdentifier id) throws IOException;
    }

    /** The late change gets 409 from a server that rebases by default, and the table is as the concurrent change left it. */
    private void refused(String name, RefusedScenario scenario) throws IOException {
        Namespace ns = Namespace.of("differential_" + name);
        TableIdentifier id = TableIdentifier.of(ns, "t");
        try (RESTCatalog one = server.icebergClient();
                RESTCatalog two = server.icebergClient()) {
            one.createNamespace(ns);
            one.createTable(id, SCHEMA, SPEC, properties(true));
            Late late = scenario.prepare(one, two, id);
            Table before = one.loadTable(id);
            List<String> files = liveFiles(before);
            List<String> rows = rows(before);
            assertThatThrownBy(late::commit)
                    .isInstanceOf(CommitFailedException.class)
                    .hasMessageContaining("Requirement failed: branch main has changed");
            Table after = one.loadTable(id);
            assertThat(after.currentSnapshot().snapshotId())
                    .isEqualTo(before.currentSnapshot().snapshotId());
            assertThat(liveFiles(after)).isEqualTo(files);
            assertThat(rows(after)).isEqualTo(rows);
        }
    }

    /**
     * The table as {@code loaded}, whose next snapshot update is first applied to the metadata as loaded and only
     * then, when its commit fails, to the table as it is: a commit that lost a race, made deterministic. (Iceberg's
     * snapshot updates refresh the table before they apply; this refresh returns the loaded metadata once.) Its
     * retries are Iceberg's own, as the table's {@code commit.retry.*} allows.
     */
    private static Table stale(Table loaded) {
        TableOperations ops = ((BaseTable) loaded).operations();
        AtomicBoolean refreshed = new AtomicBoolean();
        TableOperations staleOnce = new TableOperations() {
            @Override
            public TableMetadata current() {
                return ops.current();
            }

            @Override
            public TableMetadata refresh() {
                return refreshed.getAndSet(true) ? ops.refresh() : ops.current();
            }

            @Override
            public void commit(TableMetadata base, TableMetadata metadata) {
                ops.commit(base, metadata);
            }

            @Override
            public FileIO io() {
                return ops.io();
            }

            @Override
            public String metadataFileLocation(String fileName) {
                return ops.metadataFileLocation(fileName);
            }

            @Override
            public LocationProvider locationProvider() {
                return ops.locationProvider();
            }

            @Override
            public long newSnapshotId() {
                return ops.newSnapshotId();
            }
        };
        return new BaseTable(staleOnce, loaded.name());
    }

    /**
     * A copy-on-write UPDATE of DAY1 as Spark commits it under serializable isolation: the file that holds the updated
     * rows replaced by its rewrite, validated from {@code base} against new data and deletes in the statement's
     * partition.
     */
    private static void copyOnWriteUpdate(Table stale, long base, DataFile replaced, DataFile rewrite) {
        stale.newOverwrite()
                .deleteFile(replaced)
                .addFile(rewrite)
                .validateFromSnapshot(base)
                .conflictDetectionFilter(Expressions.equal("day", DAY1))
                .validateNoConflictingData()
                .validateNoConflictingDeletes()
                .commit();
    }

    /** Two appends, in DAY1 (ids 1-3, answered) and DAY2 (ids 4-6). */
    private static DataFile seedTwoPartitions(RESTCatalog one, TableIdentifier id) throws IOException {
        Table seed = one.loadTable(id);
        DataFile a1 = writeData(seed, "a1", DAY1, 1, 2, 3);
        seed.newFastAppend().appendFile(a1).commit();
        seed.newFastAppend().appendFile(writeData(seed, "b1", DAY2, 4, 5, 6)).commit();
        return a1;
    }

    private static Record row(long id, String day) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("id", id);
        record.setField("day", day);
        return record;
    }

    private static PartitionKey partition(Table table, String day) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        key.partition(row(0, day));
        return key;
    }

    private static String location(Table table, String day, String name) {
        return table.location() + "/data/day=" + day + "/" + name + ".parquet";
    }

    private static DataFile writeData(Table table, String name, String day, long... ids) throws IOException {
        DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(location(table, day, name)))
                .schema(table.schema())
                .withSpec(table.spec())
                .withPartition(partition(table, day))
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite()
                .build();
        try (writer) {
            for (long id : ids) {
                writer.write(row(id, day));
            }
        }
        return writer.toDataFile();
    }

    private static DeleteFile writePositionDeletes(Table table, String name, DataFile file, long... positions)
            throws IOException {
        PositionDeleteWriter<Record> writer = Parquet.writeDeletes(
                        table.io().newOutputFile(location(table, partitionOf(table, file), name)))
                .withSpec(table.spec())
                .withPartition(file.partition())
                .overwrite()
                .buildPositionWriter();
        PositionDelete<Record> delete = PositionDelete.create();
        try (writer) {
            for (long position : positions) {
                writer.write(delete.set(file.location(), position, null));
            }
        }
        return writer.toDeleteFile();
    }

    private static String partitionOf(Table table, DataFile file) {
        return table.spec().partitionToPath(file.partition()).substring("day=".length());
    }

    private static DeleteFile writeEqualityDeletes(Table table, String name, String day, long... ids)
            throws IOException {
        EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(table.io().newOutputFile(location(table, day, name)))
                .withSpec(table.spec())
                .withPartition(partition(table, day))
                .rowSchema(ID_ONLY)
                .equalityFieldIds(1)
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite()
                .buildEqualityWriter();
        try (writer) {
            for (long id : ids) {
                GenericRecord record = GenericRecord.create(ID_ONLY);
                record.setField("id", id);
                writer.write(record);
            }
        }
        return writer.toDeleteFile();
    }

    /**
     * The current snapshot's live files, data and delete, as "name content partition records seq data/file",
     * named by file name (the two tables have their own locations), sorted.
     */
    private static List<String> liveFiles(Table table) throws IOException {
        List<String> files = new ArrayList<>();
        Snapshot current = table.currentSnapshot();
        for (ManifestFile manifest : current.dataManifests(table.io())) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
                for (DataFile file : reader) {
                    files.add(describe(table, file));
                }
            }
        }
        for (ManifestFile manifest : current.deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                for (DeleteFile file : reader) {
                    files.add(describe(table, file));
                }
            }
        }
        files.sort(null);
        return files;
    }

    private static String describe(Table table, ContentFile<?> file) {
        String location = file.location();
        String name = location.substring(location.lastIndexOf('/') + 1).replace(".parquet", "");
        return name + " " + file.content() + " "
                + table.specs().get(file.specId()).partitionToPath(file.partition()) + " " + file.recordCount()
                + " seq " + file.dataSequenceNumber() + "/" + file.fileSequenceNumber();
    }

    private static long liveFilesSize(Table table) throws IOException {
        long size = 0;
        Snapshot current = table.currentSnapshot();
        for (ManifestFile manifest : current.dataManifests(table.io())) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
                for (DataFile file : reader) {
                    size += file.fileSizeInBytes();
                }
            }
        }
        for (ManifestFile manifest : current.deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                for (DeleteFile file : reader) {
                    size += file.fileSizeInBytes();
                }
            }
        }
        return size;
    }

    /**
     * The summary's totals and change counts (not its manifest counts, which depend on how manifests were merged,
     * nor its file sizes).
     */
    private static Map<String, String> counts(Snapshot snapshot) {
        Map<String, String> counts = new TreeMap<>();
        snapshot.summary().forEach((key, value) -> {
            if (key.endsWith("files-size")) {
                return;
            }
            if (key.startsWith("total-")
                    || key.startsWith("added-")
                    || key.startsWith("deleted-")
                    || key.startsWith("removed-")
                    || key.equals("changed-partition-count")) {
                counts.put(key, value);
            }
        });
        return counts;
    }

    /** The branch's history as operation and sequence number, newest first. */
    private static List<String> history(Table table) {
        List<String> history = new ArrayList<>();
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            history.add(s.operation() + " " + s.sequenceNumber());
        }
        return history;
    }

    /** Every row a scan returns, deletes applied, as "id/day", sorted by id. */
    /** Each file scan task of a plan of the table's current snapshot: its data file, then its delete files, sorted. */
    private static List<String> tasks(Table table) {
        List<String> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            for (FileScanTask task : planned) {
                List<String> deletes = new ArrayList<>();
                task.deletes().forEach(delete -> deletes.add(delete.location()));
                deletes.sort(null);
                tasks.add(task.file().location() + " " + deletes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        tasks.sort(null);
        return tasks;
    }

    private static List<String> rows(Table table) {
        List<Record> records = new ArrayList<>();
        try (CloseableIterable<Record> scan = IcebergGenerics.read(table).build()) {
            scan.forEach(record -> records.add(record.copy()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        records.sort((a, b) -> Long.compare((Long) a.getField("id"), (Long) b.getField("id")));
        return records.stream()
                .map(record -> record.getField("id") + "/" + record.getField("day"))
                .toList();
    }
}
