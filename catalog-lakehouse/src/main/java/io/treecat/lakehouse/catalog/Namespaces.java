package io.treecat.lakehouse.catalog;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.Optional;

/** Namespace objects (Iceberg namespaces, Hive databases), as every interface reads them. */
public final class Namespaces {
    private Namespaces() {}

    /** The namespace at {@code path}, read in {@code txn}; empty if there is none (or something else is there). */
    public static Optional<NamespaceEntry> find(LakeTransaction txn, ObjectPath path) {
        Optional<CatalogObject> object = txn.read(path);
        return ObjectType.NAMESPACE.isTypeOf(object)
                ? Optional.of(NamespaceEntry.decode(object.get().value()))
                : Optional.empty();
    }
}
