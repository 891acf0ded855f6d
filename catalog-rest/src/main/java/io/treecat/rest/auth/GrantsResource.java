package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.rest.nativeapi.ApiException;
import io.treecat.rest.nativeapi.NativeApi;
import io.treecat.rest.nativeapi.Requests;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The native API's routes for roles and grants (docs/security.md, "Managing grants"). Each passes {@code
 * MANAGE_GRANTS} itself, in the lakehouse ({@link Grants}): on the root for roles and their members, on the object for
 * grants, revokes, a listing of its grants and who can act on it. The reads take {@code vid}, {@code snapshot} or
 * {@code asOfTime}: grants are versioned like everything else.
 */
@Path(NativeApi.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class GrantsResource {
    private final Grants grants;
    private final Supplier<Set<String>> admins;

    public GrantsResource(Grants grants, Supplier<Set<String>> admins) {
        this.grants = requireNonNull(grants, "grants is null");
        this.admins = requireNonNull(admins, "admins is null");
    }

    public record CreateRole(String name) {}

    public record RoleView(String name, String created, List<String> members) {
        static RoleView of(Grants.RoleInfo role) {
            return new RoleView(
                    role.name(), java.time.Instant.ofEpochMilli(role.created()).toString(), role.members());
        }
    }

    public record Roles(List<RoleView> roles) {}

    /** A grant as requests and answers carry it: exactly one of {@code role} and {@code principal}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GrantView(String role, String principal, String privilege, String on) {
        static GrantView of(Grants.GrantInfo grant) {
            boolean role = "role".equals(grant.grantee().kind());
            return new GrantView(
                    role ? grant.grantee().name() : null,
                    role ? null : grant.grantee().name(),
                    grant.privilege().name(),
                    grant.on().toString());
        }

        Grants.Grantee grantee() {
            if ((role == null) == (principal == null)) {
                throw ApiException.invalidRequest("Give exactly one of role and principal")
                        .with("field", "role");
            }
            return role != null ? Grants.Grantee.role(role) : Grants.Grantee.principal(principal);
        }

        Privilege parsedPrivilege() {
            if (privilege == null) {
                throw ApiException.invalidRequest("Missing required field").with("field", "privilege");
            }
            return Privilege.parse(privilege);
        }

        ObjectPath parsedOn() {
            if (on == null) {
                throw ApiException.invalidRequest("Missing required field").with("field", "on");
            }
            return ObjectPath.parse(on);
        }
    }

    public record GrantList(List<GrantView> grants) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HolderView(String principal, String privilege, String on, String role) {}

    public record WhoCan(String path, List<HolderView> holders) {}

    // ---- roles

    @POST
    @Path("roles")
    public Response createRole(CreateRole request) {
        if (request == null || request.name() == null) {
            throw ApiException.invalidRequest("Missing required field").with("field", "name");
        }
        Grants.RoleInfo role = grants.createRole(RequestPrincipals.current(), request.name());
        return Response.status(Response.Status.CREATED)
                .entity(RoleView.of(role))
                .build();
    }

    @GET
    @Path("roles")
    public Roles listRoles(
            @QueryParam("vid") String vid,
            @QueryParam("snapshot") String snapshot,
            @QueryParam("asOfTime") String asOfTime) {
        ReadPoint point = Requests.readPoint(vid, snapshot, asOfTime);
        return new Roles(grants.listRoles(RequestPrincipals.current(), point).stream()
                .map(RoleView::of)
                .toList());
    }

    @DELETE
    @Path("roles/{name}")
    public Response dropRole(@PathParam("name") String name) {
        grants.dropRole(RequestPrincipals.current(), name);
        return Response.noContent().build();
    }

    @PUT
    @Path("roles/{name}/members/{principal}")
    public Response assign(@PathParam("name") String name, @PathParam("principal") String principal) {
        grants.assign(RequestPrincipals.current(), name, principal);
        return Response.noContent().build();
    }

    @DELETE
    @Path("roles/{name}/members/{principal}")
    public Response unassign(@PathParam("name") String name, @PathParam("principal") String principal) {
        grants.unassign(RequestPrincipals.current(), name, principal);
        return Response.noContent().build();
    }

    // ---- grants

    @POST
    @Path("grants")
    public Response grant(GrantView request) {
        if (request == null) {
            throw ApiException.invalidRequest("Missing request body");
        }
        Grants.GrantInfo made = grants.grant(
                RequestPrincipals.current(), request.grantee(), request.parsedPrivilege(), request.parsedOn());
        return Response.status(Response.Status.CREATED)
                .entity(GrantView.of(made))
                .build();
    }

    @POST
    @Path("grants/revoke")
    public Response revoke(GrantView request) {
        if (request == null) {
            throw ApiException.invalidRequest("Missing request body");
        }
        grants.revoke(RequestPrincipals.current(), request.grantee(), request.parsedPrivilege(), request.parsedOn());
        return Response.noContent().build();
    }

    @GET
    @Path("grants")
    public GrantList list(
            @QueryParam("on") String on,
            @QueryParam("vid") String vid,
            @QueryParam("snapshot") String snapshot,
            @QueryParam("asOfTime") String asOfTime) {
        ObjectPath path = on == null ? ObjectPath.ROOT : ObjectPath.parse(on);
        ReadPoint point = Requests.readPoint(vid, snapshot, asOfTime);
        return new GrantList(grants.list(RequestPrincipals.current(), path, point).stream()
                .map(GrantView::of)
                .toList());
    }

    @GET
    @Path("who-can")
    public WhoCan whoCan(
            @QueryParam("path") String path,
            @QueryParam("vid") String vid,
            @QueryParam("snapshot") String snapshot,
            @QueryParam("asOfTime") String asOfTime) {
        if (path == null) {
            throw ApiException.invalidRequest("Missing required parameter").with("parameter", "path");
        }
        ObjectPath object = ObjectPath.parse(path);
        ReadPoint point = Requests.readPoint(vid, snapshot, asOfTime);
        return new WhoCan(
                object.toString(),
                grants.whoCan(RequestPrincipals.current(), object, point, admins.get()).stream()
                        .map(holder -> new HolderView(
                                holder.principal(),
                                holder.privilege().name(),
                                holder.on().toString(),
                                holder.role()))
                        .toList());
    }
}
