package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.treecat.hms.TreeCatHmsServer;
import io.treecat.rest.auth.ChecksItsOwnAccess;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hive's HTTP transport for the metastore ({@code metastore.client.thrift.transport.mode=http}), served on the
 * application port at {@code /metastore}, the path Hive's client posts to by default ({@code
 * metastore.server.thrift.http.path}): each POST body is one Thrift binary call, the answer the response body, as
 * Hive's own {@code TServlet} serves it.
 *
 * <p>On this port, so it gets the port's TLS, body limits and, with {@code auth.enabled}, its bearer-token check
 * before routing: the very {@code TokenVerifier} of the REST and gRPC APIs (built-in tokens and OpenID Connect ones),
 * with its 401 and {@code WWW-Authenticate} for a missing or bad token. Hive sends {@code Authorization: Bearer
 * <HMS_JWT>} with {@code metastore.client.auth.mode=JWT}. The call then runs as the token's principal through the same
 * areas as the Thrift port, so its grants decide ({@link ChecksItsOwnAccess}).
 */
@Path("/metastore")
public final class HmsHttpResource implements ChecksItsOwnAccess {
    private static final Logger LOG = LoggerFactory.getLogger(HmsHttpResource.class);
    static final String THRIFT = "application/x-thrift";

    private final Supplier<TreeCatHmsServer> server;

    /** @param server the running HMS server (null until it started) */
    HmsHttpResource(Supplier<TreeCatHmsServer> server) {
        this.server = requireNonNull(server, "server is null");
    }

    /**
     * Hive 4's client posts to {@code /metastore/*}: it makes its URL with {@code MetaStoreUtils.getHttpPath}, which
     * writes the servlet mapping's pattern, asterisk and all. Any path below {@code /metastore} is served alike.
     */
    @POST
    @Path("{below: .+}")
    @Consumes({THRIFT, "*/*"})
    @Produces(THRIFT)
    public Response callBelow(InputStream body) {
        return call(body);
    }

    @POST
    @Consumes({THRIFT, "*/*"})
    @Produces(THRIFT)
    public Response call(InputStream body) {
        TreeCatHmsServer running = server.get();
        if (running == null) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).build();
        }
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        try {
            running.processHttp(RequestPrincipals.current(), body, answer);
        } catch (TException e) {
            // A request Thrift cannot read (garbage, a limit): no call to answer; the client sees a 400.
            LOG.info("Hive HTTP request refused: {}", e.getMessage());
            return Response.status(Response.Status.BAD_REQUEST).build();
        }
        return Response.ok(answer.toByteArray(), THRIFT).build();
    }
}
