package io.treecat.rest.consistency;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.ErrorCategory;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.core.service.CatalogService;
import io.treecat.rest.nativeapi.ApiErrors;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Feature;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Read-your-writes across the nodes of a replicated group, on every HTTP route (Iceberg REST and the
 * native JSON API): a request with {@code X-TreeCat-Min-Vid: N} is served only once this node has
 * published vid N, waiting for it up to a bound (then 503, naming both vids); every answer says in
 * {@code X-TreeCat-Vid} the newest vid the node had published when it answered. A client that commits
 * through one node and reads through another passes the first answer's vid to the second. On a single
 * node every vid a client has seen is published already, so the header costs nothing there.
 */
public final class MinVidFilter implements ContainerRequestFilter, ContainerResponseFilter {
    public static final String MIN_VID = "X-TreeCat-Min-Vid";
    public static final String VID = "X-TreeCat-Vid";

    private final Supplier<CatalogService> catalog;
    private final Duration maxWait;
    private final Supplier<Optional<CommitReplicator>> group;
    private final boolean linearizableIcebergReads;

    /**
     * The filter as a feature to register, after authentication and authorization: an unknown caller
     * cannot make the server wait.
     *
     * @param group this node's replicated group, if it is one
     * @param linearizableIcebergReads in a group, answer the Iceberg REST reads ({@code GET} and {@code HEAD}
     *     under {@code /v1}, but {@code /v1/config}) at a linearizable read point: an Iceberg client, which
     *     sends no {@code X-TreeCat-Min-Vid}, never reads older metadata through one node than it committed
     *     through another behind the same Service
     */
    public static Feature feature(
            Supplier<CatalogService> catalog,
            Duration maxWait,
            Supplier<Optional<CommitReplicator>> group,
            boolean linearizableIcebergReads) {
        MinVidFilter filter = new MinVidFilter(catalog, maxWait, group, linearizableIcebergReads);
        return context -> {
            context.register(filter, Priorities.USER - 200);
            return true;
        };
    }

    private MinVidFilter(
            Supplier<CatalogService> catalog,
            Duration maxWait,
            Supplier<Optional<CommitReplicator>> group,
            boolean linearizableIcebergReads) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.maxWait = requireNonNull(maxWait, "maxWait is null");
        this.group = requireNonNull(group, "group is null");
        this.linearizableIcebergReads = linearizableIcebergReads;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String header = request.getHeaderString(MIN_VID);
        long minVid = -1;
        if (header != null) {
            try {
                minVid = Long.parseLong(header.trim());
            } catch (NumberFormatException e) {
                minVid = -1;
            }
            if (minVid < 0) {
                request.abortWith(ApiErrors.errorResponse(
                        400,
                        "INVALID_REQUEST",
                        "The " + MIN_VID + " header must be a vid (a non-negative integer)",
                        Map.of(
                                "header",
                                MIN_VID,
                                "value",
                                header.length() > 32 ? header.substring(0, 32) + "…" : header)));
                return;
            }
        }
        Optional<CommitReplicator> replicated =
                linearizableIcebergReads && isIcebergRead(request) ? group.get() : Optional.empty();
        if (replicated.isPresent()) {
            try {
                minVid = Math.max(
                        minVid, replicated.get().linearizableVid().get(maxWait.toMillis(), TimeUnit.MILLISECONDS));
            } catch (TimeoutException | ExecutionException e) {
                request.abortWith(ApiErrors.errorResponse(
                        ApiErrors.status(ErrorCategory.UNAVAILABLE),
                        "NO_LEADER",
                        "No leader confirmed the group's newest version for this read within " + maxWait.toMillis()
                                + " ms (an election may be under way); retry",
                        Map.of("vid", catalog.get().lastVid())));
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (minVid < 0) {
            return;
        }
        CompletableFuture<Void> reached = catalog.get().tree().awaitPublished(minVid);
        try {
            reached.get(maxWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            reached.cancel(false); // nothing left waiting for a vid that may never come
            long published = catalog.get().lastVid();
            request.abortWith(ApiErrors.errorResponse(
                    ApiErrors.status(ErrorCategory.UNAVAILABLE),
                    "VID_NOT_REACHED",
                    "This node has published vid " + published + ", not yet the vid " + minVid + " the request "
                            + "asks for (" + MIN_VID + ") after waiting " + maxWait.toMillis() + " ms; retry, or "
                            + "read through the node that wrote it",
                    Map.of("minVid", minVid, "vid", published)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private static boolean isIcebergRead(ContainerRequestContext request) {
        String method = request.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return false;
        }
        String path = request.getUriInfo().getPath();
        path = path.startsWith("/") ? path.substring(1) : path;
        return path.startsWith("v1/") && !path.equals("v1/config");
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        try {
            response.getHeaders().putSingle(VID, Long.toString(catalog.get().lastVid()));
        } catch (RuntimeException closed) {
            // The catalog is not open (stopping): no vid to tell.
        }
    }
}
