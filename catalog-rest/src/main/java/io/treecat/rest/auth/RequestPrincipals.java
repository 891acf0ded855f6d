package io.treecat.rest.auth;

import io.treecat.lakehouse.auth.Principal;

/**
 * The principal of the request the calling thread serves, as the resources name it in their {@code Access}: the one
 * its bearer token proved ({@link BearerAuthFilter}), or {@link Principal#ANONYMOUS} when authentication is off.
 *
 * <p>Why a thread-bound value rather than the request's injected {@code SecurityContext}: the resources are
 * registered as instances, and Jersey injects no {@code @Context} field into them (a {@code SecurityContext} field
 * stays null), while every resource method runs on the request's own thread (none is asynchronous). The filter binds
 * the value when a request starts, overwriting whatever a previous request on the thread left, and unbinds it when
 * the response is written; the {@code SecurityContext} is set as well, for anything that reads it.
 */
public final class RequestPrincipals {
    private static final ThreadLocal<Principal> CURRENT = new ThreadLocal<>();

    private RequestPrincipals() {}

    /** The principal of the calling thread's request; {@link Principal#ANONYMOUS} without one. */
    public static Principal current() {
        Principal principal = CURRENT.get();
        return principal == null ? Principal.ANONYMOUS : principal;
    }

    static void bind(Principal principal) {
        CURRENT.set(principal);
    }

    static void unbind() {
        CURRENT.remove();
    }
}
