package io.treecat.lakehouse.iceberg;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.model.ObjectType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Where Iceberg's names live in the tree, and the lake errors that name them. A namespace is
 * {@code /<catalog>/<level>…}, a table or view {@code /<catalog>/<level>…/<name>}: tables, views and
 * namespaces share a level, so a name is held by at most one of them.
 *
 * <p>The errors carry the lake's codes; their context holds the names in Iceberg's text form
 * ({@code a.b}, {@code a.b.t}) under the keys below, so an adapter's error table can build its
 * protocol's exact message from them. The key that names the object says what the operation wanted
 * ({@link #NAMESPACE}, {@link #TABLE}, {@link #VIEW}); {@link #EXISTING} says what holds a taken name,
 * and {@link #SOURCE} is a rename's source.
 */
public final class IcebergNames {
    public static final String NAMESPACE = "namespace";
    public static final String TABLE = "table";
    public static final String VIEW = "view";
    /** The stored type name ({@link ObjectType#storedName()}) of the object that holds a taken name, or {@link #OTHER}. */
    public static final String EXISTING = "existing";
    /** The {@link #EXISTING} of an object of no type the lake model knows. */
    public static final String OTHER = "other";

    public static final String SOURCE = "source";
    /** What a refused register names: the metadata file it points at (the REST field's name). */
    public static final String METADATA_LOCATION = "metadata-location";

    private IcebergNames() {}

    public static ObjectPath namespacePath(String catalog, Namespace namespace) {
        List<String> ids = new ArrayList<>();
        ids.add(catalog);
        ids.addAll(List.of(namespace.levels()));
        return new ObjectPath(ids);
    }

    public static ObjectPath tablePath(String catalog, TableIdentifier identifier) {
        return namespacePath(catalog, identifier.namespace()).child(identifier.name());
    }

    static Namespace parent(Namespace namespace) {
        return Namespace.of(java.util.Arrays.copyOf(namespace.levels(), namespace.length() - 1));
    }

    public static CatalogException noSuchNamespace(Namespace namespace) {
        return new CatalogException(ErrorCode.NAMESPACE_NOT_FOUND, "Namespace does not exist: " + namespace)
                .with(NAMESPACE, namespace.toString());
    }

    public static CatalogException noSuchTable(TableIdentifier identifier) {
        return new CatalogException(ErrorCode.TABLE_NOT_FOUND, "Table does not exist: " + identifier)
                .with(TABLE, identifier.toString());
    }

    public static CatalogException noSuchView(TableIdentifier identifier) {
        return new CatalogException(ErrorCode.VIEW_NOT_FOUND, "View does not exist: " + identifier)
                .with(VIEW, identifier.toString());
    }

    static CatalogException namespaceNotEmpty(Namespace namespace) {
        return new CatalogException(ErrorCode.NAMESPACE_NOT_EMPTY, "Namespace is not empty: " + namespace)
                .with(NAMESPACE, namespace.toString());
    }

    /**
     * The name an operation wanted for a {@code wanted} ({@link #NAMESPACE}, {@link #TABLE} or
     * {@link #VIEW}) is held by {@code existing}.
     */
    static CatalogException nameTaken(String wanted, String name, Optional<CatalogObject> existing) {
        String holder = holder(existing);
        return new CatalogException(ErrorCode.NAME_ALREADY_EXISTS, "The name is taken by a " + holder + ": " + name)
                .with(wanted, name)
                .with(EXISTING, holder);
    }

    /** A rename's destination is held by {@code existing}. */
    static CatalogException renameTargetTaken(
            String wanted, TableIdentifier source, TableIdentifier destination, Optional<CatalogObject> existing) {
        return nameTaken(wanted, destination.toString(), existing).with(SOURCE, source.toString());
    }

    private static String holder(Optional<CatalogObject> existing) {
        return existing.flatMap(object -> ObjectType.of(object.value()))
                .map(ObjectType::storedName)
                .orElse(OTHER);
    }
}
