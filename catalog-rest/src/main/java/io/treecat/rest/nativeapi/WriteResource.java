package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.load.BulkLoader;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.NamedSnapshot;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** Changes outside a transaction: autocommitted write sets, snapshots, clones and bulk loads. */
@Path(NativeApi.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class WriteResource {
    /** Records per commit of a bulk load unless the request says otherwise. */
    public static final int DEFAULT_CHUNK_SIZE = 10_000;

    private final Supplier<CatalogService> catalog;
    private final JsonBodies bodies;

    WriteResource(Supplier<CatalogService> catalog, JsonBodies bodies) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
    }

    /** Commits a write set on its own; durable when the response is sent. */
    @POST
    @Path("commit")
    public TransactionResource.Committed commit(InputStream body) {
        CatalogService service = catalog.get();
        return TransactionResource.Committed.of(
                service.commit(Origins.stamped(bodies.writeSet(body, service.lastVid()))));
    }

    @POST
    @Path("snapshots")
    public Response createSnapshot(InputStream body) {
        SnapshotRequest request = bodies.read(body, SnapshotRequest.class);
        if (request == null || request.name() == null) {
            throw ApiException.invalidRequest("Missing required field").with("field", "name");
        }
        NamedSnapshot snapshot =
                catalog.get().createSnapshot(request.name(), Requests.readPoint(request.vid(), request.snapshot()));
        return Response.status(Response.Status.CREATED).entity(snapshot).build();
    }

    @GET
    @Path("snapshots")
    public Snapshots listSnapshots() {
        return new Snapshots(catalog.get().listSnapshots());
    }

    @DELETE
    @Path("snapshots/{name}")
    public Response dropSnapshot(@PathParam("name") String name) {
        catalog.get().dropSnapshot(name);
        return Response.noContent().build();
    }

    /** Copies {@code source} as of {@code vid} or {@code snapshot} (default: newest) to {@code target}, sharing leaves. */
    @POST
    @Path("clone")
    public TransactionResource.Committed cloneTree(InputStream body) {
        CloneRequest request = bodies.read(body, CloneRequest.class);
        if (request == null) {
            throw ApiException.invalidRequest("Missing required field").with("field", "source");
        }
        return TransactionResource.Committed.of(catalog.get()
                .clone(
                        Requests.path("source", request.source()),
                        Requests.path("target", request.target()),
                        Requests.readPoint(request.vid(), request.snapshot()),
                        Origins.of(CommitOrigin.NATIVE_CLONE)));
    }

    /**
     * Imports JSON lines as they stream in, {@code chunkSize} records per durable commit. A failure
     * part-way leaves the chunks before it committed; the error's context says how many records
     * that is, so a client can resume after them.
     */
    @POST
    @Path("load")
    @LargeBody
    public Loaded load(@QueryParam("chunkSize") String chunkSize, InputStream body) {
        long chunk = chunkSize == null ? DEFAULT_CHUNK_SIZE : Requests.longParameter("chunkSize", chunkSize);
        if (chunk < 1 || chunk > 1_000_000) {
            throw ApiException.invalidRequest("chunkSize must be between 1 and 1000000")
                    .with("chunkSize", chunk);
        }
        AtomicLong committed = new AtomicLong();
        BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        try {
            BulkLoader.LoadResult result = catalog.get()
                    .bulkLoad(
                            reader,
                            (int) chunk,
                            bodies.limits(),
                            Origins.principal(),
                            (records, vid) -> committed.set(records));
            return new Loaded(
                    result.records(),
                    result.commits(),
                    result.firstVid(),
                    result.lastVid(),
                    result.nanos() / 1e9,
                    result.recordsPerSecond());
        } catch (CatalogException e) {
            throw e.with("committedRecords", committed.get());
        } catch (ApiException e) {
            throw e.with("committedRecords", committed.get());
        }
    }

    public record SnapshotRequest(String name, Long vid, String snapshot) {}

    public record Snapshots(List<NamedSnapshot> snapshots) {}

    public record CloneRequest(String source, String target, Long vid, String snapshot) {}

    public record Loaded(
            long records, long commits, long firstVid, long lastVid, double seconds, double recordsPerSecond) {}
}
