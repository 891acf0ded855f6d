package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.iceberg.IcebergViews;
import io.treecat.lakehouse.idempotency.IdempotencyRecords;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.responses.CreateNamespaceResponse;
import org.apache.iceberg.rest.responses.ImmutableLoadViewResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.UpdateNamespacePropertiesResponse;
import org.apache.iceberg.view.ViewMetadata;

/**
 * The answer of a committed request, rebuilt from its key's durable record ({@link IdempotencyRecords}) when the
 * request is repeated after the server forgot the answer itself (a restart). The record keeps only what the body
 * cannot say again ({@link #outcome}): a table's or view's new metadata location, which properties an update
 * removed or found missing. The rest comes from the repeated request, whose body is the first one's (the
 * fingerprints matched), and from the metadata file, which never changes once written.
 *
 * <p>The answers are the routes' own: a table as {@code LoadTableResponse} (with the route's {@code ETag} where the
 * route sends one), a view as {@code LoadViewResponse}, a namespace create or property update as its response, and
 * 204 for drops, renames and multi-table commits.
 */
final class IdempotentReplays {
    static final String METADATA_LOCATION = "metadata_location";
    static final String REMOVED = "removed";
    static final String MISSING = "missing";

    private static final String JSON = MediaType.APPLICATION_JSON;

    private final IcebergTables tables;
    private final IcebergViews views;
    private final IcebergBodies bodies;

    IdempotentReplays(IcebergTables tables, IcebergViews views, IcebergBodies bodies) {
        this.tables = requireNonNull(tables, "tables is null");
        this.views = requireNonNull(views, "views is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
    }

    /**
     * What a key's record keeps of a committed operation, from what the operation's transaction body returned: the
     * metadata location of the one table or view it wrote, or the removed and missing keys of a namespace property
     * update; nothing for the rest (their answer needs nothing the request does not hold).
     */
    static Map<String, List<String>> outcome(Object result) {
        Map<String, List<String>> outcome = new LinkedHashMap<>();
        Object single = result instanceof List<?> list && list.size() == 1 ? list.get(0) : result;
        if (single instanceof TableMetadata metadata && metadata.metadataFileLocation() != null) {
            outcome.put(METADATA_LOCATION, List.of(metadata.metadataFileLocation()));
        } else if (single instanceof ViewMetadata metadata && metadata.metadataFileLocation() != null) {
            outcome.put(METADATA_LOCATION, List.of(metadata.metadataFileLocation()));
        } else if (single instanceof IcebergNamespaces.PropertyChanges changes) {
            outcome.put(REMOVED, changes.removed());
            outcome.put(MISSING, changes.missing());
        }
        return outcome;
    }

    /**
     * The answer to {@code method} on {@code route} (the path segments after {@code /v1/<prefix>}, decoded) in
     * {@code catalog}, whose body is {@code body}; null for a route that commits nothing (it never has a record).
     */
    IdempotencyKeys.Stored answer(
            String method, List<String> route, String catalog, String body, IdempotencyRecords.Found found) {
        if (method.equals("DELETE")) {
            return noContent();
        }
        String first = route.isEmpty() ? "" : route.get(0);
        int size = route.size();
        if ((first.equals("tables") || first.equals("views"))
                && size == 2
                && route.get(1).equals("rename")) {
            return noContent();
        }
        if (first.equals("transactions") && size == 2 && route.get(1).equals("commit")) {
            return noContent();
        }
        if (!first.equals("namespaces")) {
            return null;
        }
        if (size == 1) {
            CreateNamespaceRequest request = bodies.read(body, CreateNamespaceRequest.class);
            return ok(CreateNamespaceResponse.builder()
                    .withNamespace(request.namespace())
                    .setProperties(request.properties())
                    .build());
        }
        String kind = size >= 3 ? route.get(2) : "";
        if (size == 3 && kind.equals("properties")) {
            UpdateNamespacePropertiesRequest request = bodies.read(body, UpdateNamespacePropertiesRequest.class);
            return ok(UpdateNamespacePropertiesResponse.builder()
                    // Mutable copies: the builder asks each list whether it holds null, which List.of refuses.
                    .addUpdated(new ArrayList<>(request.updates().keySet()))
                    .addRemoved(new ArrayList<>(found.outcome().getOrDefault(REMOVED, List.of())))
                    .addMissing(new ArrayList<>(found.outcome().getOrDefault(MISSING, List.of())))
                    .build());
        }
        if ((size == 3 || size == 4) && kind.equals("tables")) {
            return table(catalog, location(found), true);
        }
        if (size == 3 && kind.equals("register")) {
            return table(catalog, bodies.read(body, RegisterTableRequest.class).metadataLocation(), false);
        }
        if ((size == 3 || size == 4) && kind.equals("views")) {
            return view(catalog, location(found));
        }
        if (size == 3 && kind.equals("register-view")) {
            return view(catalog, bodies.read(body, RegisterViewRequest.class).metadataLocation());
        }
        return null;
    }

    private static String location(IdempotencyRecords.Found found) {
        List<String> location = found.outcome().get(METADATA_LOCATION);
        if (location == null || location.size() != 1) {
            throw new IllegalStateException(
                    "An idempotency key record of a table or view commit has no " + METADATA_LOCATION);
        }
        return location.get(0);
    }

    private IdempotencyKeys.Stored table(String catalog, String location, boolean withETag) {
        TableMetadata metadata = tables.readMetadata(catalog, location);
        String body = bodies.json(
                LoadTableResponse.builder().withTableMetadata(metadata).build());
        return new IdempotencyKeys.Stored(
                200, JSON, withETag ? IcebergETags.of(location, IcebergResource.ALL_SNAPSHOTS) : null, body);
    }

    private IdempotencyKeys.Stored view(String catalog, String location) {
        ViewMetadata metadata = views.readMetadata(catalog, location);
        return ok(ImmutableLoadViewResponse.builder()
                .metadata(metadata)
                .metadataLocation(location)
                .build());
    }

    private IdempotencyKeys.Stored ok(Object response) {
        return new IdempotencyKeys.Stored(200, JSON, null, bodies.json(response));
    }

    private static IdempotencyKeys.Stored noContent() {
        return new IdempotencyKeys.Stored(204, null, null, (EncodedBody) null);
    }
}
