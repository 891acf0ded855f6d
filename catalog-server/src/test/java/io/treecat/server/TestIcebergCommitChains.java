package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends queued on one table committed as chains (ChainedCommits), driven by Iceberg's own REST
 * client against a real server: many clients append at once from the same base, so that the
 * appends queue behind each other on the server and are taken together. Every append lands exactly
 * once, in one linear history, each client is answered metadata holding its own snapshot, fewer
 * metadata files are written than commits made, and planning at every snapshot (the chains'
 * intermediate ones included) returns exactly what Iceberg's own manifest planning returns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergCommitChains {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();

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

    private static Map<String, String> tableProperties() {
        // The clients' own retries are off: every append must land on the server, chained or rebased.
        return new HashMap<>(Map.of("treecat.rebase-appends", "true", "commit.retry.num-retries", "0"));
    }

    private static DataFile file(Table table, String name, String day) {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .withPartitionPath("day=" + day)
                .build();
    }

    /** An append built on the table as the client loaded it, sent later through the client's operations. */
    private record Append(
            TableOperations ops, TableMetadata base, TableMetadata updated, Snapshot snapshot, String file) {
        static Append of(Table table, DataFile file) {
            Snapshot snapshot = table.newFastAppend().appendFile(file).apply();
            TableOperations ops = ((BaseTable) table).operations();
            TableMetadata base = ops.current();
            return new Append(
                    ops,
                    base,
                    TableMetadata.buildFrom(base)
                            .setBranchSnapshot(snapshot, "main")
                            .build(),
                    snapshot,
                    file.location());
        }

        void commit() {
            ops.commit(base, updated);
        }
    }

    private static List<Snapshot> mainHistory(Table table) {
        List<Snapshot> history = new ArrayList<>();
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            history.add(0, s);
        }
        return history;
    }

    private static Set<String> plannedFiles(Table table, long snapshotId) {
        Set<String> files = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshotId).planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static long metadataFiles(Table table) throws IOException {
        Path metadata = Path.of(URI.create(table.location())).resolve("metadata");
        try (Stream<Path> files = Files.list(metadata)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".metadata.json"))
                    .count();
        }
    }

    @Test
    void concurrentAppendsAreChainedAndEachLandsOnceInOneHistory() throws Exception {
        int clients = 12;
        int rounds = 4;
        TableIdentifier id = TableIdentifier.of(Namespace.of("chains1"), "hot");
        try (RESTCatalog setup = server.icebergClient()) {
            setup.createNamespace(id.namespace());
            setup.createTable(id, SCHEMA, SPEC, tableProperties());
        }
        CyclicBarrier loaded = new CyclicBarrier(clients);
        CyclicBarrier built = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Append> appends = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                writers.add(pool.submit(() -> {
                    try (RESTCatalog catalog = server.icebergClient()) {
                        for (int round = 0; round < rounds; round++) {
                            loaded.await(30, TimeUnit.SECONDS);
                            Table table = catalog.loadTable(id);
                            Append append =
                                    Append.of(table, file(table, client + "-" + round, "2025-02-0" + (1 + round % 3)));
                            built.await(30, TimeUnit.SECONDS);
                            append.commit();
                            appends.add(append);
                            // The client's answer holds its own snapshot, with its own file.
                            Snapshot own = append.ops()
                                    .current()
                                    .snapshot(append.snapshot().snapshotId());
                            assertThat(own).isNotNull();
                            assertThat(own.addedDataFiles(append.ops().io()))
                                    .singleElement()
                                    .satisfies(f -> assertThat(f.location()).isEqualTo(append.file()));
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
        int commits = clients * rounds;
        try (RESTCatalog check = server.icebergClient();
                RESTCatalog serverPlanning = server.icebergServerPlanningClient()) {
            Table result = check.loadTable(id);
            List<Snapshot> history = mainHistory(result);
            // One linear history holding every snapshot, each append's exactly once.
            assertThat(history).hasSize(commits);
            assertThat(result.snapshots()).hasSize(commits);
            assertThat(history.stream().map(Snapshot::snapshotId).toList())
                    .containsExactlyInAnyOrderElementsOf(
                            appends.stream().map(a -> a.snapshot().snapshotId()).toList());
            for (int i = 1; i < history.size(); i++) {
                assertThat(history.get(i).sequenceNumber())
                        .isGreaterThan(history.get(i - 1).sequenceNumber());
            }
            Set<String> all = plannedFiles(result, result.currentSnapshot().snapshotId());
            assertThat(all)
                    .containsExactlyInAnyOrderElementsOf(
                            appends.stream().map(Append::file).toList());
            assertThat(result.currentSnapshot().summary()).containsEntry("total-data-files", String.valueOf(commits));
            // Chained: fewer metadata files than commits (the create's file included).
            assertThat(metadataFiles(result)).isLessThan(commits + 1L);

            // Planning at every snapshot, the chains' intermediate ones included: the server's plan (from the tree
            // at the chain's vid, or from the manifests) is exactly Iceberg's own manifest planning.
            Table planned = serverPlanning.loadTable(id);
            Set<String> before = new HashSet<>();
            for (Snapshot snapshot : history) {
                Set<String> expected = plannedFiles(result, snapshot.snapshotId());
                assertThat(plannedFiles(planned, snapshot.snapshotId()))
                        .as("server plan at snapshot %s", snapshot.snapshotId())
                        .isEqualTo(expected);
                // Appends only: each snapshot has the files of the one before and its own.
                assertThat(expected).containsAll(before).hasSize(before.size() + 1);
                before = expected;
            }
            // Appends only: every snapshot, a chain's earlier members too, is planned from the tree.
            assertThat(indexedSnapshots(id))
                    .containsExactlyInAnyOrderElementsOf(
                            history.stream().map(Snapshot::snapshotId).toList());
        }
    }

    /**
     * The snapshots the table's file index can plan from the tree: the head and the head's chain of every version of
     * its index node, read back version by version through the native API.
     */
    private Set<Long> indexedSnapshots(TableIdentifier id) {
        String path = TreeCatTestServer.encode("/warehouse/" + id.namespace().level(0) + "/" + id.name() + "/_files");
        TreeCatTestServer.Reply index = server.get("/treecat/v1/objects?path=" + path);
        assertThat(index.status()).as(index.body()).isEqualTo(200);
        Set<Long> indexed = new TreeSet<>();
        while (index.status() == 200) {
            JsonNode value = index.json().get("value");
            assertThat(value.has("snapshots"))
                    .as("no map of every snapshot's vid")
                    .isFalse();
            if (value.hasNonNull("head")) {
                indexed.add(value.get("head").asLong());
            }
            value.get("head_chain").fieldNames().forEachRemaining(snapshot -> indexed.add(Long.valueOf(snapshot)));
            long version = index.json().get("version").asLong();
            index = server.get("/treecat/v1/objects?path=" + path + "&vid=" + (version - 1));
        }
        assertThat(index.status()).as(index.body()).isEqualTo(404);
        return indexed;
    }

    /**
     * Several snapshots in one commit request (a client's transaction): those followed only by appends are planned
     * from the tree at the request's vid, each with exactly its own files; one followed by a delete is planned from
     * its manifests. Either way the server's plan is Iceberg's own, at every snapshot, also after the next commits
     * moved the chain into the index's history, and for a format 1 table, whose files have no sequence numbers.
     */
    @Test
    void aTransactionsSnapshotsArePlannedFromTheTreeWhenOnlyAppendsFollowThem() throws Exception {
        TableIdentifier id = TableIdentifier.of(Namespace.of("chains4"), "t");
        TableIdentifier v1 = TableIdentifier.of(Namespace.of("chains4"), "v1");
        try (RESTCatalog catalog = server.icebergClient();
                RESTCatalog serverPlanning = server.icebergServerPlanningClient()) {
            catalog.createNamespace(id.namespace());
            Table table = catalog.createTable(id, SCHEMA, SPEC, tableProperties());
            DataFile first = file(table, "first", "2025-05-01");
            table.newFastAppend().appendFile(first).commit();

            // One request: a delete, two appends (one into a day the delete emptied), a delete, an append.
            Transaction transaction = table.newTransaction();
            transaction.newDelete().deleteFile(first).commit();
            DataFile second = file(table, "second", "2025-05-01");
            transaction.newFastAppend().appendFile(second).commit();
            transaction
                    .newFastAppend()
                    .appendFile(file(table, "third", "2025-05-02"))
                    .commit();
            transaction.newDelete().deleteFile(second).commit();
            transaction
                    .newFastAppend()
                    .appendFile(file(table, "fourth", "2025-05-03"))
                    .commit();
            transaction.commitTransaction();
            table.refresh();
            List<Snapshot> history = mainHistory(table);
            assertThat(history).hasSize(6);

            // After the request: the head, and the delete before the last append (only an append follows it), are
            // planned from the tree; the snapshots before that delete are not.
            Set<Long> indexed = indexedSnapshots(id);
            assertThat(indexed)
                    .contains(
                            history.get(0).snapshotId(),
                            history.get(4).snapshotId(),
                            history.get(5).snapshotId())
                    .doesNotContain(
                            history.get(1).snapshotId(),
                            history.get(2).snapshotId(),
                            history.get(3).snapshotId());
            assertServerPlansAsIceberg(table, serverPlanning.loadTable(id), history);

            // The next commit moves the request's snapshots into the index's history, with their filters.
            table.newFastAppend().appendFile(file(table, "fifth", "2025-05-04")).commit();
            table.refresh();
            history = mainHistory(table);
            assertThat(indexedSnapshots(id))
                    .containsAll(indexed)
                    .contains(table.currentSnapshot().snapshotId());
            assertServerPlansAsIceberg(table, serverPlanning.loadTable(id), history);

            // Format 1: no sequence numbers to tell a transaction's snapshots apart, so only its last is indexed.
            Map<String, String> properties = tableProperties();
            properties.put("format-version", "1");
            Table old = catalog.createTable(v1, SCHEMA, SPEC, properties);
            Transaction appends = old.newTransaction();
            appends.newFastAppend().appendFile(file(old, "a", "2025-06-01")).commit();
            appends.newFastAppend().appendFile(file(old, "b", "2025-06-02")).commit();
            appends.commitTransaction();
            old.refresh();
            List<Snapshot> oldHistory = mainHistory(old);
            assertThat(indexedSnapshots(v1))
                    .contains(oldHistory.get(1).snapshotId())
                    .doesNotContain(oldHistory.get(0).snapshotId());
            assertServerPlansAsIceberg(old, serverPlanning.loadTable(v1), oldHistory);
        }
    }

    /**
     * An older snapshot is planned from the tree: the index node holds only its head, and the server finds the
     * version of the node whose head the snapshot was. Shown by deleting every manifest list and manifest after the
     * commits: a plan through the manifests would fail, one from the tree still answers Iceberg's own plan. For format
     * 2 (found by sequence number, a transaction's earlier snapshots among them) and format 1 (by timestamp).
     */
    @Test
    void everyOlderSnapshotIsPlannedFromTheTreeWithoutItsManifests() throws Exception {
        try (RESTCatalog catalog = server.icebergClient();
                RESTCatalog serverPlanning = server.icebergServerPlanningClient()) {
            catalog.createNamespace(Namespace.of("chains5"));
            for (String format : List.of("2", "1")) {
                TableIdentifier id = TableIdentifier.of(Namespace.of("chains5"), "v" + format);
                Map<String, String> properties = tableProperties();
                properties.put("format-version", format);
                Table table = catalog.createTable(id, SCHEMA, SPEC, properties);
                List<DataFile> files = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    DataFile file = file(table, "f" + i, "2025-07-0" + (1 + i % 5));
                    files.add(file);
                    if (i % 10 == 9) {
                        // A delete among the appends, and for format 2 a transaction's two appends in one request.
                        table.newDelete().deleteFile(files.get(i - 5)).commit();
                        if (format.equals("2")) {
                            Transaction transaction = table.newTransaction();
                            transaction.newFastAppend().appendFile(file).commit();
                            transaction
                                    .newFastAppend()
                                    .appendFile(file(table, "g" + i, "2025-07-09"))
                                    .commit();
                            transaction.commitTransaction();
                            continue;
                        }
                    }
                    table.newFastAppend().appendFile(file).commit();
                }
                table.refresh();
                List<Snapshot> history = mainHistory(table);
                assertThat(history).hasSizeGreaterThan(40);
                Map<Long, Set<String>> expected = new HashMap<>();
                for (Snapshot snapshot : history) {
                    expected.put(snapshot.snapshotId(), plannedFiles(table, snapshot.snapshotId()));
                }
                assertThat(indexedSnapshots(id))
                        .containsExactlyInAnyOrderElementsOf(
                                history.stream().map(Snapshot::snapshotId).toList());

                Path metadata = Path.of(URI.create(table.location())).resolve("metadata");
                try (Stream<Path> avro = Files.list(metadata)) {
                    for (Path file :
                            avro.filter(f -> f.toString().endsWith(".avro")).toList()) {
                        Files.delete(file);
                    }
                }
                Table planned = serverPlanning.loadTable(id);
                for (Snapshot snapshot : history) {
                    assertThat(plannedFiles(planned, snapshot.snapshotId()))
                            .as("format %s, server plan at snapshot %s", format, snapshot.snapshotId())
                            .isEqualTo(expected.get(snapshot.snapshotId()));
                }
            }
        }
    }

    /**
     * After a rollback the index's heads no longer follow the table's order, so the search may miss an older
     * snapshot: it is then planned from its manifests. Either way every plan is Iceberg's own.
     */
    @Test
    void afterARollbackEverySnapshotIsStillPlannedAsIcebergPlansIt() throws Exception {
        TableIdentifier id = TableIdentifier.of(Namespace.of("chains6"), "t");
        try (RESTCatalog catalog = server.icebergClient();
                RESTCatalog serverPlanning = server.icebergServerPlanningClient()) {
            catalog.createNamespace(id.namespace());
            Table table = catalog.createTable(id, SCHEMA, SPEC, tableProperties());
            for (int i = 0; i < 12; i++) {
                table.newFastAppend()
                        .appendFile(file(table, "a" + i, "2025-08-0" + (1 + i % 4)))
                        .commit();
            }
            table.refresh();
            List<Snapshot> before = mainHistory(table);
            table.manageSnapshots().rollbackTo(before.get(5).snapshotId()).commit();
            for (int i = 0; i < 6; i++) {
                table.newFastAppend()
                        .appendFile(file(table, "b" + i, "2025-08-0" + (1 + i % 4)))
                        .commit();
            }
            table.refresh();
            List<Snapshot> all = new ArrayList<>();
            table.snapshots().forEach(all::add);
            assertThat(all).hasSize(18);
            assertServerPlansAsIceberg(table, serverPlanning.loadTable(id), all);
        }
    }

    private static void assertServerPlansAsIceberg(Table clientPlanned, Table serverPlanned, List<Snapshot> history) {
        for (Snapshot snapshot : history) {
            assertThat(plannedFiles(serverPlanned, snapshot.snapshotId()))
                    .as("server plan at snapshot %s (%s)", snapshot.snapshotId(), snapshot.operation())
                    .isEqualTo(plannedFiles(clientPlanned, snapshot.snapshotId()));
        }
    }

    @Test
    void aSchemaChangeAmongChainedAppendsRunsAloneAndEveryAppendLandsOnceOrFailsAlone() throws Exception {
        int appenders = 8;
        TableIdentifier id = TableIdentifier.of(Namespace.of("chains2"), "t");
        try (RESTCatalog setup = server.icebergClient()) {
            setup.createNamespace(id.namespace());
            Table table = setup.createTable(id, SCHEMA, SPEC, tableProperties());
            table.newFastAppend().appendFile(file(table, "first", "2025-03-01")).commit();
        }
        CyclicBarrier built = new CyclicBarrier(appenders + 1);
        ExecutorService pool = Executors.newFixedThreadPool(appenders + 1);
        List<Append> landed = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Append> refused = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int c = 0; c < appenders; c++) {
                int client = c;
                writers.add(pool.submit(() -> {
                    try (RESTCatalog catalog = server.icebergClient()) {
                        Table table = catalog.loadTable(id);
                        Append append = Append.of(table, file(table, "a" + client, "2025-03-02"));
                        built.await(30, TimeUnit.SECONDS);
                        try {
                            append.commit();
                            landed.add(append);
                        } catch (CommitFailedException e) {
                            // Only after the schema change: an append written against the old schema is not rebased.
                            refused.add(append);
                        }
                    }
                    return null;
                }));
            }
            writers.add(pool.submit(() -> {
                try (RESTCatalog catalog = server.icebergClient()) {
                    Table table = catalog.loadTable(id);
                    built.await(30, TimeUnit.SECONDS);
                    // Not an append: runs alone between the chains (and its own client retry refreshes first).
                    table.updateSchema()
                            .addColumn("note", Types.StringType.get())
                            .commit();
                }
                return null;
            }));
            for (Future<?> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (RESTCatalog check = server.icebergClient()) {
            Table result = check.loadTable(id);
            assertThat(result.schema().findField("note")).isNotNull();
            assertThat(landed.size() + refused.size()).isEqualTo(appenders);
            List<Snapshot> history = mainHistory(result);
            assertThat(history).hasSize(1 + landed.size());
            Set<String> files = plannedFiles(result, result.currentSnapshot().snapshotId());
            List<String> expected = new ArrayList<>(List.of(result.location() + "/data/day=2025-03-01/first.parquet"));
            landed.forEach(a -> expected.add(a.file()));
            assertThat(files).containsExactlyInAnyOrderElementsOf(expected);
            // A refused append left nothing behind in the table.
            for (Append append : refused) {
                assertThat(result.snapshot(append.snapshot().snapshotId())).isNull();
            }
        }
    }

    @Test
    void loadAndTheETagAfterAChainServeTheChainsMetadataFile() throws Exception {
        int clients = 6;
        TableIdentifier id = TableIdentifier.of(Namespace.of("chains3"), "t");
        try (RESTCatalog setup = server.icebergClient()) {
            setup.createNamespace(id.namespace());
            setup.createTable(id, SCHEMA, SPEC, tableProperties());
        }
        CyclicBarrier built = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Append> appends = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                writers.add(pool.submit(() -> {
                    try (RESTCatalog catalog = server.icebergClient()) {
                        Table table = catalog.loadTable(id);
                        Append append = Append.of(table, file(table, "e" + client, "2025-04-01"));
                        built.await(30, TimeUnit.SECONDS);
                        append.commit();
                        appends.add(append);
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
        try (RESTCatalog check = server.icebergClient()) {
            Table loaded = check.loadTable(id);
            String location = ((BaseTable) loaded).operations().current().metadataFileLocation();
            // The last answer any client got is the file a load serves now; a refresh (ETag) finds nothing newer.
            assertThat(appends.stream()
                            .map(a -> a.ops().current().metadataFileLocation())
                            .toList())
                    .contains(location);
            loaded.refresh();
            assertThat(((BaseTable) loaded).operations().current().metadataFileLocation())
                    .isEqualTo(location);
            assertThat(loaded.snapshots()).hasSize(clients);
        }
    }
}
