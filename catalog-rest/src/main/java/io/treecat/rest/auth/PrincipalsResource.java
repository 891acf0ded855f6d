package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.auth.BuiltInPrincipals;
import io.treecat.rest.nativeapi.ApiException;
import io.treecat.rest.nativeapi.NativeApi;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The native API's routes for built-in principals, under {@code /treecat/v1/principals}:
 * <ul>
 *   <li>{@code POST} {@code {"name": "etl"}}: creates one; 201 with its client id and secret, the only time the
 *       secret is shown ({@code credential} is the {@code <client id>:<secret>} clients take);</li>
 *   <li>{@code GET}: lists them, names, client ids and times (never a hash);</li>
 *   <li>{@code POST /{name}/rotate}: a new secret, shown once, the old one refused from then on;</li>
 *   <li>{@code DELETE /{name}}: 204; its secret is refused from then on, its tokens expire.</li>
 * </ul>
 * With authentication on, every route needs a token like the rest of the API (which principal may manage principals
 * comes with grants, the next slice of issue 18). Answers with a secret are never cached.
 */
@Path(NativeApi.ROOT + "/principals")
@Produces(MediaType.APPLICATION_JSON)
public final class PrincipalsResource {
    private final BuiltInPrincipals principals;

    public PrincipalsResource(BuiltInPrincipals principals) {
        this.principals = requireNonNull(principals, "principals is null");
    }

    public record CreateRequest(String name) {}

    /** A principal as the API shows it. */
    public record PrincipalView(
            String name,
            @JsonProperty("client_id") String clientId,
            @JsonProperty("created") String created,
            @JsonProperty("secret_set") String secretSet) {
        static PrincipalView of(BuiltInPrincipals.Info info) {
            return new PrincipalView(
                    info.name(),
                    info.clientId(),
                    info.created().toString(),
                    info.secretSet().toString());
        }
    }

    /** A principal with its new secret: shown once. */
    public record WithSecret(
            String name,
            @JsonProperty("client_id") String clientId,
            @JsonProperty("created") String created,
            @JsonProperty("secret_set") String secretSet,
            String secret,
            String credential) {
        static WithSecret of(BuiltInPrincipals.WithSecret made) {
            PrincipalView view = PrincipalView.of(made.principal());
            return new WithSecret(
                    view.name(),
                    view.clientId(),
                    view.created(),
                    view.secretSet(),
                    made.secret(),
                    view.clientId() + ":" + made.secret());
        }

        @Override
        public String toString() {
            return "WithSecret[name=" + name + ", clientId=" + clientId + ", secret=<hidden>]";
        }
    }

    public record Listed(List<PrincipalView> principals) {}

    @POST
    public Response create(CreateRequest request) {
        if (request == null || request.name() == null) {
            throw ApiException.invalidRequest("Missing required field").with("field", "name");
        }
        WithSecret created = WithSecret.of(principals.create(RequestPrincipals.current(), request.name()));
        return Response.status(Response.Status.CREATED)
                .entity(created)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    @GET
    public Listed list() {
        return new Listed(principals.list(RequestPrincipals.current()).stream()
                .map(PrincipalView::of)
                .toList());
    }

    @POST
    @Path("{name}/rotate")
    public Response rotate(@PathParam("name") String name) {
        WithSecret rotated = WithSecret.of(principals.rotate(RequestPrincipals.current(), name));
        return Response.ok(rotated)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    @DELETE
    @Path("{name}")
    public Response delete(@PathParam("name") String name) {
        principals.delete(RequestPrincipals.current(), name);
        return Response.noContent().build();
    }
}
