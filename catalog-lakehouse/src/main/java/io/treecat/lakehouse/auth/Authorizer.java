package io.treecat.lakehouse.auth;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.model.ObjectType;
import java.util.Optional;

/**
 * Decides whether an operation may run: the one check every lake operation of every adapter passes,
 * in {@link io.treecat.lakehouse.txn.TransactionRunner} before its transaction starts. A refusal is an
 * exception the adapter maps like any other error; nothing was read or written.
 */
@FunctionalInterface
public interface Authorizer {
    /** Returns if {@code access} is allowed, throws otherwise. */
    void check(Access access);

    /**
     * Whether {@code who} may see the object at {@code path}, of {@code type} (empty: an object without a lake type),
     * in a list or a query's result: what adapters filter their answers with (docs/security.md, "Filtering").
     */
    default boolean maySee(Principal who, ObjectPath path, Optional<ObjectType> type) {
        return true;
    }

    /**
     * Whether {@code who} holds {@code privilege} on {@code path}, for what an adapter hands out beyond the operation
     * it checked: storage credentials, read-write only for a writer (docs/security.md, "Vended credentials").
     */
    default boolean allows(Principal who, Privilege privilege, ObjectPath path) {
        return true;
    }

    /** Allows everything: what TreeCat does until authorization is configured. */
    static Authorizer allowAll() {
        return access -> {};
    }
}
