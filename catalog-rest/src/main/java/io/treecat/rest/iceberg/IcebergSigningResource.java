package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.iceberg.IcebergNames;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.storage.AccessDelegation;
import io.treecat.lakehouse.storage.RequestSigner;
import io.treecat.lakehouse.storage.SigningScope;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.responses.ImmutableRemoteSignResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remote signing: a client with no store keys ({@code s3.remote-signing-enabled}) sends each S3 request here, and the
 * server signs it with the catalog's own credentials if it is for an object under the table's location
 * ({@link SigningScope}); any other is refused with 403 ({@code ForbiddenException}).
 *
 * <p>Two routes take the same body (iceberg-core 1.11's {@code RemoteSignRequest}):
 *
 * <ul>
 *   <li>the spec's per-table {@code POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign}, which the load and
 *       create responses hand out as {@code s3.signer.endpoint}. Iceberg's {@code S3V4RestSignerClient} posts to
 *       whatever endpoint it is given, so clients before 1.11 use this route too;
 *   <li>the older fixed {@code POST /v1/aws/s3/sign} ({@code S3V4RestSignerClient}'s default endpoint when none is
 *       given). Its body names no table: the client sends empty request properties (iceberg-aws 1.11's
 *       {@code requestPropertiesSupplier}), and the path carries none. So the server cannot tell which table's scope
 *       applies, and refuses every request there with 403, saying to use the table's {@code s3.signer.endpoint}.
 * </ul>
 */
@Path(IcebergRest.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class IcebergSigningResource {
    /** Who asks: the principal of the request's bearer token, or anonymous with authentication off. */
    private static Principal who() {
        return RequestPrincipals.current();
    }

    /** The spec's per-table route, advertised in the config response. */
    static final List<Endpoint> ENDPOINTS = List.of(Endpoint.V1_TABLE_REMOTE_SIGN);

    private static final Logger LOG = LoggerFactory.getLogger(IcebergSigningResource.class);
    private static final String S3_PROVIDER = "s3";
    /** Signatures a client may reuse for 30 s (Iceberg's client caches them only when told {@code private}). */
    private static final Set<String> CACHEABLE = Set.of("GET", "HEAD");
    /**
     * The methods that only read a table's files: signed for a holder of {@code TABLE_READ_DATA}; every other method
     * (PUT, POST, DELETE, and any the store adds) needs {@code TABLE_WRITE}, as the read-only vended credentials'
     * session policy allows no write (docs/security.md, "Remote signing").
     */
    private static final Set<String> READS = Set.of("GET", "HEAD");

    private final Lakehouse lake;
    private final IcebergTables tables;
    private final IcebergBodies bodies;
    private final RequestSigner signer;
    /** A table's location by its metadata file, which never changes: a sign request costs one tree read. */
    private final Cache<String, String> locations =
            CacheBuilder.newBuilder().maximumSize(10_000).build();

    IcebergSigningResource(Lakehouse lake, IcebergTables tables, IcebergBodies bodies, RequestSigner signer) {
        this.lake = requireNonNull(lake, "lake is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
        this.signer = requireNonNull(signer, "signer is null");
    }

    /** The table's signing route, relative to the server's base URI, as {@code s3.signer.endpoint} gives it. */
    static String endpoint(String prefix, TableIdentifier identifier) {
        return "v1/" + RESTUtil.encodeString(prefix) + "/namespaces/"
                + RESTUtil.encodeNamespace(identifier.namespace()) + "/tables/"
                + RESTUtil.encodeString(identifier.name()) + "/sign";
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/sign")
    public Response sign(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table,
            String body) {
        RemoteSignRequest request = bodies.read(body, RemoteSignRequest.class);
        if (!S3_PROVIDER.equals(request.provider())) {
            throw new BadRequestException("Unsupported signing provider, expected s3: %s", request.provider());
        }
        TableIdentifier identifier = IcebergResource.identifier(namespace, table);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        // A caller who may not see the table gets its "not found" here, as a load would.
        String metadataLocation = tables.metadataLocation(who(), at.catalog(), at.point(), identifier);
        Privilege needed = READS.contains(request.method().toUpperCase(Locale.ROOT))
                ? Privilege.TABLE_READ_DATA
                : Privilege.TABLE_WRITE;
        ObjectPath tablePath = IcebergNames.tablePath(at.catalog(), identifier);
        if (!lake.authorizer().allows(who(), needed, tablePath)) {
            throw IcebergCredentialsResource.denied(
                    "SIGN_" + (needed == Privilege.TABLE_WRITE ? "WRITE" : "READ"), needed, tablePath);
        }
        Warehouse warehouse = lake.warehouses().forCatalog(at.catalog());
        if (!AccessDelegation.onS3(warehouse)) {
            throw new BadRequestException("Remote signing serves only tables in a catalog on S3: %s", identifier);
        }
        String location = location(at.catalog(), metadataLocation);
        SigningScope scope;
        try {
            scope = SigningScope.of(location).onEndpoint(AccessDelegation.endpoint(warehouse));
        } catch (IllegalArgumentException e) {
            throw new ForbiddenException("Cannot sign for table %s: %s", identifier, e.getMessage());
        }
        String refusal = scope.refusal(request.method(), request.uri(), request.body());
        if (refusal != null) {
            // The key is the client's own; it is not repeated, only the table and why.
            LOG.info("Refused to sign a {} request for table {}: {}", request.method(), identifier, refusal);
            throw new ForbiddenException("Cannot sign this request for table %s: %s", identifier, refusal);
        }
        RequestSigner.Signed signed;
        try {
            signed = signer.sign(
                    warehouse,
                    new RequestSigner.Request(request.method(), request.uri(), request.region(), request.headers()));
        } catch (UnsupportedOperationException e) {
            throw new BadRequestException(
                    "Remote signing is not available for table %s: %s", identifier, e.getMessage());
        }
        String method = request.method().toUpperCase(Locale.ROOT);
        String json = bodies.json(ImmutableRemoteSignResponse.builder()
                .uri(signed.uri())
                .headers(signed.headers())
                .build());
        return Response.ok(json, MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, CACHEABLE.contains(method) ? "private" : "no-store")
                .build();
    }

    /**
     * The S3 signer's default path, which names no table: refused, since a signature here could reach any table's
     * files with the catalog's keys.
     */
    @POST
    @Path("aws/s3/sign")
    public Response signWithoutTable(String body) {
        bodies.read(body, RemoteSignRequest.class);
        throw new ForbiddenException("The S3 signer's default endpoint names no table, and this server signs only for"
                + " one table's location: use the s3.signer.endpoint of the table's load response");
    }

    /** The location of the table whose current metadata file is {@code metadataLocation}, cached by that file. */
    String location(String catalog, String metadataLocation) {
        String cached = locations.getIfPresent(metadataLocation);
        if (cached != null) {
            return cached;
        }
        String location = tables.readMetadata(catalog, metadataLocation).location();
        locations.put(metadataLocation, location);
        return location;
    }

    /**
     * The config a load or create response carries for the access delegation {@code header} asks for: with
     * {@code remote-signing}, the signer settings of a table on S3 ({@link AccessDelegation#remoteSigningConfig});
     * otherwise none.
     *
     * @param baseUri the server's base URI as the client reached it, ending in {@code /}
     */
    Map<String, String> delegatedConfig(String header, String baseUri, String prefix, TableIdentifier identifier) {
        if (!AccessDelegation.asks(header, AccessDelegation.REMOTE_SIGNING)) {
            return Map.of();
        }
        Warehouse warehouse =
                lake.warehouses().forCatalog(CatalogPrefix.parse(prefix).catalog());
        return AccessDelegation.remoteSigningConfig(warehouse, baseUri, endpoint(prefix, identifier));
    }
}
