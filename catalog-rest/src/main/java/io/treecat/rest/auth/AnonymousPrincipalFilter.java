package io.treecat.rest.auth;

import io.treecat.lakehouse.auth.Principal;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * With authentication off ({@code auth.enabled: false}), names every request {@link Principal#ANONYMOUS}: the only
 * place anonymous is bound, so that with authentication on a request that misses {@link BearerAuthFilter} has no
 * principal at all ({@link RequestPrincipals} fails closed) rather than an anonymous one.
 */
@PreMatching
public final class AnonymousPrincipalFilter implements ContainerRequestFilter, ContainerResponseFilter {
    @Override
    public void filter(ContainerRequestContext request) {
        RequestPrincipals.bind(Principal.ANONYMOUS);
    }

    /** The response is being written: the request is over, and so is its principal on this thread. */
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        RequestPrincipals.unbind();
    }
}
