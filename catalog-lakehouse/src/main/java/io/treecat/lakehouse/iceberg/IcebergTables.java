package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.TablePurges;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PurgeEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.StoreFailures;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchIcebergTableException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg tables on the tree (DESIGN §6): {@code /<catalog>/<ns…>/<table>}, a {@link TableEntry}
 * whose pointer names the table's current metadata file, written through the catalog's
 * {@link Warehouse} {@code FileIO}; below it the table's file index ({@link FileIndex}).
 *
 * <p>Every operation is one transaction of the {@link io.treecat.lakehouse.txn.TransactionRunner},
 * which reads what it depends on through the transaction, so a concurrent writer of the same objects
 * makes one of the two fail validation (COMMIT_CONFLICT). Commits are run again on the server after
 * a lost race ({@link TableCommits}); every other change answers the conflict and its client retries.
 */
public final class IcebergTables {
    private static final Logger LOG = LoggerFactory.getLogger(IcebergTables.class);

    /** The server's default {@code iceberg.max-queued-commits-per-table}. */
    public static final int DEFAULT_MAX_QUEUED_COMMITS_PER_TABLE = 256;

    private final Lakehouse lake;
    private final IcebergNamespaces namespaces;
    private final MetadataFileCache metadataFiles = new MetadataFileCache();
    private final TableCommits commits;
    private final Runnable purgeQueued;

    /**
     * @param rebaseAppends whether lost appends are rebased on tables without a {@code treecat.rebase-appends} property ({@link CommitRebaser})
     */
    public IcebergTables(Lakehouse lake, boolean rebaseAppends) {
        this(lake, rebaseAppends, () -> {});
    }

    /**
     * @param rebaseAppends whether lost appends are rebased on tables without a {@code treecat.rebase-appends} property ({@link CommitRebaser})
     * @param purgeQueued called after a drop with purge committed (it wakes the {@code TablePurger})
     */
    public IcebergTables(Lakehouse lake, boolean rebaseAppends, Runnable purgeQueued) {
        this(lake, rebaseAppends, purgeQueued, DEFAULT_MAX_QUEUED_COMMITS_PER_TABLE);
    }

    /**
     * @param rebaseAppends whether lost appends are rebased on tables without a {@code treecat.rebase-appends} property ({@link CommitRebaser})
     * @param purgeQueued called after a drop with purge committed (it wakes the {@code TablePurger})
     * @param maxQueuedCommitsPerTable the most commits of one table taken at once; more are refused with
     *     {@code COMMIT_QUEUE_FULL}, nothing written (the server's {@code iceberg.max-queued-commits-per-table})
     */
    public IcebergTables(Lakehouse lake, boolean rebaseAppends, Runnable purgeQueued, int maxQueuedCommitsPerTable) {
        this.lake = requireNonNull(lake, "lake is null");
        this.namespaces = new IcebergNamespaces(lake);
        this.commits =
                new TableCommits(lake, metadataFiles, new CommitRebaser(rebaseAppends), maxQueuedCommitsPerTable);
        this.purgeQueued = requireNonNull(purgeQueued, "purgeQueued is null");
    }

    // ---- reads

    /** The table's current metadata, read at {@code point} (metadata files are immutable, so a past pointer still loads that version). */
    public TableMetadata load(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        return readMetadata(catalog, metadataLocation(who, catalog, point, identifier));
    }

    /** The location of a table's current metadata file, without reading it (for ETags). */
    public String metadataLocation(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return lake.runner()
                .read(
                        Access.of(who, Action.LOAD_TABLE, path),
                        point,
                        txn -> pointer(
                                Tables.find(txn, path).orElseThrow(() -> IcebergNames.noSuchTable(identifier)),
                                identifier));
    }

    /** A table's current metadata file and its Iceberg properties as of that file (kept in the table's object). */
    public record LoadTarget(String metadataLocation, Map<String, String> properties) {
        public LoadTarget {
            requireNonNull(metadataLocation, "metadataLocation is null");
            properties = Map.copyOf(properties);
        }
    }

    /** {@link #metadataLocation} with the table's properties, read in the same transaction. */
    public LoadTarget loadTarget(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return lake.runner().read(Access.of(who, Action.LOAD_TABLE, path), point, txn -> {
            TableEntry table = Tables.find(txn, path).orElseThrow(() -> IcebergNames.noSuchTable(identifier));
            return new LoadTarget(pointer(table, identifier), table.properties());
        });
    }

    public boolean exists(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return lake.runner()
                .read(Access.of(who, Action.LOAD_TABLE, path), point, txn -> ObjectType.TABLE.isTypeOf(txn.read(path)));
    }

    /** Whether a metadata file is still there: a 304 must not hide a file that vanished (the load fails, as Iceberg's would). */
    public boolean metadataFileExists(String catalog, String metadataLocation) {
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        return StoreFailures.translate(
                warehouse, () -> warehouse.io().newInputFile(metadataLocation).exists());
    }

    /**
     * As {@link #readMetadata}, for a file the caller has just checked exists ({@link #metadataFileExists}): a
     * cached copy is answered without asking the store again (on an object store, a second HEAD in one load).
     */
    public TableMetadata readCheckedMetadata(String catalog, String metadataLocation) {
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        return StoreFailures.translate(warehouse, () -> metadataFiles.readTrusted(warehouse.io(), metadataLocation));
    }

    /**
     * The JSON of a metadata file this server wrote recently, exactly as it is in the file: answers that carry a
     * table's metadata (a commit's, the loads after it) take it instead of serializing the metadata again. Empty for
     * any other file, which is read and parsed ({@link #readMetadata}) before it is answered.
     */
    public Optional<byte[]> writtenMetadataJson(String metadataLocation) {
        return metadataFiles.json(metadataLocation);
    }

    public TableMetadata readMetadata(String catalog, String metadataLocation) {
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        return StoreFailures.translate(warehouse, () -> metadataFiles.read(warehouse.io(), metadataLocation));
    }

    // ---- creating

    /**
     * The metadata a create would commit, without writing anything: for a staged create, and as the first step of a
     * create. Checked as the create itself ({@code CREATE_TABLE} on the namespace): a staged create hands out the new
     * table's location, and its vended credentials, before any commit would check it.
     */
    public TableMetadata newTable(Principal who, String catalog, Namespace namespace, NewTable table) {
        lake.names().check(LakeNames.CATALOG, catalog);
        lake.names().check(LakeNames.TABLE, table.name());
        lake.authorizer().check(Access.of(who, Action.CREATE_TABLE, IcebergNames.namespacePath(catalog, namespace)));
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        String metadataPath = table.properties().get(TableProperties.WRITE_METADATA_LOCATION);
        if (metadataPath != null) {
            warehouse.check(metadataPath, TableProperties.WRITE_METADATA_LOCATION);
        }
        // The namespace is loaded even for a table with its own location: a missing one fails here.
        Map<String, String> properties =
                namespace.isEmpty() ? Map.of() : namespaces.load(who, catalog, ReadPoint.LATEST, namespace);
        String location = table.hasLocation()
                ? warehouse.check(table.location(), Warehouse.LOCATION)
                : warehouse.childLocation(IcebergNamespaces.location(warehouse, namespace, properties), table.name());
        return table.metadata(location);
    }

    public TableMetadata create(Principal who, String catalog, Namespace namespace, NewTable table) {
        TableMetadata metadata = newTable(who, catalog, namespace, table);
        return commits.create(who, catalog, TableIdentifier.of(namespace, table.name()), metadata);
    }

    /**
     * Registers an existing metadata file as a table. With {@code overwrite} an existing table of that
     * name is pointed at the file instead (its file index is rebuilt from the file's manifests, as after
     * a rollback); a view or a namespace of that name is never overwritten.
     */
    public TableMetadata register(
            Principal who,
            String catalog,
            Namespace namespace,
            String name,
            String metadataLocation,
            boolean overwrite) {
        lake.names().check(LakeNames.CATALOG, catalog);
        lake.names().check(LakeNames.TABLE, name);
        TableIdentifier identifier = TableIdentifier.of(namespace, name);
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        FileIO io = warehouse.io();
        String checked = warehouse.check(metadataLocation, IcebergNames.METADATA_LOCATION);
        TableMetadata metadata = StoreFailures.translate(warehouse, () -> TableMetadataParser.read(io, checked));
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        lake.runner()
                .write(
                        Access.of(who, Action.CREATE_TABLE, IcebergNames.namespacePath(catalog, namespace)),
                        RetryPolicy.DEFAULT,
                        txn -> {
                            IcebergNamespaces.require(txn, catalog, namespace);
                            Optional<CatalogObject> existing = txn.read(path);
                            boolean replace = overwrite && ObjectType.TABLE.isTypeOf(existing);
                            if (existing.isPresent() && !replace) {
                                throw IcebergNames.nameTaken(IcebergNames.TABLE, identifier.toString(), existing);
                            }
                            if (replace) {
                                TableEntry current =
                                        TableEntry.decode(existing.get().value());
                                Tables.swapMetadataLocation(
                                        txn,
                                        path,
                                        current.metadataLocation(),
                                        entry -> entry.withIceberg(TableCommits.pointer(metadata)));
                            } else {
                                txn.write(new WriteOp.Add(
                                        path,
                                        ObjectKind.INNER,
                                        TableEntry.iceberg(TableCommits.pointer(metadata))
                                                .encode()));
                            }
                            // Index the current snapshot's files with the table (FileIndex), so planning is served from
                            // the tree.
                            txn.writeAll(FileIndex.writes(txn, io, path, metadata));
                            return null;
                        });
        return metadata;
    }

    // ---- changing

    /**
     * Commits changes to one or more tables atomically ({@link TableCommits}). Answers the new
     * metadata of each table, in request order.
     */
    public List<TableMetadata> commit(Principal who, String catalog, List<TableChange> changes) {
        return commits.commit(who, catalog, changes);
    }

    /**
     * Drops a table. With {@code purge}, the same commit queues the purge of its files ({@link TablePurges}), which
     * the {@code TablePurger} carries out in the background: a drop that committed always has its purge, even
     * across a restart, and one that failed has none. Retried on a conflict (with the queue made by another drop,
     * say): each attempt finds the table anew.
     */
    public void drop(Principal who, String catalog, TableIdentifier identifier, boolean purge) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        lake.runner().write(Access.of(who, Action.DROP_TABLE, path), RetryPolicy.DEFAULT, txn -> {
            TableEntry table = Tables.find(txn, path).orElseThrow(() -> IcebergNames.noSuchTable(identifier));
            String metadataLocation = pointer(table, identifier);
            txn.write(new WriteOp.Remove(path));
            if (purge && table.location() == null) {
                LOG.warn("Dropped {} without purging: it has no location to bound the purge by", identifier);
            } else if (purge) {
                TablePurges.request(
                        txn,
                        catalog,
                        PurgeEntry.requested(
                                path.toString(),
                                identifier.toString(),
                                table.location(),
                                metadataLocation,
                                System.currentTimeMillis()));
                txn.afterCommit(purgeQueued);
            }
            return null;
        });
    }

    /**
     * Renames a table: its whole subtree moves ({@link Tables#move}), the file index and its leaves
     * shared, not rewritten. The index node is read through the transaction and rewritten, so a commit
     * that changes the index between this read and the rename's commit fails the rename's validation
     * instead of being lost; a table without an index (a Hive table's partition levels below it) has
     * every level below read instead.
     */
    public void rename(Principal who, String catalog, TableIdentifier source, TableIdentifier destination) {
        lake.names().check(LakeNames.TABLE, destination.name());
        ObjectPath from = IcebergNames.tablePath(catalog, source);
        ObjectPath to = IcebergNames.tablePath(catalog, destination);
        // The rename is a drop here and a create there: both are checked, each on its own object.
        List<Access> accesses = List.of(
                Access.of(who, Action.RENAME_TABLE, from),
                Access.of(who, Action.CREATE_TABLE, IcebergNames.namespacePath(catalog, destination.namespace())));
        lake.runner().write(accesses, RetryPolicy.DEFAULT, txn -> {
            if (!ObjectType.TABLE.isTypeOf(txn.read(from))) {
                throw IcebergNames.noSuchTable(source);
            }
            IcebergNamespaces.require(txn, catalog, destination.namespace());
            Optional<CatalogObject> existing = txn.read(to);
            if (existing.isPresent()) {
                throw IcebergNames.renameTargetTaken(IcebergNames.TABLE, source, destination, existing);
            }
            Optional<CatalogObject> index = txn.read(FileIndex.indexPath(from));
            Tables.move(txn, from, to, index.isPresent());
            index.ifPresent(node -> txn.write(
                    new WriteOp.Update(FileIndex.indexPath(to), ObjectKind.INNER, FileIndex.movedValue(node))));
            return null;
        });
    }

    // ---- helpers

    private FileIO io(String catalog) {
        return lake.warehouses().forCatalog(catalog).io();
    }

    /**
     * The table's metadata pointer. A table without one (a Hive table made over HMS) has no Iceberg metadata to serve:
     * Iceberg's own answer, as its HiveCatalog gives it for a Hive table that is not an Iceberg table, a 404
     * ({@link NoSuchIcebergTableException} is a {@code NoSuchTableException}). It was a server failure (500) until the
     * live protocol fuzzer committed to, and planned on, Hive tables it had made (docs/robustness.md).
     */
    static String pointer(TableEntry table, TableIdentifier identifier) {
        if (table.metadataLocation() == null) {
            throw new NoSuchIcebergTableException("Not an Iceberg table: %s", identifier);
        }
        return table.metadataLocation();
    }
}
