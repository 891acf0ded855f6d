package io.treecat.rest.auth;

import io.treecat.lakehouse.auth.Principal;

/**
 * The principal of the request the calling thread serves, as the resources name it in their {@code Access}: the one
 * its bearer token proved ({@link BearerAuthFilter}), or {@link Principal#ANONYMOUS}, bound by {@link
 * AnonymousPrincipalFilter} only when authentication is off.
 *
 * <p><b>Fail closed.</b> Nothing bound is an error, never anonymous: with authentication on, a route that somehow ran
 * without passing the filter (an exception mapper, a body streamed after the response filters, a request served on
 * another thread) must not act as anybody. {@link #current()} then throws, which the error mappers answer as a 500
 * (a bug), and no lake operation runs.
 *
 * <p>Why a thread-bound value rather than the request's injected {@code SecurityContext}: the resources are
 * registered as instances, and Jersey injects no {@code @Context} field into them (a {@code SecurityContext} field
 * stays null), while every resource method that names a principal runs on the request's own thread (none is
 * asynchronous). A pre-matching filter binds the value when a request starts, overwriting whatever a previous request
 * on the thread left, and unbinds it when the response is written (response filters run for aborted and mapped
 * responses too); the {@code SecurityContext} is set as well, for anything that reads it.
 */
public final class RequestPrincipals {
    private static final ThreadLocal<Principal> CURRENT = new ThreadLocal<>();

    private RequestPrincipals() {}

    /**
     * The principal of the calling thread's request.
     *
     * @throws IllegalStateException if none is bound: the request did not pass an authentication filter
     */
    public static Principal current() {
        Principal principal = CURRENT.get();
        if (principal == null) {
            throw new IllegalStateException(
                    "No principal is bound to this request: it did not pass the authentication filter (a bug)");
        }
        return principal;
    }

    static void bind(Principal principal) {
        CURRENT.set(principal);
    }

    static void unbind() {
        CURRENT.remove();
    }
}
