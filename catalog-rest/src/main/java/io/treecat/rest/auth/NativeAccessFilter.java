package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.rest.iceberg.IcebergCredentialsResource;
import io.treecat.rest.iceberg.IcebergResource;
import io.treecat.rest.iceberg.IcebergSigningResource;
import io.treecat.rest.iceberg.IcebergViewResource;
import io.treecat.rest.nativeapi.ReadResource;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.List;
import java.util.Set;

/**
 * With grants in force, every route that does not check the lake's privileges itself answers only a principal holding
 * {@link Privilege#ALL} on the root: the native API's data routes other than its reads (write sets, transactions,
 * clones, bulk loads, snapshots, the change feed and the commit log under {@code /treecat/v1}) read and write raw
 * objects around the lake model; its reads (path queries, plans, objects) filter their rows instead; the experimental Iceberg events
 * route reads the commit log (docs/security.md, "The native API"). The rule goes by the resource the request matched,
 * not by its path's spelling, and holds for any route added later until it names its own {@code Access}: a new route
 * is closed by default. A refusal is 403 {@code PERMISSION_DENIED}; the route's existence is no secret.
 */
public final class NativeAccessFilter implements ContainerRequestFilter {
    /**
     * The resources whose every method passes the lakehouse's check with the caller's principal (the Iceberg routes,
     * and the management routes, which check their own privilege); all others need {@link Privilege#ALL}.
     */
    private static final Set<Class<?>> SELF_CHECKED = Set.of(
            // The native reads filter their rows with maySee (docs/security.md, "Native path queries").
            ReadResource.class,
            IcebergResource.class,
            IcebergViewResource.class,
            IcebergCredentialsResource.class,
            IcebergSigningResource.class,
            OAuthTokensResource.class,
            PrincipalsResource.class,
            GrantsResource.class);

    /** The action a refusal here is logged as: a native data route. */
    static final String NATIVE_API = "NATIVE_API";

    private final GrantsAuthorizer authorizer;

    public NativeAccessFilter(GrantsAuthorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if ((path.startsWith("/") ? path.substring(1) : path).equals(BearerAuthFilter.TOKEN_PATH)) {
            // The one open route, served to callers without a principal: its OPTIONS and 405s are Jersey's own.
            return;
        }
        List<Object> matched = request.getUriInfo().getMatchedResources();
        if (matched.stream()
                .allMatch(resource ->
                        SELF_CHECKED.contains(resource.getClass()) || resource instanceof ChecksItsOwnAccess)) {
            return;
        }
        if (!authorizer.holds(RequestPrincipals.current(), Privilege.ALL, ObjectPath.ROOT)) {
            DeniedAttempts.record(DeniedAttempts.Denial.forbidden(
                    RequestPrincipals.current().name(), NATIVE_API, Privilege.ALL.name(), ObjectPath.ROOT.toString()));
            throw new CatalogException(ErrorCode.PERMISSION_DENIED, "Permission denied")
                    .with("privilege", Privilege.ALL.name())
                    .with("object", ObjectPath.ROOT.toString());
        }
    }
}
