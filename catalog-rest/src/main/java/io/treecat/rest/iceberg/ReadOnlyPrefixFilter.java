package io.treecat.rest.iceberg;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.PathSegment;
import java.util.List;

/**
 * Refuses every write under a read-only REST prefix ({@code <catalog>@<vid>},
 * {@code <catalog>@snapshot=<name>}) before any route runs: 403 with Iceberg's
 * {@code ForbiddenException}, which the Iceberg client rethrows with the message. One gate for
 * all write routes, so none of them has to know about read points. Only reads pass: GET, HEAD and
 * a client's metrics report (it changes nothing, and a client posts it after every scan) and scan
 * planning ({@code plan}, {@code tasks}), which reads the table at the prefix's version. It runs at
 * the default priority ({@code Priorities.USER}), before the idempotency filter ({@code USER + 100}),
 * so a refused write never takes an idempotency key.
 */
final class ReadOnlyPrefixFilter implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
        String method = request.getMethod();
        if (method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD) || method.equals(HttpMethod.OPTIONS)) {
            return;
        }
        List<PathSegment> segments = request.getUriInfo().getPathSegments(true);
        int first = segments.isEmpty() || !segments.get(0).getPath().isEmpty() ? 0 : 1;
        if (segments.size() < first + 3 || !segments.get(first).getPath().equals("v1")) {
            return;
        }
        String prefix = segments.get(first + 1).getPath();
        if (prefix.indexOf(CatalogPrefix.AT) < 0 || isTableRead(segments.subList(first, segments.size()))) {
            return;
        }
        try {
            if (CatalogPrefix.parse(prefix).readOnly()) {
                request.abortWith(IcebergErrors.response(
                                403,
                                "ForbiddenException",
                                "The REST prefix " + prefix + " is read-only (a past version of catalog "
                                        + CatalogPrefix.parse(prefix).catalog() + "): " + method
                                        + " is refused; write through the prefix without '@'")
                        .build());
            }
        } catch (RuntimeException e) {
            request.abortWith(IcebergErrors.toIceberg(e));
        }
    }

    /** {@code v1/{prefix}/namespaces/{ns}/tables/{table}/(metrics|plan|tasks)}: POSTs that only read (not a table named so). */
    private static boolean isTableRead(List<PathSegment> segments) {
        if (segments.size() != 7
                || !segments.get(2).getPath().equals("namespaces")
                || !segments.get(4).getPath().equals("tables")) {
            return false;
        }
        String last = segments.get(6).getPath();
        return last.equals("metrics") || last.equals("plan") || last.equals("tasks");
    }
}
