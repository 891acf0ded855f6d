package io.treecat.core.error;

import static io.treecat.core.error.ErrorCategory.ALREADY_EXISTS;
import static io.treecat.core.error.ErrorCategory.CONFLICT;
import static io.treecat.core.error.ErrorCategory.INTERNAL;
import static io.treecat.core.error.ErrorCategory.INVALID_ARGUMENT;
import static io.treecat.core.error.ErrorCategory.NOT_FOUND;
import static io.treecat.core.error.ErrorCategory.RESOURCE_EXHAUSTED;
import static io.treecat.core.error.ErrorCategory.UNAVAILABLE;
import static io.treecat.core.error.ErrorCategory.UNKNOWN_OUTCOME;

/**
 * Every error TreeCat reports, with a stable numeric id and a category. The enum name is the error's
 * name on every wire. Ids are never renumbered; a retired code stays here as a comment.
 */
public enum ErrorCode {
    // Paths and objects
    INVALID_PATH(1, INVALID_ARGUMENT),
    OBJECT_NOT_FOUND(2, NOT_FOUND),
    OBJECT_ALREADY_EXISTS(3, ALREADY_EXISTS),
    PARENT_NOT_FOUND(4, NOT_FOUND),
    INVALID_VALUE(5, INVALID_ARGUMENT),
    VALUE_TOO_LARGE(6, INVALID_ARGUMENT),
    LEAF_IS_IMMUTABLE(7, INVALID_ARGUMENT),
    LEAF_CANNOT_HAVE_CHILDREN(8, INVALID_ARGUMENT),
    INVALID_WRITE_SET(9, INVALID_ARGUMENT),
    MERGE_TYPE_MISMATCH(10, INVALID_ARGUMENT),

    // Versions
    VID_NOT_FOUND(20, NOT_FOUND),
    SNAPSHOT_NOT_FOUND(21, NOT_FOUND),
    SNAPSHOT_ALREADY_EXISTS(22, ALREADY_EXISTS),
    INVALID_SNAPSHOT_NAME(23, INVALID_ARGUMENT),
    INVALID_CLONE(24, INVALID_ARGUMENT),
    /** A read by time before the oldest commit the log records; context names the oldest vid and time. */
    TIME_BEFORE_HISTORY(25, NOT_FOUND),
    /**
     * A read at a vid (or time) below the retention horizon: what it would see may have been collected.
     * Context names the vid asked for, the oldest readable vid ("oldestVid") and its commit time ("oldestTime").
     */
    VERSION_EXPIRED(26, NOT_FOUND),

    // Queries
    QUERY_SYNTAX_ERROR(40, INVALID_ARGUMENT),
    INVALID_CONTINUATION(41, INVALID_ARGUMENT),
    INVALID_QUERY_OPTION(42, INVALID_ARGUMENT),
    /** A malformed request on some wire: a missing or unknown field, a bad enum, an id that cannot be parsed. */
    INVALID_REQUEST(43, INVALID_ARGUMENT),

    // Transactions
    COMMIT_CONFLICT(60, CONFLICT),
    TRANSACTION_NOT_FOUND(61, NOT_FOUND),
    TRANSACTION_READ_ONLY(62, INVALID_ARGUMENT),
    LOCK_TIMEOUT(63, CONFLICT),
    COMMIT_STATE_UNKNOWN(64, UNKNOWN_OUTCOME),
    /** The server ended the transaction (it held back the validation log too long); start a new one. */
    TRANSACTION_ABORTED(65, CONFLICT),
    /**
     * Too many commits wait on one table already; nothing was written, try again later. Context names the table
     * and the limit ("limit", "configKey").
     */
    COMMIT_QUEUE_FULL(66, RESOURCE_EXHAUSTED),

    // Bulk load
    INVALID_LOAD_RECORD(80, INVALID_ARGUMENT),

    // Lake objects (catalog-lakehouse): context names the object ("catalog", "namespace", "table", "view")
    NAMESPACE_NOT_FOUND(120, NOT_FOUND),
    TABLE_NOT_FOUND(121, NOT_FOUND),
    VIEW_NOT_FOUND(122, NOT_FOUND),
    /** The name is taken; context "existing" says by what (namespace, table, view). */
    NAME_ALREADY_EXISTS(123, ALREADY_EXISTS),
    NAMESPACE_NOT_EMPTY(124, CONFLICT),
    /** A compare-and-set of a table's metadata pointer found another pointer; context "actual" and "expected". */
    METADATA_LOCATION_MISMATCH(125, CONFLICT),
    /** The first id of a lake path names an object that is not a catalog. */
    NOT_A_CATALOG(126, INVALID_ARGUMENT),
    /** A new catalog, namespace, table or view name the lake refuses (docs/iceberg-rest.md, "Names and locations"). */
    INVALID_NAME(127, INVALID_ARGUMENT),
    /** A location the lake refuses: a "." or ".." segment, or outside the warehouse where that is not allowed. */
    INVALID_LOCATION(128, INVALID_ARGUMENT),

    // Change feed
    /** Too many change-feed subscribers (and waiting long polls) at once; context names the limit and its config key. */
    SUBSCRIBER_LIMIT_REACHED(140, RESOURCE_EXHAUSTED),

    // Object storage (catalog-lakehouse's storage seam: a catalog's warehouse and its FileIO)
    /**
     * The catalog's object store failed or could not be reached while the server read or wrote a file; nothing was
     * committed. Context names the catalog; the message carries the store's own error, never a credential.
     */
    OBJECT_STORE_UNAVAILABLE(150, UNAVAILABLE),
    /** A location or warehouse whose scheme no FileIO of this server serves; context "scheme" and "field". */
    UNSUPPORTED_LOCATION_SCHEME(151, INVALID_ARGUMENT),
    /** A catalog's storage settings are wrong (a secret given inline, a missing credential reference); context "key". */
    INVALID_STORAGE_SETTINGS(152, INVALID_ARGUMENT),

    // Authorization (catalog-lakehouse's auth: privileges, roles and grants in /.system)
    /**
     * The caller may see the object but lacks the privilege the operation needs; context "privilege" and "object"
     * (the path it is checked on). An object the caller may not even see is answered as not found instead.
     */
    PERMISSION_DENIED(160, ErrorCategory.PERMISSION_DENIED),
    /** A role name that is not valid or a role that does not exist; context "role". */
    ROLE_NOT_FOUND(161, NOT_FOUND),

    // Replication (catalog-replication: a Raft group of nodes)
    /**
     * The group has no leader this node can reach, or this node stopped leading before the commit was
     * agreed; nothing was committed and retrying (on any node) may succeed. Context "leader" when one is known.
     */
    NO_LEADER(170, UNAVAILABLE),
    /** An operation a replicated group does not offer yet; context "operation". */
    NOT_REPLICATED(171, INVALID_ARGUMENT),

    // Storage
    STORAGE_FAILURE(100, INTERNAL),
    STORAGE_CORRUPTION(101, INTERNAL),
    UNSUPPORTED_STORAGE_FORMAT(102, INTERNAL),
    STORE_CLOSED(103, INTERNAL);

    private final int id;
    private final ErrorCategory category;

    ErrorCode(int id, ErrorCategory category) {
        this.id = id;
        this.category = category;
    }

    public int id() {
        return id;
    }

    public ErrorCategory category() {
        return category;
    }
}
