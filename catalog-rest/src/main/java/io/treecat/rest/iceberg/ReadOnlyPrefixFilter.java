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
 * a client's metrics report (it changes nothing, and a client posts it after every scan). It runs at
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
    if (prefix.indexOf(CatalogPrefix.AT) < 0 || segments.get(segments.size() - 1).getPath().equals("metrics")) {
      return;
    }
    try {
      if (CatalogPrefix.parse(prefix).readOnly()) {
        request.abortWith(IcebergErrors.response(403, "ForbiddenException",
            "The REST prefix " + prefix + " is read-only (a past version of catalog " + CatalogPrefix.parse(prefix).catalog()
                + "): " + method + " is refused; write through the prefix without '@'").build());
      }
    } catch (RuntimeException e) {
      request.abortWith(IcebergErrors.toIceberg(e));
    }
  }
}
