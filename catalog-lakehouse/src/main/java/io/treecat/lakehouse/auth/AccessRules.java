package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import java.util.EnumMap;
import java.util.Map;

/**
 * What each {@link Action} needs on its {@link Access#target()}: the one table (docs/security.md, "Every action")
 * that makes every adapter's operations pass the same check.
 */
public final class AccessRules {
    /** How a refusal is answered when the caller may not even see the target: as the lake's "not found" of that kind. */
    public enum Hidden {
        NAMESPACE,
        TABLE,
        VIEW,
        /** Always the 403: the target is the root or a system area, whose existence is no secret. */
        NONE
    }

    /** Who may run an action regardless of grants. */
    public enum Kind {
        /** Decided by the grants: {@code privilege} on the target, or, when it is null, that the caller sees it. */
        GRANTED,
        /** The server's own work, as {@link Principal#SYSTEM}. */
        SERVER,
        /** Bookkeeping around a request that is itself checked as what it does (idempotency records). */
        ANYONE
    }

    /**
     * @param privilege the privilege needed on the target; null: seeing the target is enough
     * @param hidden how to answer a caller who cannot see the target
     * @param filtered whether the action's answer is a list the adapter filters to what the caller may see, so that on
     *     a catalog (or the root) it needs no privilege at all: an unseen catalog lists as empty, as a missing one
     */
    public record Rule(Kind kind, Privilege privilege, Hidden hidden, boolean filtered) {
        public Rule {
            requireNonNull(kind, "kind is null");
            requireNonNull(hidden, "hidden is null");
        }
    }

    private static final Map<Action, Rule> RULES = new EnumMap<>(Action.class);

    static {
        see(Action.LIST_NAMESPACES, Hidden.NAMESPACE, true);
        grant(Action.CREATE_NAMESPACE, Privilege.NAMESPACE_CREATE, Hidden.NAMESPACE);
        see(Action.LOAD_NAMESPACE, Hidden.NAMESPACE, false);
        grant(Action.UPDATE_NAMESPACE, Privilege.NAMESPACE_UPDATE, Hidden.NAMESPACE);
        grant(Action.DROP_NAMESPACE, Privilege.NAMESPACE_DROP, Hidden.NAMESPACE);
        see(Action.LIST_TABLES, Hidden.NAMESPACE, true);
        grant(Action.CREATE_TABLE, Privilege.TABLE_CREATE, Hidden.NAMESPACE);
        grant(Action.LOAD_TABLE, Privilege.TABLE_READ_METADATA, Hidden.TABLE);
        grant(Action.COMMIT_TABLE, Privilege.TABLE_WRITE, Hidden.TABLE);
        grant(Action.RENAME_TABLE, Privilege.TABLE_RENAME, Hidden.TABLE);
        grant(Action.DROP_TABLE, Privilege.TABLE_DROP, Hidden.TABLE);
        grant(Action.PLAN_SCAN, Privilege.TABLE_READ_DATA, Hidden.TABLE);
        see(Action.LIST_VIEWS, Hidden.NAMESPACE, true);
        grant(Action.CREATE_VIEW, Privilege.VIEW_CREATE, Hidden.NAMESPACE);
        grant(Action.LOAD_VIEW, Privilege.VIEW_READ, Hidden.VIEW);
        grant(Action.REPLACE_VIEW, Privilege.VIEW_WRITE, Hidden.VIEW);
        grant(Action.RENAME_VIEW, Privilege.VIEW_RENAME, Hidden.VIEW);
        grant(Action.DROP_VIEW, Privilege.VIEW_DROP, Hidden.VIEW);
        grant(Action.LIST_PARTITIONS, Privilege.TABLE_READ_METADATA, Hidden.TABLE);
        grant(Action.ADD_PARTITIONS, Privilege.TABLE_WRITE, Hidden.TABLE);
        grant(Action.ALTER_PARTITIONS, Privilege.TABLE_WRITE, Hidden.TABLE);
        grant(Action.DROP_PARTITIONS, Privilege.TABLE_WRITE, Hidden.TABLE);
        see(Action.LIST_FUNCTIONS, Hidden.NAMESPACE, false);
        grant(Action.MANAGE_FUNCTIONS, Privilege.NAMESPACE_UPDATE, Hidden.NAMESPACE);
        // Hive transactions belong to the catalog; the writes made in one are checked on their tables.
        see(Action.LIST_TRANSACTIONS, Hidden.NAMESPACE, false);
        see(Action.MANAGE_TRANSACTIONS, Hidden.NAMESPACE, false);
        see(Action.LIST_CATALOGS, Hidden.NONE, true);
        grant(Action.CREATE_CATALOG, Privilege.CATALOG_MANAGE, Hidden.NONE);
        see(Action.LOAD_CATALOG, Hidden.NAMESPACE, false);
        grant(Action.UPDATE_CATALOG, Privilege.CATALOG_MANAGE, Hidden.NAMESPACE);
        grant(Action.DROP_CATALOG, Privilege.CATALOG_MANAGE, Hidden.NAMESPACE);
        // A native read's rows are filtered one by one; a native write changes raw objects, bypassing the lake model's
        // rules, so it needs everything on each object it touches.
        see(Action.NATIVE_READ, Hidden.NONE, true);
        grant(Action.NATIVE_WRITE, Privilege.ALL, Hidden.NONE);
        RULES.put(Action.PURGE_TABLES, new Rule(Kind.SERVER, null, Hidden.NONE, false));
        RULES.put(Action.MANAGE_IDEMPOTENCY_KEYS, new Rule(Kind.ANYONE, null, Hidden.NONE, false));
        grant(Action.MANAGE_GRANTS, Privilege.MANAGE_GRANTS, Hidden.NONE);
        grant(Action.MANAGE_PRINCIPALS, Privilege.MANAGE_GRANTS, Hidden.NONE);
        grant(Action.MANAGE_REPLICATION, Privilege.ALL, Hidden.NONE);
        RULES.put(Action.AUTHENTICATE, new Rule(Kind.SERVER, null, Hidden.NONE, false));
        for (Action action : Action.values()) {
            if (!RULES.containsKey(action)) {
                throw new ExceptionInInitializerError("No access rule for " + action);
            }
        }
    }

    private AccessRules() {}

    private static void grant(Action action, Privilege privilege, Hidden hidden) {
        RULES.put(action, new Rule(Kind.GRANTED, privilege, hidden, false));
    }

    private static void see(Action action, Hidden hidden, boolean filtered) {
        RULES.put(action, new Rule(Kind.GRANTED, null, hidden, filtered));
    }

    /** The rule of {@code action}. */
    public static Rule of(Action action) {
        return RULES.get(action);
    }

    /** Every action's rule, for docs and tests. */
    public static Map<Action, Rule> all() {
        return Map.copyOf(RULES);
    }
}
