package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.iceberg.IcebergNames;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.storage.AccessDelegation;
import io.treecat.lakehouse.storage.CredentialVending;
import io.treecat.lakehouse.storage.SessionPolicies;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.credentials.Credential;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;

/**
 * Access delegation ({@code X-Iceberg-Access-Delegation}) for load and create responses, and the spec's
 * {@code GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials}, where a client refreshes vended
 * credentials ({@code client.refresh-credentials-endpoint}).
 *
 * <p>With {@code vended-credentials}, a table in an S3 catalog gets {@code storage-credentials} (prefix: the table's
 * location; STS credentials scoped to it by a session policy, {@link CredentialVending}) and, in {@code config}, the
 * store's endpoint, region and path style and the refresh settings. The credentials are also in {@code config}, as
 * engines that read only the config (Trino, clients before storage-credentials) expect. A catalog with no role to
 * assume refuses with 400 naming the setting, never answering its own keys or nothing. With {@code remote-signing}
 * (or when both are asked and the catalog cannot vend): the signer settings ({@link IcebergSigningResource}). A
 * catalog not on S3 ignores the header on loads and creates: its files are reached with the client's own access.
 */
@Path(IcebergRest.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class IcebergCredentialsResource {
    /** Who asks: the principal of the request's bearer token, or anonymous with authentication off. */
    private static Principal who() {
        return RequestPrincipals.current();
    }

    /**
     * What the caller may do with the table's files (docs/security.md, "Vended credentials"): read and write with
     * {@code TABLE_WRITE}, read only with {@code TABLE_READ_DATA} (the session policy without Put and Delete), and
     * nothing (empty: no credentials) with less, such as a caller who may only describe the table.
     */
    private Optional<SessionPolicies.Access> access(String catalog, TableIdentifier identifier) {
        ObjectPath table = IcebergNames.tablePath(catalog, identifier);
        if (lake.authorizer().allows(who(), Privilege.TABLE_WRITE, table)) {
            return Optional.of(SessionPolicies.Access.READ_WRITE);
        }
        if (lake.authorizer().allows(who(), Privilege.TABLE_READ_DATA, table)) {
            return Optional.of(SessionPolicies.Access.READ);
        }
        return Optional.empty();
    }

    /**
     * The 403 of a caller who may see the table but lacks {@code privilege} on it, recorded as a denied attempt
     * (docs/security.md, "Denied attempts").
     */
    static CatalogException denied(String action, Privilege privilege, ObjectPath object) {
        DeniedAttempts.record(
                DeniedAttempts.Denial.forbidden(who().name(), action, privilege.name(), object.toString()));
        return new CatalogException(ErrorCode.PERMISSION_DENIED, "Permission denied")
                .with("privilege", privilege.name())
                .with("object", object.toString());
    }

    private final Lakehouse lake;
    private final IcebergTables tables;
    private final IcebergBodies bodies;
    private final IcebergSigningResource signing;
    private final CredentialVending vending;

    IcebergCredentialsResource(
            Lakehouse lake,
            IcebergTables tables,
            IcebergBodies bodies,
            IcebergSigningResource signing,
            CredentialVending vending) {
        this.lake = requireNonNull(lake, "lake is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
        this.signing = requireNonNull(signing, "signing is null");
        this.vending = requireNonNull(vending, "vending is null");
    }

    /** What a load or create response carries for the client's access delegation. */
    record Delegated(Map<String, String> config, List<Credential> credentials) {
        static final Delegated NONE = new Delegated(Map.of(), List.of());

        Delegated {
            config = Map.copyOf(config);
            credentials = List.copyOf(credentials);
        }

        boolean isEmpty() {
            return config.isEmpty() && credentials.isEmpty();
        }
    }

    /** The table's credentials route, relative to the catalog's URI, as {@code client.refresh-credentials-endpoint}. */
    static String endpoint(String prefix, TableIdentifier identifier) {
        return "v1/" + RESTUtil.encodeString(prefix) + "/namespaces/"
                + RESTUtil.encodeNamespace(identifier.namespace()) + "/tables/"
                + RESTUtil.encodeString(identifier.name()) + "/credentials";
    }

    @GET
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/credentials")
    public Response loadCredentials(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table) {
        TableIdentifier identifier = IcebergResource.identifier(namespace, table);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        String metadataLocation = tables.metadataLocation(who(), at.catalog(), at.point(), identifier);
        SessionPolicies.Access access = access(at.catalog(), identifier)
                .orElseThrow(() -> denied(
                        "LOAD_CREDENTIALS",
                        Privilege.TABLE_READ_DATA,
                        IcebergNames.tablePath(at.catalog(), identifier)));
        Warehouse warehouse = lake.warehouses().forCatalog(at.catalog());
        CredentialVending.Vended vended = vending.vend(
                warehouse, identifier.toString(), signing.location(at.catalog(), metadataLocation), access);
        String json = bodies.json(ImmutableLoadCredentialsResponse.builder()
                .addCredentials(credential(vended))
                .build());
        // The body holds a secret key: no cache (browsers, proxies) may keep it.
        return Response.ok(json, MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    /**
     * What a load or create response of the table {@code identifier} carries for the delegation {@code header} asks
     * for. Called before a create commits, so a refusal or an STS failure commits nothing.
     *
     * @param baseUri the server's base URI as the client reached it, ending in {@code /}
     * @param location the table's location, read only when credentials are vended
     * @throws BadRequestException for a header that names no mechanism of the spec
     */
    Delegated delegated(
            String header, String baseUri, String prefix, TableIdentifier identifier, Supplier<String> location) {
        if (header == null) {
            return Delegated.NONE;
        }
        try {
            AccessDelegation.check(header);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("%s", e.getMessage());
        }
        Warehouse warehouse =
                lake.warehouses().forCatalog(CatalogPrefix.parse(prefix).catalog());
        boolean vend = AccessDelegation.asks(header, AccessDelegation.VENDED_CREDENTIALS);
        boolean sign = AccessDelegation.asks(header, AccessDelegation.REMOTE_SIGNING);
        Optional<SessionPolicies.Access> access =
                access(CatalogPrefix.parse(prefix).catalog(), identifier);
        if (vend && access.isEmpty()) {
            // May describe the table, not read it: no credentials, and no signer either.
            return Delegated.NONE;
        }
        if (vend && AccessDelegation.onS3(warehouse) && (!sign || CredentialVending.canVend(warehouse))) {
            CredentialVending.Vended vended =
                    vending.vend(warehouse, identifier.toString(), location.get(), access.get());
            Map<String, String> config = new java.util.LinkedHashMap<>(
                    AccessDelegation.vendedConfig(warehouse, endpoint(prefix, identifier)));
            config.putAll(vended.config());
            return new Delegated(config, List.of(credential(vended)));
        }
        if (sign) {
            return new Delegated(signing.delegatedConfig(header, baseUri, prefix, identifier), List.of());
        }
        return Delegated.NONE;
    }

    private static Credential credential(CredentialVending.Vended vended) {
        return ImmutableCredential.builder()
                .prefix(vended.prefix())
                .config(vended.config())
                .build();
    }
}
