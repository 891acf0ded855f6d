package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.util.Set;

/**
 * Who asks, and the roles its credential asserted. Until authentication exists every caller is {@link #ANONYMOUS}; the
 * adapters already pass one per call, so authentication only has to fill it in.
 *
 * <p>{@code roles} are the roles the token itself carried (an external OpenID Connect issuer's roles claim, namespaced
 * {@code <issuer name>:<role>}, docs/security.md); built-in principals' tokens carry none. Authorization may add roles
 * it stores itself; this set is only what the credential proved.
 */
public record Principal(String name, Set<String> roles) {
    public static final Principal ANONYMOUS = new Principal("anonymous");
    /** The server itself, for background work another principal's operation asked for (a purge after a drop). */
    public static final Principal SYSTEM = new Principal("treecat-system");

    public Principal {
        requireNonNull(name, "name is null");
        roles = ImmutableSet.copyOf(requireNonNull(roles, "roles is null"));
    }

    /** A principal whose credential asserted no roles. */
    public Principal(String name) {
        this(name, ImmutableSet.of());
    }
}
