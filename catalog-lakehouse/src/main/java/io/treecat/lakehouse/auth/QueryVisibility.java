package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.model.ObjectType;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What a principal sees of the native API's raw reads (docs/security.md, "Native path queries"): each row of a path
 * query, or a read object, is kept only if {@link Authorizer#maySee} says so for its path and lake type, the rule the
 * Iceberg lists filter with. So a query over {@code /*} by a reader of one table lists that table and the catalog and
 * namespaces on the way to it, and nothing of {@code /.system} or of another table. The JSON and gRPC native APIs both
 * filter through this.
 */
public final class QueryVisibility {
    private QueryVisibility() {}

    /**
     * The rows {@code who} may see of a read at {@code vid}, or empty when it may see everything (a holder of
     * {@code ALL} on the root, an admin, the server, or any caller with authorization off): then nothing is filtered.
     */
    public static Optional<Predicate<CatalogObject>> of(
            Authorizer authorizer, Principal who, CatalogService catalog, long vid) {
        requireNonNull(authorizer, "authorizer is null");
        requireNonNull(who, "who is null");
        requireNonNull(catalog, "catalog is null");
        if (authorizer.allows(who, Privilege.ALL, ObjectPath.ROOT)) {
            return Optional.empty();
        }
        return Optional.of(row -> authorizer.maySee(who, row.path(), type(row, catalog, vid)));
    }

    /**
     * The row's lake type. A projection ({@code fields}) or a paths-only answer may have left the type out of the row:
     * it is then read from the object itself at the same vid, so a projection cannot make a table look like an untyped
     * object (or the reverse).
     */
    private static Optional<ObjectType> type(CatalogObject row, CatalogService catalog, long vid) {
        Optional<ObjectType> type = row.value() == null ? Optional.empty() : ObjectType.of(row.value());
        if (type.isPresent()) {
            return type;
        }
        return catalog.get(row.path(), ReadPoint.vid(vid)).flatMap(object -> ObjectType.of(object.value()));
    }
}
