package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.Privilege;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.Set;

/**
 * With grants in force, the native API's own data routes (path queries, reads, write sets, transactions, clones, bulk
 * loads, snapshots, the change feed and the commit log under {@code /treecat/v1}) answer only a principal holding
 * {@link Privilege#ALL} on the root: they read and write raw objects around the lake model, and their answers are not
 * yet filtered row by row (docs/security.md, "The native API"). The management routes (principals, roles, grants,
 * who-can) check their own privilege in the lakehouse. A refusal is 403 {@code PERMISSION_DENIED}; the route's
 * existence is no secret.
 */
public final class NativeAccessFilter implements ContainerRequestFilter {
    private static final String NATIVE = "treecat/v1/";
    /** The native routes that check their own privilege. */
    private static final Set<String> MANAGEMENT = Set.of("principals", "roles", "grants", "who-can");

    private final GrantsAuthorizer authorizer;

    public NativeAccessFilter(GrantsAuthorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        String relative = path.startsWith("/") ? path.substring(1) : path;
        if (!relative.startsWith(NATIVE)) {
            return;
        }
        String route = relative.substring(NATIVE.length());
        int slash = route.indexOf('/');
        if (MANAGEMENT.contains(slash < 0 ? route : route.substring(0, slash))) {
            return;
        }
        if (!authorizer.holds(RequestPrincipals.current(), Privilege.ALL, ObjectPath.ROOT)) {
            throw new CatalogException(ErrorCode.PERMISSION_DENIED, "Permission denied")
                    .with("privilege", Privilege.ALL.name())
                    .with("object", ObjectPath.ROOT.toString());
        }
    }
}
