package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.base.Suppliers;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.iceberg.ScanPlanner;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.rest.auth.RequestPrincipals;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.apache.iceberg.rest.requests.PlanTableScanRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.CreateNamespaceResponse;
import org.apache.iceberg.rest.responses.GetNamespaceResponse;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.UpdateNamespacePropertiesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg REST catalog's routes (the OpenAPI spec's {@code /v1/…}). Bodies are read and written
 * as text with Iceberg's own parsers, so Dropwizard's Jackson provider never sees them. Namespaces
 * in paths are levels joined by {@code %1F} (the default separator, which is also what the config
 * response advertises); routes of the spec not served yet answer 501 and are not advertised.
 */
@Path(IcebergRest.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public final class IcebergResource {
    /** Who asks: the principal of the request's bearer token, or anonymous with authentication off. */
    private static Principal who() {
        return RequestPrincipals.current();
    }

    static final String SEPARATOR = RESTCatalogProperties.NAMESPACE_SEPARATOR_DEFAULT;
    static final String ALL_SNAPSHOTS = "all";
    /**
     * The config override that answers the vid the catalog was read at: the newest for a live prefix, the
     * pinned one for {@code <catalog>@…}. A client takes it to read the whole catalog at one version later
     * ({@code <catalog>@<vid>}); TreeCat's Spark catalog pins a session with it.
     */
    public static final String CONFIG_VID = "treecat.vid";
    /** The table property with which a table's owner asks every client to plan on the server (or locally). */
    public static final String SCAN_PLANNING_PROPERTY = "treecat.scan-planning-mode";
    /** The header a client asks for access to a table's files with (Iceberg's REST spec). */
    static final String ACCESS_DELEGATION = "X-Iceberg-Access-Delegation";

    private static final String REF_SNAPSHOTS = "refs";

    /** What {@code GET /v1/config} advertises: exactly the routes below that are served. */
    static final List<Endpoint> ENDPOINTS = List.of(
            Endpoint.V1_LIST_NAMESPACES,
            Endpoint.V1_LOAD_NAMESPACE,
            Endpoint.V1_NAMESPACE_EXISTS,
            Endpoint.V1_CREATE_NAMESPACE,
            Endpoint.V1_UPDATE_NAMESPACE,
            Endpoint.V1_DELETE_NAMESPACE,
            Endpoint.V1_LIST_TABLES,
            Endpoint.V1_LOAD_TABLE,
            Endpoint.V1_TABLE_EXISTS,
            Endpoint.V1_CREATE_TABLE,
            Endpoint.V1_UPDATE_TABLE,
            Endpoint.V1_DELETE_TABLE,
            Endpoint.V1_RENAME_TABLE,
            Endpoint.V1_REGISTER_TABLE,
            Endpoint.V1_COMMIT_TRANSACTION,
            Endpoint.V1_REPORT_METRICS,
            Endpoint.V1_TABLE_CREDENTIALS,
            Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN,
            Endpoint.V1_FETCH_TABLE_SCAN_PLAN,
            Endpoint.V1_CANCEL_TABLE_SCAN_PLAN,
            Endpoint.V1_FETCH_TABLE_SCAN_PLAN_TASKS);

    private static final Logger LOG = LoggerFactory.getLogger(IcebergResource.class);
    /** Who calls: every caller until authentication exists. */
    private final IcebergNamespaces namespaces;

    private final IcebergTables tables;
    private final IcebergBodies bodies;
    private final LoadTableBodies loadBodies = new LoadTableBodies();
    private final String defaultCatalog;
    private final MetricsReportListener reports;
    private final ScanPlanner planner;
    private final IcebergCredentialsResource delegation;
    private final ResponseGzip gzip;

    IcebergResource(
            IcebergNamespaces namespaces,
            IcebergTables tables,
            ScanPlanner planner,
            IcebergBodies bodies,
            String defaultCatalog,
            MetricsReportListener reports,
            IcebergCredentialsResource delegation,
            ResponseGzip gzip) {
        this.gzip = requireNonNull(gzip, "gzip is null");
        this.delegation = requireNonNull(delegation, "delegation is null");
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.bodies = requireNonNull(bodies, "bodies is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.defaultCatalog = requireNonNull(defaultCatalog, "defaultCatalog is null");
        this.reports = requireNonNull(reports, "reports is null");
    }

    // ---- config

    /**
     * The client's {@code warehouse} names the catalog (its REST prefix); without one, the default catalog.
     * The overrides carry the prefix and the vid it reads at ({@link #CONFIG_VID}).
     */
    @GET
    @Path("config")
    public Response config(@QueryParam("warehouse") String warehouse) {
        boolean named = warehouse != null && !warehouse.isBlank();
        String prefix = named ? warehouse : defaultCatalog;
        // The prefix goes into every later path as it is, and the routes decode their path segment: decoded
        // the same way here, a percent-encoded snapshot name (warehouse@snapshot=my%20snapshot) names one thing.
        String decoded = named ? decodedAsPathSegment(prefix) : prefix;
        if (prefix.contains("/") || decoded.contains("/")) {
            throw new BadRequestException("Invalid warehouse name, it must not contain '/': %s", prefix);
        }
        CatalogPrefix at = CatalogPrefix.parse(decoded);
        long vid = namespaces.checkReadable(who(), at.catalog(), at.point());
        List<Endpoint> endpoints = new ArrayList<>(ENDPOINTS);
        endpoints.addAll(IcebergViewResource.ENDPOINTS);
        endpoints.addAll(IcebergSigningResource.ENDPOINTS);
        return ok(ConfigResponse.builder()
                // A mutable map: the builder probes it for null keys, which Map.of refuses.
                .withOverrides(new HashMap<>(Map.of(
                        "prefix",
                        prefix,
                        RESTCatalogProperties.NAMESPACE_SEPARATOR,
                        SEPARATOR,
                        CONFIG_VID,
                        Long.toString(vid))))
                .withEndpoints(endpoints)
                .withIdempotencyKeyLifetime(IcebergIdempotency.LIFETIME.toString())
                .build());
    }

    private static String decodedAsPathSegment(String prefix) {
        try {
            // URLDecoder decodes a form: keep '+' a '+', as a path does.
            return URLDecoder.decode(prefix.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(
                    "Invalid warehouse name '%s': a '%%' must start an escape of two hex digits (%s)",
                    prefix, e.getMessage());
        }
    }

    // ---- namespaces

    @GET
    @Path("{prefix}/namespaces")
    public Response listNamespaces(
            @PathParam("prefix") String prefix,
            @QueryParam("parent") String parent,
            @QueryParam("pageToken") String pageToken,
            @QueryParam("pageSize") String pageSize) {
        Namespace parentNamespace =
                parent == null || parent.isEmpty() ? Namespace.empty() : Namespace.of(parent.split("\u001f", -1));
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        IcebergNamespaces.Page page = namespaces.list(
                who(), at.catalog(), at.point(), parentNamespace, ObjectType.NAMESPACE, pageToken, pageSize(pageSize));
        ListNamespacesResponse.Builder response =
                ListNamespacesResponse.builder().nextPageToken(page.nextPageToken());
        page.names().forEach(name -> response.add(child(parentNamespace, name)));
        return ok(response.build());
    }

    @POST
    @Path("{prefix}/namespaces")
    public Response createNamespace(@PathParam("prefix") String prefix, String body) {
        CreateNamespaceRequest request = read(body, CreateNamespaceRequest.class);
        Map<String, String> properties =
                namespaces.create(who(), catalog(prefix), request.namespace(), request.properties());
        return ok(CreateNamespaceResponse.builder()
                .withNamespace(request.namespace())
                .setProperties(properties)
                .build());
    }

    @GET
    @Path("{prefix}/namespaces/{namespace}")
    public Response loadNamespace(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace) {
        Namespace ns = namespace(namespace);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        return ok(GetNamespaceResponse.builder()
                .withNamespace(ns)
                .setProperties(namespaces.load(who(), at.catalog(), at.point(), ns))
                .build());
    }

    @HEAD
    @Path("{prefix}/namespaces/{namespace}")
    public Response namespaceExists(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace) {
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        namespaces.load(who(), at.catalog(), at.point(), namespace(namespace));
        return Response.noContent().build();
    }

    @DELETE
    @Path("{prefix}/namespaces/{namespace}")
    public Response dropNamespace(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace) {
        namespaces.drop(who(), catalog(prefix), namespace(namespace));
        return Response.noContent().build();
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/properties")
    public Response updateNamespaceProperties(
            @PathParam("prefix") String prefix, @Encoded @PathParam("namespace") String namespace, String body) {
        UpdateNamespacePropertiesRequest request = read(body, UpdateNamespacePropertiesRequest.class);
        IcebergNamespaces.PropertyChanges result = namespaces.updateProperties(
                who(), catalog(prefix), namespace(namespace), request.removals(), request.updates());
        return ok(UpdateNamespacePropertiesResponse.builder()
                .addUpdated(result.updated())
                .addRemoved(result.removed())
                .addMissing(result.missing())
                .build());
    }

    // ---- tables

    @GET
    @Path("{prefix}/namespaces/{namespace}/tables")
    public Response listTables(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @QueryParam("pageToken") String pageToken,
            @QueryParam("pageSize") String pageSize) {
        Namespace ns = namespace(namespace);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        IcebergNamespaces.Page page =
                namespaces.list(who(), at.catalog(), at.point(), ns, ObjectType.TABLE, pageToken, pageSize(pageSize));
        ListTablesResponse.Builder response = ListTablesResponse.builder().nextPageToken(page.nextPageToken());
        page.names().forEach(name -> response.add(TableIdentifier.of(ns, name)));
        return ok(response.build());
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/tables")
    public Response createTable(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @HeaderParam(ACCESS_DELEGATION) String header,
            @HeaderParam(HttpHeaders.ACCEPT_ENCODING) String acceptEncoding,
            @Context UriInfo uri,
            String body) {
        CreateTableRequest request = read(body, CreateTableRequest.class);
        Namespace ns = namespace(namespace);
        TableIdentifier identifier = TableIdentifier.of(ns, request.name());
        // Delegation is settled before the create commits: a refused or failed vending commits nothing.
        TableMetadata planned = header == null || request.stageCreate()
                ? null
                : tables.newTable(who(), catalog(prefix), ns, IcebergWire.table(request));
        if (request.stageCreate()) {
            TableMetadata staged = tables.newTable(who(), catalog(prefix), ns, IcebergWire.table(request));
            IcebergCredentialsResource.Delegated delegated =
                    delegation.delegated(header, baseUri(uri), prefix, identifier, staged::location);
            return ok(LoadTableResponse.builder()
                    .withTableMetadata(staged)
                    .addAllConfig(delegated.config())
                    .addAllCredentials(delegated.credentials())
                    .build());
        }
        IcebergCredentialsResource.Delegated delegated = planned == null
                ? IcebergCredentialsResource.Delegated.NONE
                : delegation.delegated(header, baseUri(uri), prefix, identifier, planned::location);
        TableMetadata created = tables.create(who(), catalog(prefix), ns, IcebergWire.table(request));
        if (planned != null && !created.location().equals(planned.location())) {
            // The namespace's location changed in between: credentials for where the table really is.
            delegated = delegation.delegated(header, baseUri(uri), prefix, identifier, created::location);
        }
        if (!delegated.isEmpty()) {
            return withConfig(created, ALL_SNAPSHOTS, delegated);
        }
        return withETag(created, ALL_SNAPSHOTS, acceptEncoding);
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/register")
    public Response registerTable(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @HeaderParam(ACCESS_DELEGATION) String header,
            @Context UriInfo uri,
            String body) {
        RegisterTableRequest request = read(body, RegisterTableRequest.class);
        Namespace ns = namespace(namespace);
        // Before the register commits, as for a create; the location is the registered metadata file's own.
        IcebergCredentialsResource.Delegated delegated = header == null
                ? IcebergCredentialsResource.Delegated.NONE
                : delegation.delegated(
                        header,
                        baseUri(uri),
                        prefix,
                        TableIdentifier.of(ns, request.name()),
                        () -> tables.readMetadata(catalog(prefix), request.metadataLocation())
                                .location());
        TableMetadata metadata = tables.register(
                who(), catalog(prefix), ns, request.name(), request.metadataLocation(), request.overwrite());
        return ok(LoadTableResponse.builder()
                .withTableMetadata(metadata)
                .addAllConfig(delegated.config())
                .addAllCredentials(delegated.credentials())
                .build());
    }

    /**
     * Loads a table. {@code snapshots=refs} answers only the snapshots a branch or tag references (the
     * client loads the rest with {@code snapshots=all} when it needs them). The {@code ETag} names the
     * metadata file and the mode, so an {@code If-None-Match} naming it is answered 304 without
     * reading the metadata file.
     */
    @GET
    @Path("{prefix}/namespaces/{namespace}/tables/{table}")
    public Response loadTable(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table,
            @QueryParam("snapshots") String snapshots,
            @HeaderParam(HttpHeaders.IF_NONE_MATCH) String ifNoneMatch,
            @HeaderParam(ACCESS_DELEGATION) String header,
            @HeaderParam(HttpHeaders.ACCEPT_ENCODING) String acceptEncoding,
            @Context UriInfo uri) {
        String mode = snapshots == null || snapshots.isEmpty() ? ALL_SNAPSHOTS : snapshots;
        if (!mode.equals(ALL_SNAPSHOTS) && !mode.equals(REF_SNAPSHOTS)) {
            throw new BadRequestException("Invalid snapshots mode, expected all or refs: %s", snapshots);
        }
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        IcebergTables.LoadTarget target =
                tables.loadTarget(who(), at.catalog(), at.point(), identifier(namespace, table));
        String location = target.metadataLocation();
        // The table's own config, from the properties of this same metadata file: cached with it under one ETag.
        Map<String, String> config = tableConfig(target.properties());
        String etag = IcebergETags.of(location, mode);
        if (IcebergETags.matches(ifNoneMatch, etag) && tables.metadataFileExists(at.catalog(), location)) {
            return Response.notModified().header(HttpHeaders.ETAG, etag).build();
        }
        if (!tables.metadataFileExists(at.catalog(), location)) {
            // Fails as Iceberg's own load would; a cached body must not hide a file that vanished.
            tables.readMetadata(at.catalog(), location);
        }
        if (header != null) {
            // Read only when credentials are vended or config answered: PyIceberg sends the header to file: catalogs
            // too.
            Supplier<TableMetadata> metadata =
                    Suppliers.memoize(() -> tables.readCheckedMetadata(at.catalog(), location));
            IcebergCredentialsResource.Delegated delegated = delegation.delegated(
                    header,
                    baseUri(uri),
                    prefix,
                    identifier(namespace, table),
                    () -> metadata.get().location());
            if (!delegated.isEmpty()) {
                // Not cached: the config names the URI this client reached the server at, or holds credentials.
                return withConfig(metadata.get(), mode, delegated);
            }
        }
        EncodedBody body = loadBodies.get(etag, () -> {
            // Checked just above: the parsed copy is good without asking the store again.
            if (mode.equals(ALL_SNAPSHOTS)) {
                return allSnapshotsBody(location, config, () -> tables.readCheckedMetadata(at.catalog(), location));
            }
            TableMetadata metadata = tables.readCheckedMetadata(at.catalog(), location);
            if (mode.equals(REF_SNAPSHOTS)) {
                metadata = TableMetadata.buildFrom(metadata)
                        .withMetadataLocation(location)
                        .suppressHistoricalSnapshots()
                        .build();
            }
            return EncodedBody.of(loadTableJson(metadata, config));
        });
        return body.ok(gzip, acceptEncoding).header(HttpHeaders.ETAG, etag).build();
    }

    @HEAD
    @Path("{prefix}/namespaces/{namespace}/tables/{table}")
    public Response tableExists(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table) {
        return Response.status(tableExists(prefix, identifier(namespace, table)) ? 204 : 404)
                .build();
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/tables/{table}")
    public Response updateTable(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table,
            @HeaderParam(HttpHeaders.ACCEPT_ENCODING) String acceptEncoding,
            String body) {
        UpdateTableRequest parsed = read(body, UpdateTableRequest.class);
        TableIdentifier identifier = identifier(namespace, table);
        if (parsed.identifier() != null && !parsed.identifier().equals(identifier)) {
            throw new BadRequestException("The body names another table than the path: %s", parsed.identifier());
        }
        requireTableUpdates(parsed);
        TableMetadata metadata = tables.commit(who(), catalog(prefix), List.of(IcebergWire.change(identifier, parsed)))
                .get(0);
        return withETag(metadata, ALL_SNAPSHOTS, acceptEncoding);
    }

    @DELETE
    @Path("{prefix}/namespaces/{namespace}/tables/{table}")
    public Response dropTable(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table,
            @QueryParam("purgeRequested") String purge) {
        tables.drop(who(), catalog(prefix), identifier(namespace, table), Boolean.parseBoolean(purge));
        return Response.noContent().build();
    }

    @POST
    @Path("{prefix}/tables/rename")
    public Response renameTable(@PathParam("prefix") String prefix, String body) {
        RenameTableRequest request = read(body, RenameTableRequest.class);
        tables.rename(who(), catalog(prefix), request.source(), request.destination());
        return Response.noContent().build();
    }

    @POST
    @Path("{prefix}/transactions/commit")
    public Response commitTransaction(@PathParam("prefix") String prefix, String body) {
        CommitTransactionRequest request = read(body, CommitTransactionRequest.class);
        request.tableChanges().forEach(IcebergResource::requireTableUpdates);
        tables.commit(
                who(),
                catalog(prefix),
                request.tableChanges().stream().map(IcebergWire::change).toList());
        return Response.noContent().build();
    }

    /**
     * A client's scan or commit report: parsed with Iceberg's parser (a malformed one is 400), logged
     * at debug and counted, answered 204. The table must exist (404 otherwise), as for any table route.
     */
    @POST
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/metrics")
    public Response reportMetrics(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @Encoded @PathParam("table") String table,
            String body) {
        ReportMetricsRequest request = read(body, ReportMetricsRequest.class);
        TableIdentifier identifier = identifier(namespace, table);
        requireTable(prefix, identifier);
        String type = request.reportType().name().toLowerCase(Locale.ROOT).replace('_', '-');
        LOG.debug("Metrics report for {}.{}: {}", prefix, identifier, request.report());
        reports.reported(identifier, type);
        return Response.noContent().build();
    }

    // ---- server-side scan planning (ScanPlanner): answered from the files indexed in the tree

    @POST
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/plan")
    public Response planTableScan(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @PathParam("table") String table,
            String body) {
        PlanTableScanRequest request = read(body, PlanTableScanRequest.class);
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        return ok(IcebergWire.response(planner.plan(
                who(), at.catalog(), at.point(), identifier(namespace, table), IcebergWire.scan(request))));
    }

    @POST
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/tasks")
    public Response fetchScanTasks(
            @PathParam("prefix") String prefix,
            @Encoded @PathParam("namespace") String namespace,
            @PathParam("table") String table,
            String body) {
        FetchScanTasksRequest request = read(body, FetchScanTasksRequest.class);
        return ok(IcebergWire.response(
                planner.tasks(who(), catalog(prefix), identifier(namespace, table), request.planTask())));
    }

    /** Plans are answered when submitted and never kept: there is no plan to fetch (404 NoSuchPlanIdException). */
    @GET
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/plan/{id}")
    public Response fetchPlanningResult(@PathParam("id") String id) {
        planner.fetch(id);
        return Response.noContent().build();
    }

    /** Nothing runs after a plan is answered, so a cancel has nothing to stop. */
    @DELETE
    @Path("{prefix}/namespaces/{namespace}/tables/{table}/plan/{id}")
    public Response cancelPlanning() {
        return Response.noContent().build();
    }

    // ---- helpers

    private boolean tableExists(String prefix, TableIdentifier identifier) {
        CatalogPrefix at = CatalogPrefix.parse(prefix);
        return tables.exists(who(), at.catalog(), at.point(), identifier);
    }

    private void requireTable(String prefix, TableIdentifier identifier) {
        if (!tableExists(prefix, identifier)) {
            throw new NoSuchTableException("Table does not exist: %s", identifier);
        }
    }

    /** The catalog a prefix names (a write's prefix never has a read point: {@link ReadOnlyPrefixFilter} refuses those). */
    static String catalog(String prefix) {
        return CatalogPrefix.parse(prefix).catalog();
    }

    private Response ok(Object response) {
        return bodies.ok(response);
    }

    /** A table response with the ETag of its metadata file and snapshot mode. */
    private Response withETag(TableMetadata metadata, String mode, String acceptEncoding) {
        String etag = IcebergETags.of(metadata.metadataFileLocation(), mode);
        // Kept for the loads that follow a commit or create (Iceberg's client refreshes right after one), and made
        // once for the members of a chain, which are all answered this metadata file.
        EncodedBody body = loadBodies.get(
                etag,
                () -> mode.equals(ALL_SNAPSHOTS)
                        ? allSnapshotsBody(
                                metadata.metadataFileLocation(), tableConfig(metadata.properties()), () -> metadata)
                        : EncodedBody.of(loadTableJson(metadata, tableConfig(metadata.properties()))));
        return body.ok(gzip, acceptEncoding).header(HttpHeaders.ETAG, etag).build();
    }

    /** A table response with access-delegation config, which is the client's own and so never cached. */
    private Response withConfig(TableMetadata metadata, String mode, IcebergCredentialsResource.Delegated delegated) {
        TableMetadata answered = metadata;
        if (mode.equals(REF_SNAPSHOTS)) {
            answered = TableMetadata.buildFrom(metadata)
                    .withMetadataLocation(metadata.metadataFileLocation())
                    .suppressHistoricalSnapshots()
                    .build();
        }
        String body = bodies.json(LoadTableResponse.builder()
                .withTableMetadata(answered)
                .addAllConfig(tableConfig(metadata.properties()))
                .addAllConfig(delegated.config())
                .addAllCredentials(delegated.credentials())
                .build());
        Response.ResponseBuilder response = Response.ok(body, MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.ETAG, IcebergETags.of(metadata.metadataFileLocation(), mode));
        if (!delegated.credentials().isEmpty()) {
            // The body holds a secret key: no cache (browsers, proxies) may keep it.
            response.header(HttpHeaders.CACHE_CONTROL, "no-store");
        }
        return response.build();
    }

    /** The server's base URI as the client reached it, with a trailing slash (the signer resolves paths against it). */
    private static String baseUri(UriInfo uri) {
        String base = uri.getBaseUri().toString();
        return base.endsWith("/") ? base : base + "/";
    }

    /**
     * The load-table body of the metadata file at {@code location}, every snapshot in it: the file's JSON as this
     * server wrote it, without serializing the metadata again, or else {@code metadata}'s, serialized.
     */
    private EncodedBody allSnapshotsBody(
            String location, Map<String, String> config, Supplier<TableMetadata> metadata) {
        return tables.writtenMetadataJson(location)
                .map(json -> EncodedBody.loadTable(location, json, config))
                .orElseGet(() -> EncodedBody.of(loadTableJson(metadata.get(), config)));
    }

    private String loadTableJson(TableMetadata metadata, Map<String, String> config) {
        return bodies.json(LoadTableResponse.builder()
                .withTableMetadata(metadata)
                .addAllConfig(config)
                .build());
    }

    /**
     * The config a table's load answers for every client: {@code scan-planning-mode} when its owner set
     * {@value #SCAN_PLANNING_PROPERTY} to {@code server} or {@code client} (Iceberg's client takes the server's
     * value over its own). TreeCat does not decide it itself: a server sees no query, and a plan of the whole table
     * costs 5-6 times Iceberg's own from the manifests while a selective one costs a fifth (docs/benchmarks-history.md,
     * "Spark's planning time"); TreeCat's Spark catalog decides per scan instead.
     */
    static Map<String, String> tableConfig(Map<String, String> properties) {
        String mode = properties.get(SCAN_PLANNING_PROPERTY);
        if (mode == null) {
            return Map.of();
        }
        String normalized = mode.strip().toLowerCase(Locale.ROOT);
        return normalized.equals("server") || normalized.equals("client")
                ? Map.of(RESTCatalogProperties.SCAN_PLANNING_MODE, normalized)
                : Map.of();
    }

    /**
     * Rejects view updates sent to a table route as the client's mistake (400) before the commit:
     * Iceberg's {@code MetadataUpdate.applyTo} would throw UnsupportedOperationException, which the
     * error table keeps for server bugs.
     */
    static void requireTableUpdates(UpdateTableRequest request) {
        for (MetadataUpdate update : request.updates()) {
            if (update instanceof MetadataUpdate.AddViewVersion
                    || update instanceof MetadataUpdate.SetCurrentViewVersion) {
                throw new BadRequestException(
                        "Cannot apply update %s to a table", update.getClass().getSimpleName());
            }
        }
    }

    private <T extends RESTRequest> T read(String body, Class<T> type) {
        return bodies.read(body, type);
    }

    /** A namespace from its path segment, still URL-encoded: levels split on {@code %1F} (either case), then decoded. */
    static Namespace namespace(String encoded) {
        String normalized = encoded.replace("%1f", SEPARATOR);
        return RESTUtil.decodeNamespace(normalized, SEPARATOR);
    }

    /**
     * A table (or view) from its path segments, still URL-encoded. Decoded as Iceberg's client encodes
     * them (form encoding: a space is {@code +}, a plus {@code %2B}), which JAX-RS path decoding would
     * leave as {@code +}.
     */
    static TableIdentifier identifier(String namespace, String table) {
        return TableIdentifier.of(namespace(namespace), RESTUtil.decodeString(table));
    }

    private static Namespace child(Namespace parent, String name) {
        String[] levels = Arrays.copyOf(parent.levels(), parent.length() + 1);
        levels[parent.length()] = name;
        return Namespace.of(levels);
    }

    static Integer pageSize(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("Invalid pageSize, not an integer: %s", text);
        }
    }
}
