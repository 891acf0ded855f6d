package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.IcebergPointer;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Directories;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.StoreFailures;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg table commit (docs/architecture.md, "The REST table commit"): one or more tables
 * changed atomically, in one TreeCat transaction. Per attempt, each table object is read in the
 * transaction, its requirements checked against its current metadata (a blind append that fails
 * them may be rebased, {@link CommitRebaser}), the updates applied, a new metadata file written, and
 * the table's pointer swapped ({@link Tables#swapMetadataLocation}, or the table added for a create)
 * with its file-index writes ({@link FileIndex}) in the same write set.
 *
 * <p>Commits of one server to the same table queue behind each other first ({@link TableCommitLocks});
 * a commit that still loses a race (another server, a create or rename) is run again by the
 * {@link io.treecat.lakehouse.txn.TransactionRunner}: it re-reads and re-checks everything. The
 * metadata files and rebased manifest lists of an attempt that does not commit are deleted by the
 * runner ({@link LakeTransaction#onAbandon}), unless the outcome is unknown.
 */
final class TableCommits {
    private static final Logger LOG = LoggerFactory.getLogger(TableCommits.class);

    private final Lakehouse lake;
    private final MetadataFileCache metadataFiles;
    private final CommitRebaser rebaser;
    private final TableCommitLocks locks = new TableCommitLocks();
    private final ChainedCommits chains;
    /** The most commits one table may have admitted at once (running, or waiting for its lock or its chain). */
    private final int maxQueuedPerTable;
    /** Commits admitted per table, and not answered yet; a table with none has no entry. */
    private final ConcurrentHashMap<ObjectPath, Integer> admitted = new ConcurrentHashMap<>();

    /**
     * @param maxQueuedPerTable the most commits of one table this server takes at once; one more is refused with
     *     {@code COMMIT_QUEUE_FULL} before anything is read or written
     */
    TableCommits(Lakehouse lake, MetadataFileCache metadataFiles, CommitRebaser rebaser, int maxQueuedPerTable) {
        this.lake = requireNonNull(lake, "lake is null");
        this.metadataFiles = requireNonNull(metadataFiles, "metadataFiles is null");
        this.rebaser = requireNonNull(rebaser, "rebaser is null");
        if (maxQueuedPerTable < 1) {
            throw new IllegalArgumentException("maxQueuedPerTable must be at least 1: " + maxQueuedPerTable);
        }
        this.maxQueuedPerTable = maxQueuedPerTable;
        this.chains = new ChainedCommits(lake, metadataFiles, rebaser, locks, this::writeAndSwap);
    }

    /** A table's base (null when created) and its pointer as read, and its metadata after the change (the base itself: no change). */
    /**
     * A table's base (null when created) and its pointer as read, its metadata after the change (the base itself: no
     * change), and the heads of the base's refs that had no manifest list cached before the change was applied
     * ({@link ManifestCaches#uncachedHeads}).
     */
    record Staged(
            ObjectPath path,
            TableMetadata base,
            String basePointer,
            TableMetadata updated,
            List<Snapshot> uncachedHeads) {
        Staged(ObjectPath path, TableMetadata base, String basePointer, TableMetadata updated) {
            this(path, base, basePointer, updated, List.of());
        }

        boolean changed() {
            return base != updated;
        }
    }

    List<TableMetadata> commit(Principal who, String catalog, List<TableChange> changes) {
        List<TableIdentifier> identifiers =
                changes.stream().map(TableChange::identifier).toList();
        if (new HashSet<>(identifiers).size() != identifiers.size()) {
            throw new IllegalArgumentException("A table appears more than once in one commit: " + identifiers);
        }
        for (TableChange change : changes) {
            if (creates(change)) {
                lake.names().check(LakeNames.CATALOG, catalog);
                lake.names().check(LakeNames.TABLE, change.identifier().name());
            }
        }
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        List<ObjectPath> paths = identifiers.stream()
                .map(identifier -> IcebergNames.tablePath(catalog, identifier))
                .toList();
        admit(paths, identifiers);
        try {
            return commit(who, warehouse, changes, paths);
        } finally {
            paths.forEach(this::release);
        }
    }

    /**
     * Takes a commit of {@code paths} into their tables' queues, or refuses it when one of them has
     * {@link #maxQueuedPerTable} commits already. Each waiting commit holds a request thread and its
     * manifests read ahead; past the bound a burst would exhaust the server's threads, and clients
     * would give up on commits that then land. Refused here, nothing is written, and Iceberg's client
     * retries the answer (429) after a pause.
     */
    private void admit(List<ObjectPath> paths, List<TableIdentifier> identifiers) {
        for (int i = 0; i < paths.size(); i++) {
            ObjectPath path = paths.get(i);
            AtomicBoolean full = new AtomicBoolean();
            admitted.compute(path, (table, queued) -> {
                if (queued != null && queued >= maxQueuedPerTable) {
                    full.set(true);
                    return queued;
                }
                return queued == null ? 1 : queued + 1;
            });
            if (full.get()) {
                paths.subList(0, i).forEach(this::release);
                throw new CatalogException(
                                ErrorCode.COMMIT_QUEUE_FULL,
                                "Too many commits are waiting on table " + identifiers.get(i) + ", retry later")
                        .with("table", identifiers.get(i))
                        .with("limit", maxQueuedPerTable)
                        .with("configKey", "iceberg.max-queued-commits-per-table");
            }
        }
    }

    private void release(ObjectPath path) {
        admitted.computeIfPresent(path, (table, queued) -> queued == 1 ? null : queued - 1);
    }

    private List<TableMetadata> commit(
            Principal who, Warehouse warehouse, List<TableChange> changes, List<ObjectPath> paths) {
        if (changes.size() == 1 && ChainedCommits.chainable(changes.get(0))) {
            // A change to one table: committed with the others queued on the table (ChainedCommits), its manifests read
            // while the chain runs.
            // A store failure fails the chain, which deletes what it wrote: 503 to every member (StoreFailures).
            return StoreFailures.translate(
                    warehouse, () -> List.of(chains.commit(who, warehouse, paths.get(0), changes.get(0))));
        }
        readManifestLists(warehouse.io(), changes);
        // A change that creates its table (a staged create's commit: Trino's CREATE TABLE, Spark's CTAS, any
        // createTransaction) is a create, checked on the namespace; every other change is a write to its table.
        List<Access> accesses = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            accesses.add(
                    creates(changes.get(i))
                            ? Access.of(who, Action.CREATE_TABLE, paths.get(i).parent())
                            : Access.of(who, Action.COMMIT_TABLE, paths.get(i)));
        }
        // A store failure (the file write, or a read of the base) abandons the transaction, which deletes every
        // metadata file it wrote: 503, nothing committed (StoreFailures).
        try (TableCommitLocks.Held ignored = locks.lock(paths)) {
            return StoreFailures.translate(
                    warehouse,
                    () -> lake.runner().write(accesses, RetryPolicy.DEFAULT, txn -> {
                        List<Staged> staged = new ArrayList<>();
                        for (TableChange change : changes) {
                            staged.add(apply(txn, warehouse, change));
                        }
                        return writeAndSwap(txn, warehouse, staged);
                    }));
        }
    }

    /** The appends waiting to be chained, and the commits waiting for {@code table}'s lock (for tests). */
    int waitingAppends() {
        return chains.waiting();
    }

    int waitingForLock(ObjectPath table) {
        return locks.queued(table);
    }

    /** Adds a table for {@code metadata}, its first metadata file written. */
    TableMetadata create(Principal who, String catalog, TableIdentifier identifier, TableMetadata metadata) {
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        Access access =
                Access.of(who, Action.CREATE_TABLE, IcebergNames.namespacePath(catalog, identifier.namespace()));
        return StoreFailures.translate(
                warehouse,
                // A create is run again after a lost race: clients take its 409 for "already exists".
                () -> lake.runner().write(access, RetryPolicy.DEFAULT, txn -> {
                    IcebergNamespaces.require(txn, catalog, identifier.namespace());
                    Optional<CatalogObject> existing = txn.read(path);
                    if (existing.isPresent()) {
                        throw IcebergNames.nameTaken(IcebergNames.TABLE, identifier.toString(), existing);
                    }
                    return writeAndSwap(txn, warehouse, List.of(new Staged(path, null, null, metadata)))
                            .get(0);
                }));
    }

    /**
     * Reads the manifest lists of the snapshots a change adds before its table's queue: the snapshot
     * objects keep them, so the file index and a rebase, which need them while the table's other
     * commits wait, find them read. A list that cannot be read fails there, as it would without this.
     */
    private static void readManifestLists(FileIO io, List<TableChange> changes) {
        for (TableChange change : changes) {
            for (MetadataUpdate update : change.updates()) {
                if (update instanceof MetadataUpdate.AddSnapshot add) {
                    try {
                        StagingFileIO.readManifestList(io, add.snapshot());
                    } catch (RuntimeException e) {
                        LOG.debug(
                                "Manifest list of snapshot {} not read ahead",
                                add.snapshot().snapshotId(),
                                e);
                    }
                }
            }
        }
    }

    private Staged apply(LakeTransaction txn, Warehouse warehouse, TableChange change) {
        TableIdentifier identifier = change.identifier();
        ObjectPath path = IcebergNames.tablePath(warehouse.catalog(), identifier);
        Optional<CatalogObject> object = txn.read(path);
        boolean create = creates(change);
        TableMetadata base = null;
        String basePointer = null;
        if (ObjectType.TABLE.isTypeOf(object)) {
            TableEntry existing = TableEntry.decode(object.get().value());
            if (create && existing.metadataLocation() == null) {
                // A create whose name a Hive table holds: the name is taken, as by any other table.
                throw IcebergNames.nameTaken(IcebergNames.TABLE, identifier.toString(), object);
            }
            basePointer = IcebergTables.pointer(existing, identifier);
            base = metadataFiles.read(warehouse.io(), basePointer);
        } else if (object.isPresent()) {
            throw IcebergNames.nameTaken(IcebergNames.TABLE, identifier.toString(), object);
        } else if (!create) {
            throw IcebergNames.noSuchTable(identifier);
        }
        TableMetadata current = base;
        List<Snapshot> uncachedHeads = ManifestCaches.uncachedHeads(base);
        try {
            change.requirements().forEach(requirement -> requirement.validate(current));
        } catch (CommitFailedException e) {
            // A blind append that lost a race is rebased onto the table as it is now (CommitRebaser).
            Optional<CommitRebaser.Rebased> rebased =
                    create ? Optional.empty() : rebaser.rebase(warehouse.io(), current, change);
            if (rebased.isEmpty()) {
                throw e;
            }
            txn.onAbandon(() -> rebaser.discard(warehouse.io(), rebased.get()));
            txn.afterCommit(() -> rebaser.committed(rebased.get()));
            return new Staged(path, base, basePointer, rebased.get().metadata(), uncachedHeads);
        }
        TableMetadata.Builder builder;
        if (create) {
            IcebergNamespaces.require(txn, warehouse.catalog(), identifier.namespace());
            builder = change.updates().stream()
                    .filter(MetadataUpdate.UpgradeFormatVersion.class::isInstance)
                    .map(update -> ((MetadataUpdate.UpgradeFormatVersion) update).formatVersion())
                    .findFirst()
                    .map(TableMetadata::buildFromEmpty)
                    .orElseGet(TableMetadata::buildFromEmpty);
            builder.setLocation(
                    IcebergNamespaces.childLocation(txn, warehouse, identifier.namespace(), identifier.name()));
        } else {
            builder = TableMetadata.buildFrom(base);
        }
        TableMetadata updated = TableUpdates.apply(builder, change.updates());
        if (!create && updated.changes().isEmpty()) {
            return new Staged(path, base, basePointer, base);
        }
        return new Staged(path, base, basePointer, updated);
    }

    /** Whether a change creates its table (a staged create's commit: requirement {@code assert-create}). */
    private static boolean creates(TableChange change) {
        return change.requirements().stream().anyMatch(UpdateRequirement.AssertTableDoesNotExist.class::isInstance);
    }

    /**
     * Writes a metadata file for each changed table and stages the swap of its pointer, with its
     * file-index writes, all in {@code txn}'s one write set. Each file is deleted if the attempt does
     * not commit (the runner's {@code onAbandon}), and cached once it has.
     */
    private List<TableMetadata> writeAndSwap(LakeTransaction txn, Warehouse warehouse, List<Staged> stagedTables) {
        return writeAndSwap(txn, warehouse, warehouse::io, stagedTables);
    }

    /**
     * As {@link #writeAndSwap(LakeTransaction, Warehouse, List)}, the file index reading the new
     * snapshots' manifest lists and manifests through {@code reads} (a chain's {@link StagingFileIO}), asked for
     * only once the metadata file is written: a chain's members read their manifests meanwhile.
     */
    List<TableMetadata> writeAndSwap(
            LakeTransaction txn, Warehouse warehouse, Supplier<FileIO> reads, List<Staged> stagedTables) {
        FileIO io = warehouse.io();
        List<TableMetadata> results = new ArrayList<>();
        for (Staged staged : stagedTables) {
            if (!staged.changed()) {
                results.add(staged.updated());
                continue;
            }
            String location = metadataLocation(
                    staged.updated(),
                    staged.base() == null ? null : staged.base().metadataFileLocation());
            checkLocations(warehouse, staged, location);
            Directories made = Directories.madeByWriting(location);
            txn.onAbandon(() -> {
                deleteQuietly(io, location);
                made.removeEmpty();
            });
            // Overwriting, as Iceberg's own catalogs write metadata files: the name is new (a version and a UUID), and
            // create() would first ask an object store whether it exists, a round trip per commit.
            byte[] json = MetadataJson.of(staged.updated());
            MetadataJson.write(io.newOutputFile(location), json);
            TableMetadata committed = TableMetadata.buildFrom(staged.updated())
                    .discardChanges()
                    .withMetadataLocation(location)
                    .build();
            // Before the metadata is handed out: the lists this commit read stay cached in its snapshot objects
            // otherwise, for as long as the table lives (ManifestCaches).
            List<Snapshot> heads = staged.uncachedHeads();
            txn.afterCommit(() -> {
                ManifestCaches.forget(staged.base(), committed, heads);
                metadataFiles.written(committed, json);
            });
            results.add(committed);
            IcebergPointer pointer = pointer(committed);
            if (staged.base() == null) {
                txn.write(new WriteOp.Add(
                        staged.path(),
                        ObjectKind.INNER,
                        TableEntry.iceberg(pointer).encode()));
            } else {
                Tables.swapMetadataLocation(
                        txn, staged.path(), staged.basePointer(), table -> table.withIceberg(pointer));
            }
            // The files the new snapshot(s) add and remove, as leaves under the table, in the same write set
            // (FileIndex).
            txn.writeAll(FileIndex.writes(txn, reads.get(), staged.path(), committed));
        }
        return results;
    }

    /**
     * Checks where a commit writes ({@link Warehouse#check}): the new metadata file, and the table's
     * location when the change sets it (a create, or a {@code set-location}). A table placed outside the
     * warehouse keeps committing only while external locations are allowed.
     */
    private static void checkLocations(Warehouse warehouse, Staged staged, String metadataFile) {
        String location = staged.updated().location();
        if (staged.base() == null || !location.equals(staged.base().location())) {
            warehouse.check(location, Warehouse.LOCATION);
        }
        warehouse.checkWritable(metadataFile, Warehouse.METADATA_FILE);
    }

    /** What the table object keeps of a committed metadata file. */
    static IcebergPointer pointer(TableMetadata metadata) {
        Snapshot current = metadata.currentSnapshot();
        return new IcebergPointer(
                metadata.metadataFileLocation(),
                metadata.formatVersion(),
                metadata.uuid(),
                current == null ? null : current.snapshotId(),
                metadata.location(),
                metadata.properties());
    }

    /** The next metadata file after {@code previous} (null for a new table), numbered as Iceberg numbers them. */
    private static String metadataLocation(TableMetadata metadata, String previous) {
        String base = metadata.properties().get(TableProperties.WRITE_METADATA_LOCATION);
        String directory =
                base != null ? Locations.stripSlash(base) : Locations.stripSlash(metadata.location()) + "/metadata";
        return MetadataFileNames.next(directory, previous);
    }

    static void deleteQuietly(FileIO io, String location) {
        try {
            io.deleteFile(location);
        } catch (RuntimeException e) {
            LOG.debug("Could not delete {}", location, e);
        }
    }
}
