package io.treecat.lakehouse.auth;

/**
 * Decides whether an operation may run: the one check every lake operation of every adapter passes,
 * in {@link io.treecat.lakehouse.txn.TransactionRunner} before its transaction starts. A refusal is an
 * exception the adapter maps like any other error; nothing was read or written.
 */
@FunctionalInterface
public interface Authorizer {
    /** Returns if {@code access} is allowed, throws otherwise. */
    void check(Access access);

    /** Allows everything: what TreeCat does until authorization is configured. */
    static Authorizer allowAll() {
        return access -> {};
    }
}
