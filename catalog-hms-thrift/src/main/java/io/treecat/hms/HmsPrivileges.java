package io.treecat.hms;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.model.GrantEntry;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;

/**
 * How Hive's privileges, objects and principals read as TreeCat's grants, both ways (docs/security.md, "Hive's
 * privilege and role calls"). Hive names five privileges on three objects it can share with TreeCat; everything else
 * either way has no counterpart and is refused on writes and left out of answers, never silently changed.
 */
final class HmsPrivileges {
    /** Hive's role every user holds implicitly; TreeCat has no such role. */
    static final String PUBLIC = "public";
    /** Hive's administrators' role: in TreeCat, holding {@link Privilege#ALL} on the root by a grant. */
    static final String ADMIN = "admin";
    /** The {@code authorizer} field of the privileges answered (Hive's metastore stores the one a client sent). */
    static final String AUTHORIZER = "treecat";

    static final String NO_GRANT_OPTION =
            "TreeCat has no grant option: MANAGE_GRANTS on the object lets a principal grant there";
    static final String NO_GROUPS = "TreeCat has no groups: grant to a role and make the group's members its members";
    static final String NO_NESTED_ROLES = "TreeCat roles hold principals, not other roles";
    static final String NO_PUBLIC = "TreeCat has no role every principal holds: grant to a role and assign its members";

    private HmsPrivileges() {}

    /** The TreeCat privilege a Hive privilege name stands for, in any case. */
    static Privilege privilege(String hiveName) throws MetaException {
        if (hiveName == null) {
            throw new MetaException("No privilege given");
        }
        return switch (hiveName.toUpperCase(Locale.ROOT)) {
            case "SELECT" -> Privilege.TABLE_READ_DATA;
            // One write privilege: a commit is not told apart by the kind of change it makes.
            case "INSERT", "UPDATE", "DELETE" -> Privilege.TABLE_WRITE;
            case "ALL" -> Privilege.ALL;
            default ->
                throw new MetaException(
                        "Unknown privilege " + shorten(hiveName) + ": Hive's SELECT, INSERT, UPDATE, DELETE or ALL");
        };
    }

    /**
     * The Hive names a TreeCat privilege is answered as: none for the privileges Hive has no name for, since Hive's and
     * Trino's parsers refuse a name they do not know (and would fail on every grant of the object).
     */
    static List<String> hiveNames(Privilege privilege) {
        return switch (privilege) {
            case TABLE_READ_DATA -> List.of("SELECT");
            case TABLE_WRITE -> List.of("INSERT", "UPDATE", "DELETE");
            case ALL -> List.of("ALL");
            default -> List.of();
        };
    }

    /** Whom a Hive grant goes to: a TreeCat principal ({@code USER}) or role ({@code ROLE}); no groups. */
    static Grants.Grantee grantee(String name, PrincipalType type) throws MetaException {
        if (name == null) {
            throw new MetaException("No principal name given");
        }
        if (type == null) {
            throw new MetaException("No principal type given for " + shorten(name));
        }
        return switch (type) {
            case USER -> Grants.Grantee.principal(name);
            case ROLE -> {
                if (name.equals(PUBLIC) || name.equals(ADMIN)) {
                    throw new MetaException(
                            name.equals(PUBLIC)
                                    ? NO_PUBLIC
                                    : "Grant to the role admin is ALL on /: grant the role admin to the principal"
                                            + " instead");
                }
                yield Grants.Grantee.role(name);
            }
            case GROUP -> throw new MetaException(NO_GROUPS);
        };
    }

    /** The Hive principal type of a TreeCat grantee. */
    static PrincipalType principalType(Grants.Grantee grantee) {
        return grantee.kind().equals(GrantEntry.ROLE) ? PrincipalType.ROLE : PrincipalType.USER;
    }

    /** Whether {@code grantee} is the Hive principal {@code name}/{@code type} (any principal when name is null). */
    static boolean matches(Grants.Grantee grantee, String name, PrincipalType type) {
        return name == null || (grantee.name().equals(name) && principalType(grantee) == type);
    }

    /** The object types a grant can be on: the rest are refused with what to do instead. */
    static void checkGrantable(HiveObjectRef object) throws MetaException {
        if (object == null) {
            throw new MetaException("No object given for the privilege");
        }
        if (object.getObjectType() == null) {
            throw new MetaException("No object type given for the privilege");
        }
        switch (object.getObjectType()) {
            case GLOBAL, DATABASE, TABLE -> {}
            case COLUMN -> throw new MetaException("TreeCat has no column privileges: grant on the table");
            case PARTITION -> throw new MetaException("TreeCat has no partition privileges: grant on the table");
            case DATACONNECTOR ->
                throw new MetaException("TreeCat has no data connectors: grant on a database or a table");
        }
    }

    /** A short, printable form of a client's name for a message (a name can be 100,000 characters). */
    static String shorten(String name) {
        return name.length() <= 128 ? name : name.substring(0, 128) + "…";
    }

    /** How Hive's messages name an object: {@code table [db,t]}, {@code database db}, {@code the server}. */
    static String describe(HiveObjectRef object) {
        return switch (object.getObjectType()) {
            case TABLE -> "table [" + object.getDbName() + "," + object.getObjectName() + "]";
            case DATABASE -> "database " + object.getDbName();
            default -> "the server";
        };
    }

    /** One answered privilege: a Hive name of a stored grant on {@code object}. */
    static HiveObjectPrivilege answer(
            HiveObjectRef object, Grants.Grantee grantee, String hiveName, long createdMillis) {
        // TreeCat does not record who granted: the grantor is the empty user name (Trino needs a type).
        PrivilegeGrantInfo info =
                new PrivilegeGrantInfo(hiveName, (int) (createdMillis / 1000), "", PrincipalType.USER, false);
        return new HiveObjectPrivilege(object.deepCopy(), grantee.name(), principalType(grantee), info, AUTHORIZER);
    }

    /**
     * The Hive object of a TreeCat path, for answers: {@code /} is {@code GLOBAL}, {@code /<catalog>/<db>} a
     * {@code DATABASE}, {@code /<catalog>/<db>/<t>} a {@code TABLE}; null for what Hive has no object for (a
     * catalog, deeper paths).
     */
    static HiveObjectRef object(ObjectPath path, HmsNames names) {
        List<String> ids = path.ids();
        return switch (ids.size()) {
            case 0 -> new HiveObjectRef(HiveObjectType.GLOBAL, null, null, null, null);
            case 2 ->
                withCatalog(
                        new HiveObjectRef(HiveObjectType.DATABASE, ids.get(1), null, null, null),
                        names.hmsName(ids.get(0)));
            case 3 ->
                withCatalog(
                        new HiveObjectRef(HiveObjectType.TABLE, ids.get(1), ids.get(2), null, null),
                        names.hmsName(ids.get(0)));
            default -> null;
        };
    }

    private static HiveObjectRef withCatalog(HiveObjectRef object, String catalog) {
        object.setCatName(catalog);
        return object;
    }
}
