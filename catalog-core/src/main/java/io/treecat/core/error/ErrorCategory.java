package io.treecat.core.error;

/** What kind of failure an error is; each adapter maps categories to its wire format in one table. */
public enum ErrorCategory {
    NOT_FOUND,
    ALREADY_EXISTS,
    /** A commit was aborted by a conflict or a failed precondition; retrying may succeed. */
    CONFLICT,
    /** The request itself is wrong: a bad query, path, value or argument. */
    INVALID_ARGUMENT,
    /** The operation may or may not have taken effect. */
    UNKNOWN_OUTCOME,
    INTERNAL,
    /** A limit on a shared resource (e.g. concurrent change-feed subscribers) is reached; retrying later may succeed. */
    RESOURCE_EXHAUSTED,
    /**
     * A service the operation depends on (an object store holding the catalog's files) failed or could not be
     * reached; nothing was committed, and retrying later may succeed.
     */
    UNAVAILABLE,
    /**
     * The caller is known but holds no privilege for the operation on the object (docs/security.md,
     * "Authorization"); nothing was read or written.
     */
    PERMISSION_DENIED
}
