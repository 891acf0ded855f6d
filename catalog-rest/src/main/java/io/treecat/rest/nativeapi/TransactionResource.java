package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.version.CommitResult;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * Transaction sessions over HTTP: begin, then queries and reads at the transaction's read vid (a
 * read-write transaction records them for validation), then commit a write set or abort. The
 * session lives in the server until commit, abort or its idle timeout, so a client that disappears
 * holds nothing for long.
 */
@Path(NativeApi.ROOT + "/transactions")
@Produces(MediaType.APPLICATION_JSON)
public final class TransactionResource {
    private final Supplier<CatalogService> catalog;
    private final ObjectMapper mapper;
    private final JsonBodies bodies;

    TransactionResource(Supplier<CatalogService> catalog, ObjectMapper mapper, JsonBodies bodies) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.mapper = requireNonNull(mapper, "mapper is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
    }

    /** {@code {"mode": "read-write"|"read-only", "vid"?, "snapshot"?, "asOfTime"?}}; an empty body begins a read-write transaction at the newest vid. */
    @POST
    public Response begin(InputStream body) {
        BeginRequest request = bodies.read(body, BeginRequest.class);
        if (request == null) {
            request = new BeginRequest(null, null, null, null);
        }
        Transaction txn = catalog.get()
                .begin(
                        Requests.mode(request.mode()),
                        Requests.readPoint(request.vid(), request.snapshot(), request.asOfTime()));
        return Response.status(Response.Status.CREATED)
                .entity(new Began(txn.id().toString(), txn.readVid(), Requests.mode(txn.mode())))
                .build();
    }

    @GET
    @Path("{id}/query")
    public Response query(
            @PathParam("id") String id,
            @QueryParam("q") String query,
            @QueryParam("results") String results,
            @QueryParam("fields") String fields,
            @QueryParam("limit") String limit,
            @QueryParam("pageToken") String pageToken) {
        QueryRequest request = Requests.query(query, ReadPoint.LATEST, results, fields, limit, pageToken);
        QueryCursor cursor = catalog.get().openQuery(TransactionId.valueOf(id), request);
        return Response.ok(new QueryStream(mapper.getFactory(), cursor, request.limit()))
                .build();
    }

    @GET
    @Path("{id}/objects")
    public Response object(@PathParam("id") String id, @QueryParam("path") String path) {
        TransactionId txn = TransactionId.valueOf(id);
        ObjectPath objectPath = Requests.path("path", path);
        CatalogService service = catalog.get();
        long readVid = service.transactions().find(txn).readVid();
        CatalogObject object =
                service.get(txn, objectPath).orElseThrow(() -> ReadResource.notFound(objectPath, readVid));
        return Response.ok(ReadResource.objectOutput(mapper, readVid, object)).build();
    }

    /** Validates and commits the write set; the transaction ends either way (abort ends one without writing). */
    @POST
    @Path("{id}/commit")
    public Committed commit(@PathParam("id") String id, InputStream body) {
        TransactionId txn = TransactionId.valueOf(id);
        CatalogService service = catalog.get();
        CommitResult result = service.commit(txn, Origins.stamped(bodies.writeSet(body, service.lastVid())));
        return Committed.of(result);
    }

    @DELETE
    @Path("{id}")
    public Response abort(@PathParam("id") String id) {
        catalog.get().abort(TransactionId.valueOf(id));
        return Response.noContent().build();
    }

    public record BeginRequest(String mode, Long vid, String snapshot, String asOfTime) {}

    public record Began(String id, long readVid, String mode) {}

    public record Committed(long vid, List<Rows.Change> changes) {
        static Committed of(CommitResult result) {
            return new Committed(result.vid(), Rows.changes(result.changes()));
        }
    }
}
