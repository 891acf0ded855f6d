package io.treecat.lakehouse.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.TablePurges;
import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.iceberg.NewTable;
import io.treecat.lakehouse.iceberg.TableChange;
import io.treecat.lakehouse.model.PurgeEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.UpdateRequirements;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Purges of dropped tables on a real RocksDB store and real files: what goes (every file of the table inside its
 * location), what stays (files outside it, and whatever another table entry or a named snapshot still uses), and
 * that a queued purge outlives failures and restarts. Passes are run directly ({@link TablePurger#pass}) with a
 * clock the test moves, except in the one test of the background thread.
 */
class TestTablePurger {
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final String CATALOG = "cat";
    private static final Namespace DB = Namespace.of("db");
    private static final TableIdentifier TABLE = TableIdentifier.of(DB, "t");
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

    @TempDir
    Path directory;

    private final MovableClock clock = new MovableClock();
    private final FailingIO io = new FailingIO();
    private CatalogService service;
    private Lakehouse lake;
    private IcebergTables tables;
    private TablePurger purger;

    @BeforeEach
    void open() {
        openCatalog();
        new IcebergNamespaces(lake).create(WHO, CATALOG, DB, Map.of());
    }

    private void openCatalog() {
        service = LakeTestStores.open(directory.resolve("catalog"));
        lake = Lakehouse.of(
                () -> service,
                Warehouses.underRoot(LocalFileIO.location(directory.resolve("warehouse")), io),
                Authorizer.allowAll());
        purger = new TablePurger(lake, clock, INTERVAL, MAX_BACKOFF);
        tables = new IcebergTables(lake, false, purger::wake);
    }

    @AfterEach
    void close() {
        purger.close();
        service.close();
    }

    @Test
    void aDropWithPurgeDeletesEveryFileOfTheTableInsideItsLocationAndNothingOutside() throws IOException {
        Table table = createWithAppends(TABLE, 2);
        Path outside = Files.writeString(directory.resolve("elsewhere.parquet"), "not the table's to delete");
        table.newAppend().appendFile(dataFile(outside)).commit();
        List<Path> tableFiles = filesUnder(tableDirectory());
        assertThat(tableFiles).hasSizeGreaterThan(8); // 3 data files, manifests, manifest lists, metadata files

        tables.drop(WHO, CATALOG, TABLE, true);
        assertThat(queued()).hasSize(1);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).isEmpty();
        assertThat(outside).exists();
        assertThat(queued()).isEmpty();
        // Two data files inside, and every manifest, manifest list and metadata file.
        assertThat(purger.stats().filesDeleted()).isEqualTo(tableFiles.size());
        assertThat(purger.stats().completed()).isEqualTo(1);
        assertThat(purger.stats().queued()).isZero();
    }

    @Test
    void aDropWithoutPurgeQueuesNothingAndKeepsTheFiles() throws IOException {
        createWithAppends(TABLE, 1);
        List<Path> before = filesUnder(tableDirectory());

        tables.drop(WHO, CATALOG, TABLE, false);
        purger.pass();

        assertThat(queued()).isEmpty();
        assertThat(filesUnder(tableDirectory())).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void aTableRegisteredFromTheSameMetadataHoldsThePurgeBackUntilItIsDropped() throws IOException {
        Table table = createWithAppends(TABLE, 1);
        TableIdentifier copy = TableIdentifier.of(DB, "copy");
        tables.register(WHO, CATALOG, DB, "copy", table.location() + "/" + metadataFileName(table), false);
        List<Path> before = filesUnder(tableDirectory());

        tables.drop(WHO, CATALOG, TABLE, true);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).containsExactlyInAnyOrderElementsOf(before);
        PurgeEntry deferred = queued().get(0).entry();
        assertThat(deferred.lastError()).isEqualTo("deferred: the table at /cat/db/copy still uses its files");
        assertThat(deferred.attempts()).isEqualTo(1);
        assertThat(purger.stats().deferred()).isEqualTo(1);

        tables.drop(WHO, CATALOG, copy, false);
        clock.advance(INTERVAL);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).isEmpty();
        assertThat(queued()).isEmpty();
    }

    @Test
    void aNamedSnapshotThatHoldsTheTableDefersThePurgeUntilItIsDropped() throws IOException {
        createWithAppends(TABLE, 1);
        service.createSnapshot("before-drop", ReadPoint.LATEST);
        List<Path> before = filesUnder(tableDirectory());

        tables.drop(WHO, CATALOG, TABLE, true);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).containsExactlyInAnyOrderElementsOf(before);
        assertThat(queued().get(0).entry().lastError())
                .isEqualTo("deferred: the named snapshot 'before-drop' still holds the table");

        service.dropSnapshot("before-drop");
        clock.advance(INTERVAL);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).isEmpty();
    }

    @Test
    void aNewTableOfTheSameNameAtTheSameLocationDoesNotHoldThePurgeBackAndKeepsItsOwnFiles() throws IOException {
        createWithAppends(TABLE, 1);
        List<Path> oldFiles = filesUnder(tableDirectory());
        tables.drop(WHO, CATALOG, TABLE, true);

        Table again = createWithAppends(TABLE, 1);
        List<Path> newFiles = new ArrayList<>(filesUnder(tableDirectory()));
        newFiles.removeAll(oldFiles);
        purger.pass();

        assertThat(filesUnder(tableDirectory())).containsExactlyInAnyOrderElementsOf(newFiles);
        assertThat(queued()).isEmpty();
        again.refresh();
        assertThat(again.currentSnapshot().addedDataFiles(again.io())).hasSize(1);
    }

    @Test
    void aFailedAttemptKeepsTheStoresErrorAndIsRetriedAfterItsBackoff() throws IOException {
        createWithAppends(TABLE, 1);
        tables.drop(WHO, CATALOG, TABLE, true);
        io.failDeletes = true;

        purger.pass();

        PurgeEntry failed = queued().get(0).entry();
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(failed.lastError()).isEqualTo("UncheckedIOException: the store is unreachable");
        assertThat(failed.nextAttempt()).isEqualTo(clock.millis() + INTERVAL.toMillis());
        assertThat(purger.stats().failedAttempts()).isEqualTo(1);

        io.failDeletes = false;
        purger.pass(); // not due yet
        assertThat(queued()).hasSize(1);
        assertThat(filesUnder(tableDirectory())).isNotEmpty();

        clock.advance(INTERVAL);
        purger.pass();
        assertThat(queued()).isEmpty();
        assertThat(filesUnder(tableDirectory())).isEmpty();
    }

    @Test
    void theBackoffDoublesFromTheIntervalUpToItsCap() {
        assertThat(purger.backoff(0)).isEqualTo(10_000);
        assertThat(purger.backoff(1)).isEqualTo(20_000);
        assertThat(purger.backoff(3)).isEqualTo(80_000);
        assertThat(purger.backoff(5)).isEqualTo(300_000);
        assertThat(purger.backoff(1000)).isEqualTo(300_000);
    }

    @Test
    void aQueuedPurgeOutlivesARestart() throws IOException {
        createWithAppends(TABLE, 1);
        tables.drop(WHO, CATALOG, TABLE, true);
        purger.close();
        service.close();

        openCatalog();
        purger.pass();

        assertThat(filesUnder(tableDirectory())).isEmpty();
        assertThat(queued()).isEmpty();
    }

    @Test
    void theBackgroundPurgerIsWokenByTheDrop() throws Exception {
        createWithAppends(TABLE, 1);
        purger.start();

        tables.drop(WHO, CATALOG, TABLE, true);

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!filesUnder(tableDirectory()).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(filesUnder(tableDirectory())).isEmpty();
        assertThat(purger.stats().completed()).isEqualTo(1);
    }

    // ---- helpers

    private List<TablePurges.Purge> queued() {
        return lake.runner()
                .read(
                        Access.of(WHO, Action.NATIVE_READ, TablePurges.queue(CATALOG)),
                        txn -> TablePurges.queued(txn, CATALOG));
    }

    private Path tableDirectory() {
        return directory.resolve("warehouse").resolve(CATALOG).resolve("db").resolve("t");
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private static String metadataFileName(Table table) {
        String location = ((BaseTable) table).operations().current().metadataFileLocation();
        return "metadata/" + location.substring(location.lastIndexOf('/') + 1);
    }

    /** A table made through the lake, with {@code appends} appends of one real data file each, by Iceberg's own API. */
    private Table createWithAppends(TableIdentifier identifier, int appends) throws IOException {
        tables.create(WHO, CATALOG, identifier.namespace(), NewTable.of(identifier.name(), SCHEMA));
        Table table = new BaseTable(new LakeOperations(identifier), identifier.toString());
        Path data = Path.of(java.net.URI.create(table.location())).resolve("data");
        Files.createDirectories(data);
        for (int i = 0; i < appends; i++) {
            Path file = Files.writeString(data.resolve("part-" + System.nanoTime() + ".parquet"), "rows");
            table.newAppend().appendFile(dataFile(file)).commit();
        }
        return table;
    }

    private static DataFile dataFile(Path file) throws IOException {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(LocalFileIO.location(file))
                .withFileSizeInBytes(Files.size(file))
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .build();
    }

    /** Iceberg's table operations over the lake's own commit, as the REST adapter's clients would commit. */
    private final class LakeOperations implements TableOperations {
        private final TableIdentifier identifier;
        private TableMetadata current;

        LakeOperations(TableIdentifier identifier) {
            this.identifier = identifier;
            refresh();
        }

        @Override
        public TableMetadata current() {
            return current;
        }

        @Override
        public TableMetadata refresh() {
            current = tables.load(WHO, CATALOG, ReadPoint.LATEST, identifier);
            return current;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            List<MetadataUpdate> updates = metadata.changes();
            List<UpdateRequirement> requirements = UpdateRequirements.forUpdateTable(base, updates);
            current = tables.commit(WHO, CATALOG, List.of(new TableChange(identifier, requirements, updates)))
                    .get(0);
        }

        @Override
        public FileIO io() {
            return io;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return current.location() + "/metadata/" + fileName;
        }

        @Override
        public LocationProvider locationProvider() {
            return LocationProviders.locationsFor(current.location(), current.properties());
        }
    }

    /** The local file system, whose deletes fail while {@link #failDeletes} is set (a store that is down). */
    private static final class FailingIO implements FileIO {
        private final LocalFileIO local = new LocalFileIO();
        volatile boolean failDeletes;

        @Override
        public InputFile newInputFile(String location) {
            return local.newInputFile(location);
        }

        @Override
        public OutputFile newOutputFile(String location) {
            return local.newOutputFile(location);
        }

        @Override
        public void deleteFile(String location) {
            if (failDeletes) {
                throw new UncheckedIOException("the store is unreachable", new IOException("connection refused"));
            }
            local.deleteFile(location);
        }
    }

    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-11-27T09:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
