package io.treecat.lakehouse.auth;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * What a grant gives, on one object and (inherited) everything below it (docs/security.md, "Authorization"). Some
 * privileges imply others, as Lakekeeper's {@code modify ⇒ select ⇒ describe}: {@link #TABLE_WRITE} implies {@link
 * #TABLE_READ_DATA}, which implies {@link #TABLE_READ_METADATA}. The names are stored in grants: never rename one.
 */
public enum Privilege {
    /** Reading a table's metadata: load it, see it in lists, its partitions and statistics (Lakekeeper's describe). */
    TABLE_READ_METADATA,
    /** Reading a table's data: plan scans, read-only storage credentials, native reads of its files. */
    TABLE_READ_DATA(TABLE_READ_METADATA),
    /** Committing to a table: Iceberg commits, Hive alter_table, partitions and statistics; read-write credentials. */
    TABLE_WRITE(TABLE_READ_DATA),
    /** Creating tables in a namespace (checked on the namespace). */
    TABLE_CREATE,
    /** Dropping a table. */
    TABLE_DROP(TABLE_READ_METADATA),
    /** Renaming a table (and {@link #TABLE_CREATE} on the namespace it moves into). */
    TABLE_RENAME(TABLE_READ_METADATA),
    /** Loading a view and seeing it in lists. */
    VIEW_READ,
    /** Replacing a view's definition. */
    VIEW_WRITE(VIEW_READ),
    /** Creating views in a namespace (checked on the namespace). */
    VIEW_CREATE,
    VIEW_DROP(VIEW_READ),
    /** Renaming a view (and {@link #VIEW_CREATE} on the namespace it moves into). */
    VIEW_RENAME(VIEW_READ),
    /** Seeing the namespaces (and catalogs) at and below the object: browse, without any table. */
    NAMESPACE_LIST,
    /** Creating namespaces directly below the object (a catalog or a namespace). */
    NAMESPACE_CREATE,
    NAMESPACE_DROP,
    /** Changing a namespace's properties, and a Hive database's functions. */
    NAMESPACE_UPDATE,
    /** Creating (checked on the root), changing and dropping catalogs. */
    CATALOG_MANAGE,
    /**
     * Granting and revoking privileges on the object and below it, and (on the root {@code /}) managing roles, their
     * members and built-in principals. It does not itself let its holder read or change any table.
     */
    MANAGE_GRANTS,
    /** Every privilege: what the configured admins hold on the root. */
    ALL;

    private final Set<Privilege> implied;

    Privilege(Privilege... implied) {
        // Not an EnumSet: the enum's constants do not exist yet while each is constructed.
        Set<Privilege> set = new HashSet<>();
        for (Privilege privilege : implied) {
            set.add(privilege);
            set.addAll(privilege.implied);
        }
        this.implied = Set.copyOf(set);
    }

    /** Whether holding this privilege gives {@code other} (itself, what it implies, or everything for {@link #ALL}). */
    public boolean implies(Privilege other) {
        return this == ALL || this == other || implied.contains(other);
    }

    /** The privilege named {@code name}, or a clear error naming the ones there are. */
    public static Privilege parse(String name) {
        for (Privilege privilege : values()) {
            if (privilege.name().equalsIgnoreCase(name)) {
                return privilege;
            }
        }
        throw new CatalogException(ErrorCode.INVALID_REQUEST, "Unknown privilege")
                .with("privilege", String.valueOf(name))
                .with("known", EnumSet.allOf(Privilege.class).toString());
    }
}
