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
import io.treecat.lakehouse.model.IcebergPointer;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.ViewEntry;
import io.treecat.lakehouse.storage.Directories;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.StoreFailures;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;
import org.apache.iceberg.view.ViewProperties;
import org.apache.iceberg.view.ViewRepresentation;

/**
 * Iceberg views on the tree: {@code /<catalog>/<ns…>/<view>}, a {@link ViewEntry} whose pointer names
 * the view's metadata, Iceberg's view-metadata JSON file, written through the catalog's
 * {@link Warehouse} {@code FileIO} at {@code <view location>/metadata/<NNNNN>-<uuid>.metadata.json}.
 *
 * <p>A view shares its level with tables and namespaces, so a name is held by at most one of them:
 * a create of either kind over the other is NAME_ALREADY_EXISTS, and a load of the other kind is
 * not found for the kind asked for. Every change is one transaction of the
 * {@link io.treecat.lakehouse.txn.TransactionRunner} that reads the view object through the
 * transaction, so two concurrent replaces of one view cannot both commit: the loser's conflict is
 * not run again ({@link RetryPolicy#NONE}), its client retries. Creates, drops and renames are run again
 * ({@link RetryPolicy#DEFAULT}): a client takes their 409 for "already exists", not for "retry".
 */
public final class IcebergViews {
    private final Lakehouse lake;

    public IcebergViews(Lakehouse lake) {
        this.lake = requireNonNull(lake, "lake is null");
    }

    private static ViewEntry entry(ViewMetadata metadata) {
        return ViewEntry.of(new IcebergPointer(
                metadata.metadataFileLocation(),
                metadata.formatVersion(),
                metadata.uuid(),
                (long) metadata.currentVersionId(),
                metadata.location(),
                metadata.properties()));
    }

    /** The view at {@code path} read in {@code txn}; VIEW_NOT_FOUND if there is none (or something else is there). */
    private static ViewEntry find(LakeTransaction txn, ObjectPath path, TableIdentifier identifier) {
        Optional<CatalogObject> object = txn.read(path);
        if (!ObjectType.VIEW.isTypeOf(object)) {
            throw IcebergNames.noSuchView(identifier);
        }
        return ViewEntry.decode(object.get().value());
    }

    private FileIO io(String catalog) {
        return lake.warehouses().forCatalog(catalog).io();
    }

    // ---- reads

    public ViewMetadata load(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        ViewEntry view =
                lake.runner().read(Access.of(who, Action.LOAD_VIEW, path), point, txn -> find(txn, path, identifier));
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        return StoreFailures.translate(
                warehouse,
                () -> ViewMetadataParser.read(warehouse.io(), view.pointer().metadataLocation()));
    }

    /** A view-metadata file of {@code catalog} (metadata files are immutable: a past one still reads as it was). */
    public ViewMetadata readMetadata(String catalog, String metadataLocation) {
        return ViewMetadataParser.read(io(catalog), metadataLocation);
    }

    public boolean exists(Principal who, String catalog, ReadPoint point, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return lake.runner()
                .read(Access.of(who, Action.LOAD_VIEW, path), point, txn -> ObjectType.VIEW.isTypeOf(txn.read(path)));
    }

    // ---- changes

    /** Creates a view from the client's first version; its location is the client's, else {@code <namespace location>/<view>}. */
    public ViewMetadata create(Principal who, String catalog, Namespace namespace, NewView view) {
        Set<String> unsupported = view.version().representations().stream()
                .filter(representation -> !(representation instanceof SQLViewRepresentation))
                .map(ViewRepresentation::type)
                .collect(Collectors.toSet());
        if (!unsupported.isEmpty()) {
            throw new BadRequestException("Unsupported view representations: %s", unsupported);
        }
        lake.names().check(LakeNames.CATALOG, catalog);
        lake.names().check(LakeNames.VIEW, view.name());
        TableIdentifier identifier = TableIdentifier.of(namespace, view.name());
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        String given = view.hasLocation() ? warehouse.check(view.location(), Warehouse.LOCATION) : null;
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return StoreFailures.translate(
                warehouse,
                () -> lake.runner()
                        .write(
                                Access.of(who, Action.CREATE_VIEW, IcebergNames.namespacePath(catalog, namespace)),
                                RetryPolicy.DEFAULT,
                                txn -> {
                                    IcebergNamespaces.require(txn, catalog, namespace);
                                    Optional<CatalogObject> existing = txn.read(path);
                                    if (existing.isPresent()) {
                                        throw IcebergNames.nameTaken(
                                                IcebergNames.VIEW, identifier.toString(), existing);
                                    }
                                    String location = given != null
                                            ? given
                                            : IcebergNamespaces.childLocation(txn, warehouse, namespace, view.name());
                                    ViewMetadata metadata = ViewMetadata.builder()
                                            .setProperties(view.properties())
                                            .setLocation(location)
                                            .setCurrentVersion(view.version(), view.schema())
                                            .build();
                                    return writeAndSwap(txn, warehouse, path, null, metadata);
                                }));
    }

    /** Adds a view for an existing view-metadata file, which is read (and so checked) first. */
    public ViewMetadata register(
            Principal who, String catalog, Namespace namespace, String name, String metadataLocation) {
        lake.names().check(LakeNames.CATALOG, catalog);
        lake.names().check(LakeNames.VIEW, name);
        TableIdentifier identifier = TableIdentifier.of(namespace, name);
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        String checked = warehouse.check(metadataLocation, IcebergNames.METADATA_LOCATION);
        ViewMetadata metadata =
                StoreFailures.translate(warehouse, () -> ViewMetadataParser.read(warehouse.io(), checked));
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        lake.runner()
                .write(
                        Access.of(who, Action.CREATE_VIEW, IcebergNames.namespacePath(catalog, namespace)),
                        RetryPolicy.DEFAULT,
                        txn -> {
                            IcebergNamespaces.require(txn, catalog, namespace);
                            Optional<CatalogObject> existing = txn.read(path);
                            if (existing.isPresent()) {
                                throw IcebergNames.nameTaken(IcebergNames.VIEW, identifier.toString(), existing);
                            }
                            txn.write(new WriteOp.Add(
                                    path, ObjectKind.INNER, entry(metadata).encode()));
                            return null;
                        });
        return metadata;
    }

    /**
     * Replaces a view's metadata, as Iceberg's {@code CatalogHandlers.commit} for views does: the
     * requirements are checked against the view's current metadata (read in the transaction), the
     * updates applied to it, and a new metadata file written; a change that changes nothing writes
     * nothing. The requirements of a view commit only assert its UUID, so a replace based on an older
     * version applies to the newest one (the server-side retry of the RCK).
     */
    public ViewMetadata commit(Principal who, String catalog, TableChange change) {
        TableIdentifier identifier = change.identifier();
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        FileIO io = warehouse.io();
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        return StoreFailures.translate(
                warehouse,
                () -> lake.runner().write(Access.of(who, Action.REPLACE_VIEW, path), RetryPolicy.NONE, txn -> {
                    ViewMetadata base = ViewMetadataParser.read(
                            io, find(txn, path, identifier).pointer().metadataLocation());
                    change.requirements().forEach(requirement -> requirement.validate(base));
                    ViewMetadata.Builder builder = ViewMetadata.buildFrom(base);
                    for (MetadataUpdate update : change.updates()) {
                        applyTo(update, builder);
                    }
                    ViewMetadata updated = builder.build();
                    return updated.changes().isEmpty() ? base : writeAndSwap(txn, warehouse, path, base, updated);
                }));
    }

    /** A table-only update (add-snapshot, set-partition-spec, …) sent for a view is the client's mistake: 400, not a server failure. */
    private static void applyTo(MetadataUpdate update, ViewMetadata.Builder builder) {
        try {
            update.applyTo(builder);
        } catch (UnsupportedOperationException e) {
            throw new BadRequestException(
                    e, "Cannot apply update %s to a view", update.getClass().getSimpleName());
        }
    }

    /** Removes the view object; its metadata files stay, as with Iceberg's catalogs (views own no data). */
    public void drop(Principal who, String catalog, TableIdentifier identifier) {
        ObjectPath path = IcebergNames.tablePath(catalog, identifier);
        lake.runner().write(Access.of(who, Action.DROP_VIEW, path), RetryPolicy.DEFAULT, txn -> {
            find(txn, path, identifier);
            txn.write(new WriteOp.Remove(path));
            return null;
        });
    }

    /** A remove plus an add in one transaction; the metadata files do not move. */
    public void rename(Principal who, String catalog, TableIdentifier source, TableIdentifier destination) {
        lake.names().check(LakeNames.VIEW, destination.name());
        ObjectPath from = IcebergNames.tablePath(catalog, source);
        ObjectPath to = IcebergNames.tablePath(catalog, destination);
        // The rename is a drop here and a create there: both are checked, each on its own object.
        List<Access> accesses = List.of(
                Access.of(who, Action.RENAME_VIEW, from),
                Access.of(who, Action.CREATE_VIEW, IcebergNames.namespacePath(catalog, destination.namespace())));
        lake.runner().write(accesses, RetryPolicy.DEFAULT, txn -> {
            ViewEntry view = find(txn, from, source);
            IcebergNamespaces.require(txn, catalog, destination.namespace());
            Optional<CatalogObject> existing = txn.read(to);
            if (existing.isPresent()) {
                throw IcebergNames.renameTargetTaken(IcebergNames.VIEW, source, destination, existing);
            }
            txn.write(new WriteOp.Remove(from));
            txn.write(new WriteOp.Add(to, ObjectKind.INNER, view.encode()));
            return null;
        });
    }

    // ---- writing

    /**
     * Writes the new metadata file and stages the view object pointing at it (added when {@code base}
     * is null). Where it writes is checked first ({@link Warehouse#check}: the file, and the view's
     * location when new or moved). The file, and the directories its writing made, are deleted if the
     * attempt does not commit, unless the outcome is unknown (then the object may reference it).
     */
    private static ViewMetadata writeAndSwap(
            LakeTransaction txn, Warehouse warehouse, ObjectPath path, ViewMetadata base, ViewMetadata updated) {
        FileIO io = warehouse.io();
        String location = newMetadataLocation(updated, base);
        if (base == null || !updated.location().equals(base.location())) {
            warehouse.check(updated.location(), Warehouse.LOCATION);
        }
        warehouse.checkWritable(location, Warehouse.METADATA_FILE);
        Directories made = Directories.madeByWriting(location);
        txn.onAbandon(() -> {
            TableCommits.deleteQuietly(io, location);
            made.removeEmpty();
        });
        ViewMetadataParser.write(updated, io.newOutputFile(location));
        ViewMetadata committed =
                ViewMetadata.buildFrom(updated).setMetadataLocation(location).build();
        txn.write(
                base == null
                        ? new WriteOp.Add(
                                path, ObjectKind.INNER, entry(committed).encode())
                        : new WriteOp.Update(
                                path, ObjectKind.INNER, entry(committed).encode()));
        return committed;
    }

    /**
     * {@code <write.metadata.path or location/metadata>/<NNNNN>-<uuid>.metadata.json}, numbered one
     * past the base's file (as Iceberg's view operations name them: {@link MetadataFileNames}).
     */
    private static String newMetadataLocation(ViewMetadata updated, ViewMetadata base) {
        String custom = updated.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
        String directory = custom != null && !custom.isBlank()
                ? Locations.stripSlash(custom)
                : Locations.stripSlash(updated.location()) + "/metadata";
        return MetadataFileNames.next(directory, base == null ? null : base.metadataFileLocation());
    }
}
