package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.QueryVisibility;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Reads outside any transaction: path queries, their plans, and single objects, at a vid, a snapshot or a time. With
 * grants in force, any authenticated principal may read here, and sees only the rows {@link QueryVisibility} keeps
 * (docs/security.md, "Native path queries"): an object it may not see is answered as a missing one.
 */
@Path(NativeApi.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class ReadResource {
    private final Supplier<CatalogService> catalog;
    private final ObjectMapper mapper;
    private final Authorizer authorizer;

    public ReadResource(Supplier<CatalogService> catalog, ObjectMapper mapper, Authorizer authorizer) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.mapper = requireNonNull(mapper, "mapper is null");
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    /**
     * The rows the request's principal may see of a read at {@code vid}; empty when it sees everything. Decided here,
     * in the resource method: the principal is unbound before a streamed answer is written.
     */
    private Optional<Predicate<CatalogObject>> visible(CatalogService service, long vid) {
        return QueryVisibility.of(authorizer, RequestPrincipals.current(), service, vid);
    }

    @GET
    @Path("query")
    public Response query(
            @QueryParam("q") String query,
            @QueryParam("vid") String vid,
            @QueryParam("snapshot") String snapshot,
            @QueryParam("asOfTime") String asOfTime,
            @QueryParam("results") String results,
            @QueryParam("fields") String fields,
            @QueryParam("limit") String limit,
            @QueryParam("pageToken") String pageToken) {
        QueryRequest request =
                Requests.query(query, Requests.readPoint(vid, snapshot, asOfTime), results, fields, limit, pageToken);
        CatalogService service = catalog.get();
        QueryCursor opened = service.openQuery(request);
        QueryCursor cursor;
        try {
            cursor = visible(service, opened.vid()).map(opened::filtered).orElse(opened);
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        return Response.ok(new QueryStream(mapper.getFactory(), cursor, request.limit()))
                .build();
    }

    @GET
    @Path("explain")
    public Explain explain(@QueryParam("q") String query) {
        return new Explain(Requests.required("q", query), catalog.get().explain(query));
    }

    @GET
    @Path("objects")
    public Response object(
            @QueryParam("path") String path,
            @QueryParam("vid") String vid,
            @QueryParam("snapshot") String snapshot,
            @QueryParam("asOfTime") String asOfTime) {
        ObjectPath objectPath = Requests.path("path", path);
        CatalogService service = catalog.get();
        long readVid = service.resolve(Requests.readPoint(vid, snapshot, asOfTime));
        Optional<Predicate<CatalogObject>> visible = visible(service, readVid);
        CatalogObject object = service.get(objectPath, ReadPoint.vid(readVid))
                .filter(found -> visible.map(rows -> rows.test(found)).orElse(true))
                .orElseThrow(() -> notFound(objectPath, readVid));
        return Response.ok(objectOutput(mapper, readVid, object)).build();
    }

    static CatalogException notFound(ObjectPath path, long vid) {
        return new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "Object not found")
                .with("path", path)
                .with("vid", vid);
    }

    /** {@code {"vid", "path", "kind", "version", "value"}}. */
    static StreamingOutput objectOutput(ObjectMapper mapper, long vid, CatalogObject object) {
        return output -> {
            try (var json = Rows.generator(mapper.getFactory(), output)) {
                json.writeStartObject();
                json.writeNumberField("vid", vid);
                Rows.writeFields(json, object);
                json.writeEndObject();
            }
        };
    }

    public record Explain(String query, String plan) {}
}
