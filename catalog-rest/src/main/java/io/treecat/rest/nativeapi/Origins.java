package io.treecat.rest.nativeapi;

import io.treecat.core.history.CommitOrigin;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.rest.auth.RequestPrincipals;

/**
 * The commit log's origin of a native JSON change: the route's interface and operation, by the request's principal, so
 * that the log is the audit trail (docs/security.md, "Audit"). Anonymous (authentication off) names no principal, as
 * the other ports' anonymous commits do. The principal comes from the request's verified token, never the body.
 */
final class Origins {
    private Origins() {}

    /** The request's principal's name, or null for anonymous. */
    static String principal() {
        Principal who = RequestPrincipals.current();
        return who.equals(Principal.ANONYMOUS) ? null : who.name();
    }

    static CommitOrigin of(CommitOrigin base) {
        String principal = principal();
        return principal == null ? base : base.withPrincipal(principal);
    }

    /** {@code writes} with {@link #of} its origin, or null for none (a transaction's commit without writes). */
    static WriteSet stamped(WriteSet writes) {
        return writes == null ? null : writes.withOrigin(of(writes.origin()));
    }
}
