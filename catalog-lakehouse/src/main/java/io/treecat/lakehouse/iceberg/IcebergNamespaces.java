package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.Directories;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;

/**
 * Iceberg namespaces of one catalog ({@code /<catalog>/<level>…}, a {@link NamespaceEntry} each), and
 * the listing of what a namespace holds. Every operation is one transaction of the
 * {@link io.treecat.lakehouse.txn.TransactionRunner}; a change that loses a race is run again, re-reading
 * everything ({@link RetryPolicy#DEFAULT}). Iceberg's clients do not retry a namespace change that gets 409:
 * they take it for "already exists" (create) or fail, so the conflict must not reach them when another try
 * can settle it (a replica's transaction that read before a leader change always conflicts once,
 * docs/replication.md).
 */
public final class IcebergNamespaces {
    private final Lakehouse lake;

    public IcebergNamespaces(Lakehouse lake) {
        this.lake = requireNonNull(lake, "lake is null");
    }

    /** One page of names under a namespace, and the token of the next page (null: no more). */
    public record Page(List<String> names, String nextPageToken) {
        public Page {
            names = Collections.unmodifiableList(new ArrayList<>(requireNonNull(names, "names is null")));
        }
    }

    /** What a property update did: the keys set, the keys removed, and the keys to remove that were not there. */
    public record PropertyChanges(List<String> updated, List<String> removed, List<String> missing) {
        public PropertyChanges {
            // Unmodifiable views, not List.copyOf: callers (Iceberg's response builders) ask contains(null).
            updated = Collections.unmodifiableList(new ArrayList<>(updated));
            removed = Collections.unmodifiableList(new ArrayList<>(removed));
            missing = Collections.unmodifiableList(new ArrayList<>(missing));
        }
    }

    /**
     * Checks that a catalog's read point can be read (a vid or named snapshot that exists) and answers the
     * vid it stands for: the newest one for the live catalog.
     */
    public long checkReadable(Principal who, String catalog, ReadPoint point) {
        return lake.runner()
                .read(Access.of(who, Action.LIST_NAMESPACES, ObjectPath.of(catalog)), point, LakeTransaction::readVid);
    }

    /**
     * Creates a namespace (and its catalog on first use) and, on a local warehouse, its directory. The
     * names and the location are checked before the transaction starts ({@link LakeNames},
     * {@link Warehouse#check}); the directory is made inside it, before the commit, and removed again
     * if the commit does not happen, so a refused create leaves neither the namespace nor a directory.
     */
    public Map<String, String> create(
            Principal who, String catalog, Namespace namespace, Map<String, String> properties) {
        if (namespace.isEmpty()) {
            throw new IllegalArgumentException("Invalid namespace: empty");
        }
        lake.names().check(LakeNames.CATALOG, catalog);
        lake.names().checkNamespace(List.of(namespace.levels()));
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        String location = warehouse.check(location(warehouse, namespace, properties), Warehouse.LOCATION);
        Namespace parent = IcebergNames.parent(namespace);
        lake.runner()
                .write(
                        Access.of(who, Action.CREATE_NAMESPACE, IcebergNames.namespacePath(catalog, parent)),
                        RetryPolicy.DEFAULT,
                        txn -> {
                            Catalogs.ensure(txn, warehouse);
                            require(txn, catalog, parent);
                            ObjectPath path = IcebergNames.namespacePath(catalog, namespace);
                            Optional<CatalogObject> existing = txn.read(path);
                            if (existing.isPresent()) {
                                throw IcebergNames.nameTaken(IcebergNames.NAMESPACE, namespace.toString(), existing);
                            }
                            txn.write(new WriteOp.Add(
                                    path,
                                    ObjectKind.INNER,
                                    NamespaceEntry.of(properties).encode()));
                            Directories made = Directories.make(location);
                            txn.onAbandon(made::removeEmpty);
                            return null;
                        });
        return properties;
    }

    /**
     * The namespace's properties, with its default {@code location} when none was set, as Iceberg's
     * HiveCatalog answers with the database's location. Trino needs it: without a namespace location
     * it creates a table eagerly (a create without {@code stage-create}), then refuses the table
     * because its location already holds the metadata file.
     */
    public Map<String, String> load(Principal who, String catalog, ReadPoint point, Namespace namespace) {
        ObjectPath path = IcebergNames.namespacePath(catalog, namespace);
        return lake.runner().read(Access.of(who, Action.LOAD_NAMESPACE, path), point, txn -> {
            Optional<CatalogObject> object = txn.read(path);
            if (!ObjectType.NAMESPACE.isTypeOf(object)) {
                throw IcebergNames.noSuchNamespace(namespace);
            }
            Map<String, String> properties = new LinkedHashMap<>(
                    NamespaceEntry.decode(object.get().value()).properties());
            properties.putIfAbsent(
                    NamespaceEntry.LOCATION, location(lake.warehouses().forCatalog(catalog), namespace, properties));
            return properties;
        });
    }

    /**
     * One page of the objects of {@code type} directly under {@code parent} (the catalog when empty),
     * and the next page's token. A read-only point lists every page at the same vid; the newest lists
     * each page at the vid its token names, as any paged query does.
     */
    public Page list(
            Principal who,
            String catalog,
            ReadPoint point,
            Namespace parent,
            ObjectType type,
            String pageToken,
            Integer pageSize) {
        ObjectPath parentPath = IcebergNames.namespacePath(catalog, parent);
        Action action = switch (type) {
            case TABLE -> Action.LIST_TABLES;
            case VIEW -> Action.LIST_VIEWS;
            default -> Action.LIST_NAMESPACES;
        };
        return lake.runner().read(Access.of(who, action, parentPath), point, txn -> {
            Optional<CatalogObject> parentObject = txn.read(parentPath);
            if (parent.isEmpty()) {
                if (parentObject.isEmpty()) {
                    return new Page(List.of(), null);
                }
            } else if (!ObjectType.NAMESPACE.isTypeOf(parentObject)) {
                throw IcebergNames.noSuchNamespace(parent);
            }
            String query = PathSteps.of(parentPath) + "/[" + LakeKeys.OBJ_TYPE + "="
                    + PathSteps.literal(type.storedName()) + "]";
            ReadPoint pages = point instanceof ReadPoint.Latest ? point : ReadPoint.vid(txn.readVid());
            QueryRequest request = QueryRequest.of(query).at(pages).withResults(ChildKinds.INNER);
            if (pageSize != null) {
                if (pageSize < 1) {
                    throw new IllegalArgumentException("Invalid pageSize: " + pageSize);
                }
                request = request.withLimit(Math.min(pageSize, QueryRequest.MAX_LIMIT));
            }
            if (pageToken != null && !pageToken.isEmpty()) {
                request = request.withPageToken(pageToken);
            }
            List<String> names = new ArrayList<>();
            while (true) {
                QueryPage page = txn.service().query(request);
                // Only what the caller may see (docs/security.md, "Filtering"): a page can come back shorter than asked
                // for, its token still leading on.
                page.rows().stream()
                        .map(row -> row.id())
                        .filter(id -> lake.authorizer().maySee(who, parentPath.child(id), Optional.of(type)))
                        .forEach(names::add);
                if (pageSize != null || page.continuation().isEmpty()) {
                    return new Page(names, page.continuation().orElse(null));
                }
                request = request.withPageToken(page.continuation().get());
            }
        });
    }

    /** Drops an empty namespace. */
    public void drop(Principal who, String catalog, Namespace namespace) {
        ObjectPath path = IcebergNames.namespacePath(catalog, namespace);
        lake.runner().write(Access.of(who, Action.DROP_NAMESPACE, path), RetryPolicy.DEFAULT, txn -> {
            if (namespace.isEmpty() || !ObjectType.NAMESPACE.isTypeOf(txn.read(path))) {
                throw IcebergNames.noSuchNamespace(namespace);
            }
            if (!txn.firstChildren(path, 1).isEmpty()) {
                throw IcebergNames.namespaceNotEmpty(namespace);
            }
            txn.write(new WriteOp.Remove(path));
            return null;
        });
    }

    /** Removes, then sets; a key may not be in both. */
    public PropertyChanges updateProperties(
            Principal who, String catalog, Namespace namespace, List<String> removals, Map<String, String> updates) {
        Set<String> both = new HashSet<>(removals);
        both.retainAll(updates.keySet());
        if (!both.isEmpty()) {
            throw new IllegalArgumentException("Cannot both set and remove properties: " + both);
        }
        if (updates.containsKey(NamespaceEntry.LOCATION)) {
            lake.warehouses().forCatalog(catalog).check(updates.get(NamespaceEntry.LOCATION), Warehouse.LOCATION);
        }
        ObjectPath path = IcebergNames.namespacePath(catalog, namespace);
        return lake.runner().write(Access.of(who, Action.UPDATE_NAMESPACE, path), RetryPolicy.DEFAULT, txn -> {
            Optional<CatalogObject> object = txn.read(path);
            if (!ObjectType.NAMESPACE.isTypeOf(object)) {
                throw IcebergNames.noSuchNamespace(namespace);
            }
            NamespaceEntry entry = NamespaceEntry.decode(object.get().value());
            Map<String, String> properties = new LinkedHashMap<>(entry.properties());
            List<String> removed = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            for (String key : removals) {
                (properties.remove(key) != null ? removed : missing).add(key);
            }
            properties.putAll(updates);
            txn.write(new WriteOp.Update(
                    path, ObjectKind.INNER, entry.withProperties(properties).encode()));
            return new PropertyChanges(new ArrayList<>(updates.keySet()), removed, missing);
        });
    }

    // ---- for the table and view operations

    /** Fails with NAMESPACE_NOT_FOUND unless {@code namespace} (the catalog itself when empty) is a namespace, read in {@code txn}. */
    static void require(LakeTransaction txn, String catalog, Namespace namespace) {
        if (!namespace.isEmpty()
                && !ObjectType.NAMESPACE.isTypeOf(txn.read(IcebergNames.namespacePath(catalog, namespace)))) {
            throw IcebergNames.noSuchNamespace(namespace);
        }
    }

    /**
     * The default location of an object named {@code name} in {@code namespace}: one escaped path segment
     * under the namespace's location, checked ({@link Warehouse#childLocation}).
     */
    static String childLocation(LakeTransaction txn, Warehouse warehouse, Namespace namespace, String name) {
        Map<String, String> properties = namespace.isEmpty()
                ? Map.of()
                : txn.read(IcebergNames.namespacePath(warehouse.catalog(), namespace))
                        .filter(ObjectType.NAMESPACE::isTypeOf)
                        .map(object -> NamespaceEntry.decode(object.value()).properties())
                        .orElse(Map.of());
        return warehouse.childLocation(location(warehouse, namespace, properties), name);
    }

    /** A namespace's location: its {@code location} property, else under the catalog's warehouse (one escaped segment per level). */
    static String location(Warehouse warehouse, Namespace namespace, Map<String, String> properties) {
        String location = properties.get(NamespaceEntry.LOCATION);
        if (location != null && !location.isBlank()) {
            return Locations.stripSlash(location);
        }
        return warehouse.namespaceLocation(List.of(namespace.levels()));
    }
}
