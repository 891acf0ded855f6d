package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergViews;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ImmutableLoadViewResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.view.ViewMetadata;

/**
 * The view routes of the Iceberg REST spec, beside {@link IcebergResource}'s (Jersey merges the two
 * resources under {@code /v1}). Namespaces in paths as there: levels joined by {@code %1F}.
 */
@Path(IcebergRest.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class IcebergViewResource {
    /** Who asks: the principal of the request's bearer token, or anonymous with authentication off. */
    private static Principal who() {
        return RequestPrincipals.current();
    }

    /** What {@code GET /v1/config} advertises for views: every view route of the spec. */
    static final List<Endpoint> ENDPOINTS = List.of(
            Endpoint.V1_LIST_VIEWS,
            Endpoint.V1_LOAD_VIEW,
            Endpoint.V1_VIEW_EXISTS,
            Endpoint.V1_CREATE_VIEW,
            Endpoint.V1_UPDATE_VIEW,
            Endpoint.V1_DELETE_VIEW,
            Endpoint.V1_RENAME_VIEW,
            Endpoint.V1_REGISTER_VIEW);

    private final IcebergNamespaces namespaces;
    private final IcebergViews views;
    private final IcebergBodies bodies;

    IcebergViewResource(IcebergNamespaces namespaces, IcebergViews views, IcebergBodies bodies) {
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.views = requireNonNull(views, "views is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
    }

    @GET
    @Path("{prefix}/namespaces/{namespace}/views")
    public Response listViews(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @QueryParam("pageToken") String pageToken,
            @QueryParam("pageSize") String pageSize) {
        Namespace ns = IcebergResource.namespace(namespace);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        IcebergNamespaces.Page page = namespaces.list(
                who(), at.catalog(), at.point(), ns, ObjectType.VIEW, pageToken, IcebergResource.pageSize(pageSize));
        ListTablesResponse.Builder response = ListTablesResponse.builder().nextPageToken(page.nextPageToken());
        page.names().forEach(name -> response.add(TableIdentifier.of(ns, name)));
        return bodies.ok(response.build());
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/views")
    public Response createView(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace, String body) {
        CreateViewRequest request = bodies.read(body, CreateViewRequest.class);
        return loaded(views.create(
                who(),
                IcebergResource.catalog(prefix),
                IcebergResource.namespace(namespace),
                IcebergWire.view(request)));
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/register-view")
    public Response registerView(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace, String body) {
        RegisterViewRequest request = bodies.read(body, RegisterViewRequest.class);
        return loaded(views.register(
                who(),
                IcebergResource.catalog(prefix),
                IcebergResource.namespace(namespace),
                request.name(),
                request.metadataLocation()));
    }

    @GET
    @Path("{prefix}/namespaces/{namespace}/views/{view}")
    public Response loadView(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("view") String view) {
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        return loaded(views.load(who(), at.catalog(), at.point(), identifier(namespace, view)));
    }

    @HEAD
    @Path("{prefix}/namespaces/{namespace}/views/{view}")
    public Response viewExists(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("view") String view) {
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        return Response.status(views.exists(who(), at.catalog(), at.point(), identifier(namespace, view)) ? 204 : 404)
                .build();
    }

    /** Replace: an {@code UpdateTableRequest} whose requirements and updates are the view kinds ({@code assert-view-uuid}, {@code add-view-version}, …). */
    @POST
    @Path("{prefix}/namespaces/{namespace}/views/{view}")
    public Response replaceView(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("view") String view,
            String body) {
        UpdateTableRequest request = bodies.read(body, UpdateTableRequest.class);
        TableIdentifier identifier = identifier(namespace, view);
        if (request.identifier() != null && !request.identifier().equals(identifier)) {
            throw new BadRequestException("The body names another view than the path: %s", request.identifier());
        }
        return loaded(views.commit(who(), IcebergResource.catalog(prefix), IcebergWire.change(identifier, request)));
    }

    @DELETE
    @Path("{prefix}/namespaces/{namespace}/views/{view}")
    public Response dropView(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("view") String view) {
        views.drop(who(), IcebergResource.catalog(prefix), identifier(namespace, view));
        return Response.noContent().build();
    }

    @POST
    @Path("{prefix}/views/rename")
    public Response renameView(@PathParam("prefix") String prefix, String body) {
        RenameTableRequest request = bodies.read(body, RenameTableRequest.class);
        views.rename(who(), IcebergResource.catalog(prefix), request.source(), request.destination());
        return Response.noContent().build();
    }

    private Response loaded(ViewMetadata metadata) {
        return bodies.ok(ImmutableLoadViewResponse.builder()
                .metadata(metadata)
                .metadataLocation(metadata.metadataFileLocation())
                .build());
    }

    private static TableIdentifier identifier(String namespace, String view) {
        return IcebergResource.identifier(namespace, view);
    }
}
