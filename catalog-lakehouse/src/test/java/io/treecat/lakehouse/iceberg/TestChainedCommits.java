package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.UpdateRequirements;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chains made deterministic: the table's first commit is held inside its metadata write (holding
 * the table's lock) while the next commits queue behind it, in a known order, on real RocksDB. Then
 * it is let go, and the queued appends commit as one chain: one metadata file, each member its own
 * answer or its own 409; a change that is not an append runs alone; a failed metadata write fails
 * the chain's members and leaves nothing behind.
 */
class TestChainedCommits {
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final String CATALOG = "cat";
    private static final Namespace DB = Namespace.of("db");
    private static final TableIdentifier TABLE = TableIdentifier.of(DB, "t");
    private static final ObjectPath TABLE_PATH = IcebergNames.tablePath(CATALOG, TABLE);
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    /** The most commits the table takes at once here: enough for every test's queue but the bound's own. */
    private static final int QUEUE_BOUND = 4;

    @TempDir
    Path directory;

    private CatalogService service;
    private Lakehouse lake;
    private GateIO io;
    private IcebergTables tables;
    private TableCommits commits;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory.resolve("catalog"));
        io = new GateIO();
        lake = Lakehouse.of(
                () -> service,
                Warehouses.underRoot(LocalFileIO.location(directory.resolve("warehouse")), io),
                Authorizer.allowAll());
        new IcebergNamespaces(lake).create(WHO, CATALOG, DB, Map.of());
        tables = new IcebergTables(lake, true);
        tables.create(WHO, CATALOG, DB, NewTable.of("t", SCHEMA));
        commits = new TableCommits(lake, new MetadataFileCache(), new CommitRebaser(true), QUEUE_BOUND);
    }

    @AfterEach
    void close() {
        pool.shutdownNow();
        service.close();
    }

    private TableMetadata load() {
        return tables.load(WHO, CATALOG, ReadPoint.LATEST, TABLE);
    }

    /** What Iceberg's client sends for a one-file append built on {@code base}: its manifest and list written. */
    private record Append(TableChange change, Snapshot snapshot, String file) {}

    private Append append(TableMetadata base, String name) {
        DataFile file = DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(base.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
        Snapshot snapshot = new BaseTable(new ClientOperations(base, io), "t")
                .newFastAppend()
                .appendFile(file)
                .apply();
        TableMetadata updated = TableMetadata.buildFrom(base)
                .setBranchSnapshot(snapshot, "main")
                .build();
        return new Append(
                new TableChange(TABLE, UpdateRequirements.forUpdateTable(base, updated.changes()), updated.changes()),
                snapshot,
                file.location());
    }

    private Future<TableMetadata> send(TableChange change) {
        return pool.submit(() -> commits.commit(WHO, CATALOG, List.of(change)).get(0));
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within 30 s");
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    /** Sends {@code first}, holds it in its metadata write, queues {@code then} one by one, and lets it go. */
    private Future<TableMetadata> holdFirst(TableChange first) throws InterruptedException {
        io.hold();
        Future<TableMetadata> held = send(first);
        io.entered.await(30, TimeUnit.SECONDS);
        return held;
    }

    private Future<TableMetadata> queueAppend(TableChange change) throws InterruptedException {
        int before = commits.waitingAppends();
        Future<TableMetadata> future = send(change);
        await(() -> commits.waitingAppends() == before + 1);
        return future;
    }

    private List<String> metadataDirectory(String suffix) throws IOException {
        try (Stream<Path> files = Files.list(directory
                .resolve("warehouse")
                .resolve(CATALOG)
                .resolve("db")
                .resolve("t")
                .resolve("metadata"))) {
            return files.map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(suffix))
                    .sorted()
                    .toList();
        }
    }

    private static List<Long> mainHistory(TableMetadata metadata) {
        List<Long> history = new ArrayList<>();
        for (Snapshot s = metadata.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            history.add(0, s.snapshotId());
        }
        return history;
    }

    private Set<String> liveFiles(TableMetadata metadata) {
        Set<String> files = new TreeSet<>();
        metadata.currentSnapshot().dataManifests(io).forEach(manifest -> {
            try (var reader = org.apache.iceberg.ManifestFiles.read(manifest, io)) {
                reader.forEach(f -> files.add(f.location()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return files;
    }

    @Test
    void queuedAppendsCommitAsOneChainAndAFailedRequirementIsThatMembersOwn409() throws Exception {
        TableMetadata base = load();
        Future<TableMetadata> first = holdFirst(append(base, "first").change());
        Append second = append(base, "second");
        Append stale = append(base, "third");
        // Its table UUID requirement fails whatever happened before it: the rebase does not take it.
        TableChange wrongTable = new TableChange(
                TABLE,
                List.of(
                        new UpdateRequirement.AssertTableUUID(
                                java.util.UUID.randomUUID().toString()),
                        new UpdateRequirement.AssertRefSnapshotID("main", null)),
                stale.change().updates());
        Append fourth = append(base, "fourth");
        Future<TableMetadata> a = queueAppend(second.change());
        Future<TableMetadata> b = queueAppend(wrongTable);
        Future<TableMetadata> c = queueAppend(fourth.change());
        int writesBefore = io.metadataWrites;

        io.release();

        TableMetadata afterFirst = first.get(30, TimeUnit.SECONDS);
        TableMetadata answerA = a.get(30, TimeUnit.SECONDS);
        TableMetadata answerC = c.get(30, TimeUnit.SECONDS);
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, b::get))
                .cause()
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("Requirement failed: UUID does not match");
        // Nothing the commits read (their lists for the file index, the head's for a rebase) stays cached in the
        // snapshot objects they hand out, which every later version of the table shares (ManifestCaches).
        for (TableMetadata answer : List.of(afterFirst, answerA, answerC)) {
            assertThat(answer.snapshots()).noneMatch(TreeCatIcebergAccess::hasManifests);
        }
        // The held commit wrote its file (counted once let go), then the chain of three wrote ONE.
        assertThat(io.metadataWrites - writesBefore).isEqualTo(2);
        assertThat(answerA.metadataFileLocation())
                .isEqualTo(answerC.metadataFileLocation())
                .isNotEqualTo(afterFirst.metadataFileLocation());
        // Each member's answer holds its own snapshot; the history is linear, in arrival order.
        assertThat(answerA.snapshot(second.snapshot().snapshotId())).isNotNull();
        assertThat(answerC.snapshot(fourth.snapshot().snapshotId())).isNotNull();
        TableMetadata loaded = load();
        assertThat(loaded.metadataFileLocation()).isEqualTo(answerC.metadataFileLocation());
        assertThat(mainHistory(loaded))
                .containsExactly(
                        afterFirst.currentSnapshot().snapshotId(),
                        second.snapshot().snapshotId(),
                        fourth.snapshot().snapshotId());
        assertThat(loaded.snapshot(stale.snapshot().snapshotId())).isNull();
        assertThat(liveFiles(loaded))
                .containsExactlyInAnyOrder(base.location() + "/data/first.parquet", second.file(), fourth.file());
        // The metadata log has one entry for the chain, the snapshot log one per snapshot.
        assertThat(loaded.previousFiles()).hasSize(2);
        assertThat(loaded.snapshotLog()).hasSize(3);
        TableEntry stored = TableEntry.decode(
                service.get(TABLE_PATH, ReadPoint.LATEST).orElseThrow().value());
        assertThat(stored.metadataLocation()).isEqualTo(loaded.metadataFileLocation());
        // The file index holds each file with the sequence numbers the committed lists gave it (the members'
        // manifests were decoded before their rebase assigned them: ReadAhead).
        assertIndexedAsIcebergReadsThem(loaded);
        assertManifestListsAsWritten(loaded);
    }

    /**
     * Each snapshot's manifests, as the server holds them (the rebase hands each snapshot the list it
     * wrote, so that the chain does not decode it again), are exactly what its written manifest list
     * file gives a reader that never saw the commit.
     */
    private void assertManifestListsAsWritten(TableMetadata metadata) {
        TableMetadata fresh = TableMetadataParser.read(new LocalFileIO(), metadata.metadataFileLocation());
        assertThat(metadata.snapshots()).hasSizeGreaterThan(2);
        for (Snapshot held : metadata.snapshots()) {
            Snapshot written = fresh.snapshot(held.snapshotId());
            assertThat(held.allManifests(io).stream().map(TestChainedCommits::describe))
                    .as("manifests of snapshot %s", held.snapshotId())
                    .containsExactlyElementsOf(written.allManifests(new LocalFileIO()).stream()
                            .map(TestChainedCommits::describe)
                            .toList());
        }
    }

    /**
     * A rebased snapshot comes with the manifest list it wrote, before anything reads it back (so that
     * the next member of a chain, and the file index, decode nothing), and that list is exactly what a
     * reader of the written file gets.
     */
    @Test
    void aRebasedSnapshotHoldsTheListItWroteAsAReaderReadsIt() throws Exception {
        TableMetadata base = load();
        send(append(base, "first").change()).get(30, TimeUnit.SECONDS);
        TableMetadata current = load();
        Append late = append(base, "late");
        StagingFileIO staging = new StagingFileIO(io);

        CommitRebaser.Rebased rebased =
                new CommitRebaser(true).rebase(staging, current, late.change()).orElseThrow();

        Field cache = Class.forName("org.apache.iceberg.BaseSnapshot").getDeclaredField("allManifests");
        cache.setAccessible(true);
        assertThat(cache.get(rebased.snapshot()))
                .as("the list, before any read")
                .isNotNull();
        staging.flush(Runnable::run).join();
        Snapshot reread = SnapshotParser.fromJson(SnapshotParser.toJson(rebased.snapshot()));
        assertThat(rebased.snapshot().allManifests(staging).stream().map(TestChainedCommits::describe))
                .hasSize(2)
                .containsExactlyElementsOf(reread.allManifests(new LocalFileIO()).stream()
                        .map(TestChainedCommits::describe)
                        .toList());
    }

    /** Every field of a manifest list entry. */
    private static String describe(ManifestFile manifest) {
        StringBuilder text = new StringBuilder()
                .append(manifest.path())
                .append(' ')
                .append(List.of(
                        manifest.length(),
                        manifest.partitionSpecId(),
                        manifest.content(),
                        manifest.sequenceNumber(),
                        manifest.minSequenceNumber()))
                .append(' ')
                .append(Arrays.asList(
                        manifest.snapshotId(),
                        manifest.addedFilesCount(),
                        manifest.addedRowsCount(),
                        manifest.existingFilesCount(),
                        manifest.existingRowsCount(),
                        manifest.deletedFilesCount(),
                        manifest.deletedRowsCount(),
                        manifest.keyMetadata(),
                        manifest.firstRowId()));
        if (manifest.partitions() != null) {
            for (ManifestFile.PartitionFieldSummary partition : manifest.partitions()) {
                text.append(" [")
                        .append(partition.containsNull())
                        .append(',')
                        .append(partition.containsNaN())
                        .append(',')
                        .append(partition.lowerBound())
                        .append(',')
                        .append(partition.upperBound())
                        .append(']');
            }
        }
        return text.toString();
    }

    /** Every live file of the table's current snapshot is a leaf with the sequence numbers Iceberg's reader gives it. */
    private void assertIndexedAsIcebergReadsThem(TableMetadata metadata) {
        List<ContentFile<?>> live = new ArrayList<>();
        for (ManifestFile manifest : metadata.currentSnapshot().dataManifests(io)) {
            TreeCatIcebergAccess.readEntries(
                    manifest, io, metadata.specsById(), true, (status, file, snapshotId) -> live.add(file));
        }
        assertThat(live).hasSizeGreaterThan(1);
        for (ContentFile<?> file : live) {
            ObjectPath leaf = TABLE_PATH
                    .child(FileLeaves.partitionId(PartitionSpec.unpartitioned(), file.partition()))
                    .child(FileIndex.fileId(file.location()));
            BsonDocument value =
                    service.get(leaf, ReadPoint.LATEST).orElseThrow().value();
            assertThat(value.getInt64(LakeKeys.DATA_SEQUENCE_NUMBER).getValue())
                    .as("data sequence number of %s", file.location())
                    .isEqualTo(file.dataSequenceNumber());
            assertThat(value.getInt64(LakeKeys.FILE_SEQUENCE_NUMBER).getValue())
                    .as("file sequence number of %s", file.location())
                    .isEqualTo(file.fileSequenceNumber());
        }
    }

    @Test
    void aTableWithAFullQueueRefusesTheNextCommitBeforeItWritesAnything() throws Exception {
        TableMetadata base = load();
        Future<TableMetadata> first = holdFirst(append(base, "first").change());
        List<Future<TableMetadata>> queued = new ArrayList<>();
        List<Append> admitted = new ArrayList<>();
        for (int i = 1; i < QUEUE_BOUND; i++) {
            Append append = append(base, "queued" + i);
            admitted.add(append);
            queued.add(queueAppend(append.change()));
        }
        Append refused = append(base, "refused");

        assertThatThrownBy(() -> commits.commit(WHO, CATALOG, List.of(refused.change())))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_QUEUE_FULL);
                    assertThat(e.context())
                            .containsEntry("limit", String.valueOf(QUEUE_BOUND))
                            .containsEntry("configKey", "iceberg.max-queued-commits-per-table");
                })
                .hasMessage("Too many commits are waiting on table db.t, retry later");
        // Refused on arrival: it joined no queue.
        assertThat(commits.waitingAppends()).isEqualTo(QUEUE_BOUND - 1);

        io.release();
        first.get(30, TimeUnit.SECONDS);
        for (Future<TableMetadata> future : queued) {
            future.get(30, TimeUnit.SECONDS);
        }
        TableMetadata loaded = load();
        assertThat(loaded.snapshot(refused.snapshot().snapshotId())).isNull();
        assertThat(liveFiles(loaded))
                .doesNotContain(refused.file())
                .contains(admitted.get(0).file());
        // Every answered commit left the queue: the refused one, sent again, is taken (and rebased).
        TableMetadata again =
                commits.commit(WHO, CATALOG, List.of(refused.change())).get(0);
        assertThat(again.snapshot(refused.snapshot().snapshotId())).isNotNull();
    }

    @Test
    void aChangeThatIsNotAnAppendJoinsTheChainInItsTurn() throws Exception {
        TableMetadata base = load();
        Future<TableMetadata> first = holdFirst(append(base, "first").change());
        Append second = append(base, "second");
        Append third = append(base, "third");
        Future<TableMetadata> a = queueAppend(second.change());
        Future<TableMetadata> p = queueAppend(setProperty(base.uuid(), "k", "v"));
        Future<TableMetadata> c = queueAppend(third.change());
        int writesBefore = io.metadataWrites;

        io.release();

        first.get(30, TimeUnit.SECONDS);
        TableMetadata answerA = a.get(30, TimeUnit.SECONDS);
        TableMetadata answerP = p.get(30, TimeUnit.SECONDS);
        TableMetadata answerC = c.get(30, TimeUnit.SECONDS);
        // One chain: the property change does not take the table's lock between the appends.
        assertThat(answerP.metadataFileLocation())
                .isEqualTo(answerA.metadataFileLocation())
                .isEqualTo(answerC.metadataFileLocation());
        // The held commit's file and the chain's.
        assertThat(io.metadataWrites - writesBefore).isEqualTo(2);
        TableMetadata loaded = load();
        assertThat(loaded.properties()).containsEntry("k", "v");
        assertThat(mainHistory(loaded))
                .hasSize(3)
                .endsWith(second.snapshot().snapshotId(), third.snapshot().snapshotId());
        // Each member a commit of its own in the metadata log's sense: the chain's one file, after the held one's.
        assertThat(loaded.previousFiles()).hasSize(2);
    }

    /**
     * What a request carries into its commit (an idempotency key's record) is staged by the chain that takes its
     * change, on the drainer's thread, which does not see the request thread's attachment; a member that failed
     * carries nothing.
     */
    @Test
    void aMembersAttachmentIsCommittedByTheChainThatTakesItsChangeAndOnlyThen() throws Exception {
        TableMetadata base = load();
        Future<TableMetadata> first = holdFirst(append(base, "first").change());
        List<Object> stagedByCommitted = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Object> stagedByRefused = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicReference<TransactionRunner.Attached> committedAttachment = new AtomicReference<>();
        AtomicReference<TransactionRunner.Attached> refusedAttachment = new AtomicReference<>();
        int before = commits.waitingAppends();
        Future<TableMetadata> committed = sendAttached(
                setProperty(base.uuid(), "k", "v"),
                (txn, result) -> stagedByCommitted.add(result),
                committedAttachment);
        await(() -> commits.waitingAppends() == before + 1);
        Future<TableMetadata> refused = sendAttached(
                setProperty(UUID.randomUUID().toString(), "k", "w"),
                (txn, result) -> stagedByRefused.add(result),
                refusedAttachment);
        await(() -> commits.waitingAppends() == before + 2);

        io.release();

        first.get(30, TimeUnit.SECONDS);
        TableMetadata answer = committed.get(30, TimeUnit.SECONDS);
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, refused::get))
                .cause()
                .isInstanceOf(CommitFailedException.class);
        assertThat(stagedByCommitted).containsExactly(List.of(answer));
        assertThat(committedAttachment.get().committed()).isTrue();
        assertThat(stagedByRefused).isEmpty();
        assertThat(refusedAttachment.get().committed()).isFalse();
    }

    private static TableChange setProperty(String uuid, String key, String value) {
        return new TableChange(
                TABLE,
                List.of(new UpdateRequirement.AssertTableUUID(uuid)),
                List.of(new MetadataUpdate.SetProperties(Map.of(key, value))));
    }

    private Future<TableMetadata> sendAttached(
            TableChange change,
            TransactionRunner.CommitAttachment attachment,
            AtomicReference<TransactionRunner.Attached> bound) {
        return pool.submit(() -> {
            try (TransactionRunner.Attached attached = lake.runner().attach(attachment)) {
                bound.set(attached);
                return commits.commit(WHO, CATALOG, List.of(change)).get(0);
            }
        });
    }

    @Test
    void aFailedMetadataWriteFailsTheWholeChainAndLeavesNothingBehind() throws Exception {
        TableMetadata base = load();
        Future<TableMetadata> first = holdFirst(append(base, "first").change());
        Append second = append(base, "second");
        Append third = append(base, "third");
        Future<TableMetadata> a = queueAppend(second.change());
        Future<TableMetadata> c = queueAppend(third.change());
        io.failNext = true;
        List<String> lists = metadataDirectory(".avro");

        io.release();

        TableMetadata afterFirst = first.get(30, TimeUnit.SECONDS);
        for (Future<TableMetadata> member : List.of(a, c)) {
            assertThat(org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, member::get))
                    .cause()
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("store down");
        }
        // Nothing in the tree, no metadata file of the chain, and the rebased manifest lists deleted.
        TableMetadata loaded = load();
        assertThat(loaded.metadataFileLocation()).isEqualTo(afterFirst.metadataFileLocation());
        assertThat(mainHistory(loaded))
                .containsExactly(afterFirst.currentSnapshot().snapshotId());
        assertThat(metadataDirectory(".metadata.json")).hasSize(2);
        assertThat(metadataDirectory(".avro")).isEqualTo(lists);
        // The store is back: the same appends commit, as one chain or one by one.
        commits.commit(WHO, CATALOG, List.of(second.change()));
        commits.commit(WHO, CATALOG, List.of(third.change()));
        assertThat(mainHistory(load())).hasSize(3);
    }

    /** Builds an append on the client side: Iceberg's own FastAppend over the metadata the client loaded. */
    private static final class ClientOperations implements TableOperations {
        private final TableMetadata base;
        private final FileIO io;

        ClientOperations(TableMetadata base, FileIO io) {
            this.base = base;
            this.io = io;
        }

        @Override
        public TableMetadata current() {
            return base;
        }

        @Override
        public TableMetadata refresh() {
            return base;
        }

        @Override
        public void commit(TableMetadata before, TableMetadata metadata) {
            throw new UnsupportedOperationException("the test sends the change itself");
        }

        @Override
        public FileIO io() {
            return io;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return base.location() + "/metadata/" + fileName;
        }

        @Override
        public LocationProvider locationProvider() {
            return LocationProviders.locationsFor(base.location(), base.properties());
        }
    }

    /**
     * A {@link LocalFileIO} that can hold the next metadata-file write until released (the commit
     * holding it keeps the table's lock), and fail the one after.
     */
    private static final class GateIO implements FileIO {
        private final LocalFileIO local = new LocalFileIO();
        private final CountDownLatch gate = new CountDownLatch(1);
        private volatile boolean armed;
        final CountDownLatch entered = new CountDownLatch(1);
        volatile boolean failNext;
        volatile int metadataWrites;

        void hold() {
            armed = true;
        }

        void release() {
            gate.countDown();
        }

        @Override
        public InputFile newInputFile(String location) {
            return local.newInputFile(location);
        }

        @Override
        public OutputFile newOutputFile(String location) {
            OutputFile file = local.newOutputFile(location);
            if (!location.endsWith(".metadata.json")) {
                return file;
            }
            return new OutputFile() {
                @Override
                public PositionOutputStream create() {
                    if (armed) {
                        armed = false;
                        entered.countDown();
                        try {
                            gate.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    } else if (failNext) {
                        failNext = false;
                        throw new UncheckedIOException(new IOException("store down"));
                    }
                    metadataWrites++;
                    return file.create();
                }

                @Override
                public PositionOutputStream createOrOverwrite() {
                    return create();
                }

                @Override
                public String location() {
                    return file.location();
                }

                @Override
                public InputFile toInputFile() {
                    return file.toInputFile();
                }
            };
        }

        @Override
        public void deleteFile(String location) {
            local.deleteFile(location);
        }
    }
}
