package io.treecat.lakehouse.catalog;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.StorageSettings;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Catalog objects ({@code /<catalog>}): made on first use by whichever interface writes there first, or
 * explicitly (the HMS {@code create_catalog}).
 */
public final class Catalogs {
    private Catalogs() {}

    /**
     * Stages the catalog object of {@code warehouse} if it does not exist yet (with the warehouse's
     * location); refuses a first path id that names something else.
     */
    public static void ensure(LakeTransaction txn, Warehouse warehouse) {
        ObjectPath path = ObjectPath.of(warehouse.catalog());
        Optional<CatalogObject> object = txn.read(path);
        if (object.isEmpty()) {
            txn.write(new WriteOp.Add(
                    path,
                    ObjectKind.INNER,
                    CatalogEntry.of(warehouse.location()).encode()));
        } else if (!ObjectType.CATALOG.isTypeOf(object)) {
            throw new CatalogException(ErrorCode.NOT_A_CATALOG, "Not a catalog: " + warehouse.catalog())
                    .with("catalog", warehouse.catalog());
        }
    }

    /**
     * The catalog {@code /<name>}, read in {@code txn}; empty when nothing is there.
     *
     * @throws CatalogException {@code NOT_A_CATALOG} when the first path id names something else
     */
    public static Optional<CatalogEntry> find(LakeTransaction txn, String name) {
        ObjectPath path = ObjectPath.of(name);
        Optional<CatalogObject> object = txn.read(path);
        if (object.isEmpty()) {
            return Optional.empty();
        }
        if (!ObjectType.CATALOG.isTypeOf(object)) {
            throw new CatalogException(ErrorCode.NOT_A_CATALOG, "Not a catalog: " + name).with("catalog", name);
        }
        return Optional.of(CatalogEntry.decode(object.get().value()));
    }

    /**
     * The storage settings of the catalog {@code name} as the newest version holds them: for {@code Warehouses}, which
     * asks on each operation (a point read), so a catalog added at run time is served at once. Empty for a catalog
     * without its own settings, no catalog, or a name no path can have.
     */
    public static Optional<StorageSettings> storedStorage(CatalogService service, String name) {
        ObjectPath path;
        try {
            path = ObjectPath.of(name);
        } catch (CatalogException e) {
            return Optional.empty();
        }
        return service.get(path, ReadPoint.LATEST)
                .filter(object -> ObjectType.CATALOG.isTypeOf(Optional.of(object)))
                .map(object -> CatalogEntry.decode(object.value()).storage());
    }

    /** Every catalog (the root's children of type catalog), by name in id order, read in {@code txn}. */
    public static Map<String, CatalogEntry> list(LakeTransaction txn) {
        Map<String, CatalogEntry> catalogs = new LinkedHashMap<>();
        for (CatalogObject row : txn.children(ObjectPath.ROOT, ObjectType.CATALOG)) {
            catalogs.put(row.id(), CatalogEntry.decode(row.value()));
        }
        return catalogs;
    }
}
