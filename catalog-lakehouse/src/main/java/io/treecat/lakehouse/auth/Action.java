package io.treecat.lakehouse.auth;

/**
 * What a lake operation does, the unit an {@link Authorizer} decides on. Every operation of every
 * adapter names one (with the path it acts on) before its transaction starts.
 */
public enum Action {
    /** Reading a catalog's configuration, or listing its namespaces. */
    LIST_NAMESPACES,
    CREATE_NAMESPACE,
    LOAD_NAMESPACE,
    UPDATE_NAMESPACE,
    DROP_NAMESPACE,
    LIST_TABLES,
    CREATE_TABLE,
    LOAD_TABLE,
    /** A change of a table's metadata: an Iceberg commit, a Hive alter_table, statistics. */
    COMMIT_TABLE,
    RENAME_TABLE,
    DROP_TABLE,
    /** Server-side scan planning: reading a table's file index. */
    PLAN_SCAN,
    LIST_VIEWS,
    CREATE_VIEW,
    LOAD_VIEW,
    REPLACE_VIEW,
    RENAME_VIEW,
    DROP_VIEW,
    LIST_PARTITIONS,
    ADD_PARTITIONS,
    ALTER_PARTITIONS,
    DROP_PARTITIONS,
    LIST_FUNCTIONS,
    MANAGE_FUNCTIONS,
    /** Reading Hive transactions, write ids and compaction requests. */
    LIST_TRANSACTIONS,
    /** Opening, committing, aborting and heartbeating Hive transactions; asking for a compaction. */
    MANAGE_TRANSACTIONS,
    /** Listing the catalogs (the HMS {@code get_catalogs}), on the root. */
    LIST_CATALOGS,
    CREATE_CATALOG,
    LOAD_CATALOG,
    UPDATE_CATALOG,
    DROP_CATALOG,
    /** A path query or read of the native API. */
    NATIVE_READ,
    /** A write set of the native API. */
    NATIVE_WRITE,
    /**
     * The server's own work through the purge queues ({@code io.treecat.lakehouse.maintenance.TablePurger}), as
     * {@link Principal#SYSTEM}: each purge was asked for by a drop that passed its own check.
     */
    PURGE_TABLES,
    /**
     * Looking up and collecting the records of idempotency keys: the server's own bookkeeping around a client's
     * request, on {@code /.idempotency_keys} (the request itself is authorized as what it does).
     */
    MANAGE_IDEMPOTENCY_KEYS,
    /**
     * Granting and revoking privileges on the target, listing its grants and who can act on it; and, on the root,
     * creating and dropping roles and assigning them to principals.
     */
    MANAGE_GRANTS,
    /** Creating, listing, deleting built-in principals and rotating their secrets, on {@code /.system/principals}. */
    MANAGE_PRINCIPALS,
    /**
     * Reading and changing the members of a replicated group (docs/replication.md, "Membership"), on the root:
     * who runs the catalog's servers holds everything.
     */
    MANAGE_REPLICATION,
    /**
     * Checking a client's credential against the built-in principals ({@code /v1/oauth/tokens}), as {@link
     * Principal#SYSTEM}: the caller is not known yet.
     */
    AUTHENTICATE
}
