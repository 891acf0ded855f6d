package io.treecat.server;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.DeserializationFeature;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.GzipHandlerFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.util.JarLocation;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.dropwizard.DropwizardExports;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.replication.CommitReplicator;
import io.treecat.grpc.GrpcAuthentication;
import io.treecat.grpc.GrpcServerConfig;
import io.treecat.hms.HmsAuthentication;
import io.treecat.hms.HmsServerConfig;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.BuiltInPrincipals;
import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.InvalidTokenException;
import io.treecat.lakehouse.auth.OidcIssuer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.auth.QueryVisibility;
import io.treecat.lakehouse.auth.SecretCheckCache;
import io.treecat.lakehouse.auth.SecretHasher;
import io.treecat.lakehouse.auth.TokenAuthenticator;
import io.treecat.lakehouse.auth.TokenVerifier;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.lakehouse.storage.CatalogWarehouses;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.replication.ReplicaNode;
import io.treecat.rest.auth.RestAuth;
import io.treecat.rest.consistency.MinVidFilter;
import io.treecat.rest.iceberg.IcebergRest;
import io.treecat.rest.iceberg.ResponseGzip;
import io.treecat.rest.nativeapi.NativeApi;
import io.treecat.server.admin.CatalogHealthCheck;
import io.treecat.server.admin.GarbageCollectionAdmin;
import io.treecat.server.admin.ListenerHealthCheck;
import io.treecat.server.admin.PrometheusServlet;
import io.treecat.server.admin.RegistryCatalogMetrics;
import io.treecat.server.admin.ReplicationGauges;
import io.treecat.server.admin.ReplicationHealthCheck;
import io.treecat.server.auth.AdminPortToken;
import io.treecat.server.auth.TokenSigningKey;
import io.treecat.server.cli.RemoteCommands;
import io.treecat.server.config.AuthConfig;
import io.treecat.server.config.ConsoleConfig;
import io.treecat.server.config.GrpcConfig;
import io.treecat.server.config.HmsConfig;
import io.treecat.server.config.TreeCatConfiguration;
import io.treecat.server.config.TreeCatConfigurationFactory;
import io.treecat.server.config.TreeCatConfigurationSource;
import io.treecat.server.console.ConsoleAssets;
import io.treecat.server.storage.S3RequestSigner;
import io.treecat.server.storage.StsCredentialVendor;
import io.treecat.server.tls.PemTls;
import jakarta.servlet.DispatcherType;
import java.io.OutputStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one TreeCat process (DESIGN §8): the catalog as a managed object, the HTTP/JSON mirror on the
 * application port (8181), health checks, metrics and Prometheus on the admin port (8182).
 *
 * <p>Commands: {@code server [file]}, {@code check-config [file]}, {@code demo}. A command given no
 * file runs on the embedded {@code treecat-default.yml}; configuration keys unknown to TreeCat fail
 * parsing instead of being ignored, so a misspelt key is never silently a default.
 *
 * <p>The other listeners (gRPC on {@code grpc.port}, the Hive Metastore Thrift API on {@code hms.port})
 * join in {@link #run} as a {@code Managed} plus a {@link ListenerHealthCheck} each, all over the same
 * {@link CatalogLifecycle}.
 */
public final class TreeCatApplication extends Application<TreeCatConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCatApplication.class);

    @Override
    public String getName() {
        return "treecat";
    }

    @Override
    protected void addDefaultCommands(Bootstrap<TreeCatConfiguration> bootstrap) {
        // Only Dropwizard's server: check-config (below) replaces its "check".
        bootstrap.addCommand(new ServerCommand<>(this));
    }

    @Override
    public void initialize(Bootstrap<TreeCatConfiguration> bootstrap) {
        bootstrap.getObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        ConfigurationSourceProvider source = TreeCatConfigurationSource.withEnvironment();
        bootstrap.setConfigurationSourceProvider(source);
        bootstrap.setConfigurationFactoryFactory((type, validator, mapper, prefix) ->
                new TreeCatConfigurationFactory(type, validator, mapper, prefix, source));
        bootstrap.addCommand(new CheckConfigCommand());
        bootstrap.addCommand(new DemoCliCommand());
        RemoteCommands.all().forEach(bootstrap::addCommand);
    }

    private volatile GrpcLifecycle grpc;

    /** The port the gRPC listener bound, once the server runs; for tests that bind port 0. */
    int grpcPort() {
        return grpc == null ? -1 : grpc.port();
    }

    private volatile HmsLifecycle hms;

    /** The port the HMS Thrift listener bound, once the server runs; for tests that bind port 0. */
    int hmsPort() {
        return hms == null ? -1 : hms.port();
    }

    @Override
    public void run(TreeCatConfiguration configuration, Environment environment) {
        // Logging is configured by now: the loggers that would print credentials stay at INFO (SecretBearingLoggers).
        List<String> capped = SecretBearingLoggers.cap();
        if (!capped.isEmpty()) {
            LOG.warn("These loggers stay at INFO because below it they print credentials or tokens: {}", capped);
        }
        if (configuration.getServerFactory() instanceof AbstractServerFactory server) {
            // Our error table maps every failure; Dropwizard's defaults would answer some before it, in another format.
            server.setRegisterDefaultExceptionMappers(false);
        }
        // Before anything opens: with auth off every listener serves loopback only, unless explicitly allowed, and a
        // configuration that asks otherwise stops here. Jetty's connectors are built after run() returns.
        ListenerHosts hosts = checkListeners(configuration);
        String grpcHost = hosts.grpc();
        String hmsHost = hosts.hms();
        // What Jetty refuses before Jersey sees it (ambiguous or badly encoded paths, oversized headers) answers JSON
        // too.
        JsonErrorHandler.install(environment);
        // A request body that stops arriving is answered 408 after http.read-timeout.
        RequestReadTimeout.install(
                environment, configuration.http().toBodyLimits().readTimeout());
        // An answer given before its request's body was read still reaches a client that is sending the rest.
        UnreadBodyDrain.install(environment, configuration.http().toBodyLimits().maxRequestBytes());
        // Each request's API and client address, for the denied-attempts log (docs/security.md, "Denied attempts").
        DeniedAttemptsCaller.install(environment);
        // Whatever Jersey's own Jackson provider reads is bounded too (the APIs read their bodies themselves).
        JsonLimits json = configuration.http().toJsonLimits();
        environment.getObjectMapper().getFactory().setStreamReadConstraints(json.constraints());
        MetricRegistry metrics = environment.metrics();
        // One warehouse root (a catalog's files under <root>/<catalog>) and one rule for new names, held by the lake
        // operations and, for every writer, by the validator every commit passes.
        String warehouse =
                LocalFileIO.location(Path.of(configuration.warehouse().location()));
        // Catalogs with their own warehouse (warehouse.catalogs, or a catalog object's storage settings) over their
        // store's Iceberg FileIO; every other catalog under the root (docs/object-storage.md). The catalog objects are
        // read once the catalog is open.
        AtomicReference<CatalogLifecycle> opened = new AtomicReference<>();
        CatalogWarehouses warehouses = new CatalogWarehouses(
                Warehouses.underRoot(
                        warehouse, new LocalFileIO(), configuration.warehouse().externalLocations()),
                configuration.warehouse().externalLocations(),
                configuration.warehouse().catalogs(),
                name -> opened.get() == null
                        ? Optional.empty()
                        : Catalogs.storedStorage(opened.get().get(), name),
                System::getenv);
        // Managed objects stop after Jetty has drained the requests: no request uses a FileIO once it closes.
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() {
                warehouses.close();
            }
        });
        LakeNames names = configuration.lake().names();
        CatalogLifecycle catalog = new CatalogLifecycle(
                configuration.storage().dataDir(),
                Path.of(configuration.warehouse().location()),
                configuration.storage().rocksdb().toOptions(),
                configuration.transactions().toTransactionConfig(),
                new RegistryCatalogMetrics(metrics),
                new LakeObjectValidator(names, warehouses),
                configuration.query().toLimits(),
                configuration.feed().maxSubscribers(),
                configuration.retention().toRetentionConfig(),
                configuration.replication());
        environment.lifecycle().manage(catalog);
        opened.set(catalog);
        // Retention: the collector's gauges, and POST /tasks/gc-pause, gc-resume and gc-run on the admin port.
        GarbageCollectionAdmin.registerGauges(metrics, catalog::collector);
        ReplicationGauges.register(
                metrics,
                catalog::replica,
                configuration.replication().peers().stream()
                        .map(ReplicaNode.Peer::id)
                        .toList());
        GarbageCollectionAdmin.tasks(catalog::collector).forEach(environment.admin()::addTask);
        // The admin port's own token, checked before any admin servlet (metrics, tasks) but the probes' paths.
        configuration
                .auth()
                .adminTokenFile()
                .ifPresent(file -> environment
                        .admin()
                        .addFilter("admin-port-token", AdminPortToken.load(file))
                        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*"));
        // The one lakehouse every adapter's lake operations run on: one transaction runner, the warehouses, one
        // authorizer, the name rule.
        // With auth on, the roles and grants in /.system decide (docs/security.md, "Authorization"); off, everything is
        // allowed, as the loud warning at start says.
        GrantsAuthorizer grantsAuthorizer = configuration.auth().enabled()
                ? new GrantsAuthorizer(catalog, configuration.auth().adminPrincipals())
                : null;
        Lakehouse lake = Lakehouse.of(
                catalog, warehouses, grantsAuthorizer != null ? grantsAuthorizer : Authorizer.allowAll(), names);
        // Dropped tables' files, deleted in the background after their drop committed (purge.*).
        // In a replicated group only the leader purges.
        PurgeLifecycle purges = new PurgeLifecycle(
                lake,
                configuration.purge(),
                metrics,
                () -> catalog.replica().map(ReplicaNode::leading).orElse(true));
        environment.lifecycle().manage(purges);

        // Jersey takes one ExceptionMapper<Throwable>: the Iceberg one answers under /v1 and hands every
        // other path to the native API's error table.
        NativeApi.components(
                        catalog,
                        environment.getObjectMapper(),
                        configuration.http().toBodyLimits(),
                        json,
                        lake.authorizer())
                .forEach(environment.jersey()::register);
        environment
                .jersey()
                .register(NativeApi.changes(catalog::feed, configuration.feed().maxWait()));
        if (configuration.console().enabled()) {
            ConsoleAssets.register(environment, consoleSignIn(configuration));
        }
        // X-TreeCat-Min-Vid on any route: read-your-writes across the nodes of a group (docs/replication.md).
        environment
                .jersey()
                .register(MinVidFilter.feature(
                        catalog,
                        configuration.replication().minVidWait(),
                        () -> catalog.replica().map(CommitReplicator.class::cast),
                        configuration.replication().linearizableIcebergReads()));
        // A group's members, read and changed through any node (treecat replication; docs/replication.md).
        environment
                .jersey()
                .register(new ReplicationResource(catalog::replica, lake.authorizer(), Duration.ofMinutes(10)));
        // Open change-feed followers (streams and waiting polls): what feed.max-subscribers limits.
        metrics.register("treecat.feed.subscribers", (Gauge<Integer>) () -> {
            try {
                return catalog.feed().subscriberCount();
            } catch (RuntimeException e) {
                return 0;
            }
        });
        if (configuration.iceberg().eventsEndpoint()) {
            environment.jersey().register(IcebergRest.events(catalog));
        }
        // A waiting long poll would hold Jetty's graceful stop for its whole wait: answer each (an empty page saying
        // where to resume) as soon as Jetty begins to stop.
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                try {
                    catalog.feed().endPolls();
                } catch (RuntimeException e) {
                    // The catalog is not open: no poll waits.
                }
            }
        });
        // Vended credentials (STS AssumeRole, docs/object-storage.md): its STS clients closed after Jetty has stopped.
        StsCredentialVendor vendor = new StsCredentialVendor();
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() {
                vendor.close();
            }
        });
        // Clients' scan and commit reports (POST …/tables/{table}/metrics) counted per kind:
        // iceberg.metrics-reports.<kind>.
        // Each adapter gets the lakehouse under its own name, so the commit log says which one committed.
        IcebergRest.components(
                        lake.forInterface("rest"),
                        IcebergRest.DEFAULT_CATALOG,
                        NativeApi.errors(),
                        (table, reportType) -> metrics.meter(MetricRegistry.name("iceberg.metrics-reports", reportType))
                                .mark(),
                        new IcebergRest.Options(
                                configuration.iceberg().rebaseAppends(),
                                json,
                                purges.wake(),
                                new S3RequestSigner(),
                                vendor,
                                configuration.iceberg().maxQueuedCommitsPerTable(),
                                responseGzip(configuration)))
                .forEach(environment.jersey()::register);

        TokenVerifier tokens = registerAuthentication(configuration, environment, lake, grantsAuthorizer);
        // The gRPC port checks the same tokens with the same verifier as the REST port (external issuers included);
        // with grants in force its native API, like the JSON mirror's data routes, needs ALL on the root.
        Optional<GrpcAuthentication> grpcAuthentication = configuration.auth().enabled()
                ? Optional.of(new GrpcAuthentication(
                        (token, method) -> {
                            Principal principal;
                            try {
                                principal = tokens.verify(token);
                            } catch (InvalidTokenException e) {
                                throw new GrpcAuthentication.Refused(e.getMessage());
                            }
                            if (grantsAuthorizer == null
                                    || grantsAuthorizer.holds(principal, Privilege.ALL, ObjectPath.ROOT)) {
                                return new GrpcAuthentication.Caller(
                                        principal.name(), GrpcAuthentication.RowFilter.ALL);
                            }
                            // Reads are filtered row by row; everything else of the native API needs ALL on /.
                            if (GrpcAuthentication.ROW_FILTERED_METHODS.contains(method)) {
                                return new GrpcAuthentication.Caller(
                                        principal.name(),
                                        vid -> QueryVisibility.of(grantsAuthorizer, principal, catalog.get(), vid));
                            }
                            throw new GrpcAuthentication.Denied(
                                    principal.name(),
                                    "Permission denied: this call of the native API needs privilege ALL on /"
                                            + " (docs/security.md)");
                        },
                        TreeCatApplication::grpcRefused))
                : Optional.empty();

        // Before the gRPC listener (managed objects start in this order, Jetty after them all): the HMS listener
        // makes the Hive default database at start, so no client of any interface sees a tree without it.
        HmsConfig hmsConfig = configuration.hms();
        HmsServerConfig hmsServer = HmsServerConfig.of(hmsHost, hmsConfig.port(), hmsConfig.defaultCatalog(), warehouse)
                .withLockTimeout(hmsConfig.lockTimeout())
                .withMaxThreads(hmsConfig.maxThreads())
                .withTransport(hmsConfig.toTransportConfig())
                .withFilterLimits(hmsConfig.filterLimits());
        if (hmsConfig.tls().isPresent()) {
            // Read and checked here, so a bad PEM stops the start before any listener binds.
            PemTls pem =
                    PemTls.load("HMS Thrift listener (hms.tls)", hmsConfig.tls().get());
            hmsServer = hmsServer.withSockets(pem.sslContext().getServerSocketFactory());
        }
        HmsLifecycle hms = new HmsLifecycle(
                lake.forInterface("hms").runner(),
                lake.warehouses(),
                hmsServer,
                hmsAuthentication(configuration, lake));
        environment.lifecycle().manage(hms);
        this.hms = hms;
        if (hmsConfig.http().enabled()) {
            // Hive's HTTP transport on this port, behind its TLS, body limits and bearer-token check.
            environment.jersey().register(new HmsHttpResource(hms::server));
        }
        // Retention's passes start once the HMS listener has pinned what its notification log has not counted durably.
        environment.lifecycle().manage(catalog.collection());

        GrpcConfig grpcConfig = configuration.grpc();
        Duration grace = configuration.getServerFactory() instanceof AbstractServerFactory server
                ? server.getShutdownGracePeriod().toJavaDuration()
                : Duration.ofSeconds(30);
        GrpcServerConfig grpcServer = new GrpcServerConfig(
                        grpcHost,
                        grpcConfig.port(),
                        grpcConfig.maxInboundMessageBytes(),
                        grpcConfig.queryBatchSize(),
                        grace)
                // x-treecat-min-vid waits as long as X-TreeCat-Min-Vid does (docs/replication.md).
                .withMinVidWait(configuration.replication().minVidWait());
        if (grpcConfig.tls().isPresent()) {
            // Read and checked here, so a bad PEM stops the start before any listener binds.
            PemTls pem =
                    PemTls.load("gRPC listener (grpc.tls)", grpcConfig.tls().get());
            grpcServer = grpcServer.withCredentials(TlsServerCredentials.newBuilder()
                    .keyManager(pem.keyManagers())
                    .build());
        }
        GrpcLifecycle grpc = new GrpcLifecycle(catalog, catalog::feed, grpcServer, grpcAuthentication);
        environment.lifecycle().manage(grpc);
        this.grpc = grpc;

        JettyListener rest = new JettyListener("application");
        environment.lifecycle().addServerLifecycleListener(rest);
        environment.healthChecks().register("rocksdb", new CatalogHealthCheck(catalog));
        environment
                .healthChecks()
                .register("listener-rest", new ListenerHealthCheck("REST", rest::isServing, rest::port));
        environment
                .healthChecks()
                .register("listener-grpc", new ListenerHealthCheck("gRPC", grpc::isServing, grpc::port));
        environment
                .healthChecks()
                .register("listener-hms", new ListenerHealthCheck("HMS Thrift", hms::isServing, hms::port));
        // Readiness in a group: this node knows a leader and has applied what was agreed (docs/replication.md).
        environment
                .healthChecks()
                .register(
                        "replication",
                        configuration.replication().enabled()
                                ? ReplicationHealthCheck.ofReplica(
                                        catalog::replica, ReplicationHealthCheck.DEFAULT_MAX_APPLY_LAG)
                                : ReplicationHealthCheck.singleNode());

        CollectorRegistry prometheus = new CollectorRegistry();
        prometheus.register(new DropwizardExports(metrics));
        environment
                .admin()
                .addServlet("prometheus", new PrometheusServlet(prometheus))
                .addMapping("/metrics/prometheus");
    }

    /** The hosts the gRPC and HMS listeners bind (Jetty's connectors are set in place). */
    record ListenerHosts(String grpc, String hms) {}

    /**
     * Decides every listener's bind host (docs/security.md, "Listeners and loopback"), setting Jetty's connectors in
     * place, and refuses what must not start: a listener serving other machines with auth off and no explicit
     * permission, unauthenticated HMS Thrift with auth on. {@code check-config} runs it too.
     */
    static ListenerHosts checkListeners(TreeCatConfiguration configuration) {
        ListenerBindings bindings = new ListenerBindings(
                configuration.auth().enabled(),
                configuration.auth().allowRemoteWithoutAuth(),
                configuration.auth().adminTokenFile().isPresent());
        bindings.applyTo(configuration.getServerFactory());
        String grpc = bindings.host("grpc.host", configuration.grpc().host(), true);
        String hms = bindings.host("hms.host", configuration.hms().host(), true);
        checkHmsAuthentication(configuration);
        return new ListenerHosts(grpc, hms);
    }

    /**
     * With {@code auth.enabled} the HMS listener takes SASL PLAIN clients (a built-in principal's client id and secret)
     * and, only with {@code hms.allow-unauthenticated}, clients without SASL as the anonymous principal, which the
     * grants deny everything: said at start, since such clients then get refusals.
     */
    private static void checkHmsAuthentication(TreeCatConfiguration configuration) {
        if (configuration.auth().enabled() && configuration.hms().allowUnauthenticated()) {
            LOG.warn(
                    "hms.allow-unauthenticated: the Hive Metastore Thrift listener (port {}) also serves clients"
                            + " without SASL, as the anonymous principal, which the grants deny everything"
                            + " (docs/security.md, \"Hive Metastore clients\")",
                    configuration.hms().port());
        }
    }

    /**
     * How the HMS listener authenticates (docs/security.md, "Hive Metastore clients"): SASL PLAIN against the built-in
     * principals, each pair that proved one cached as tokens are ({@code auth.token-cache-ttl}), at most half the
     * cores checking bcrypt at once; clients without SASL served (as anonymous) with auth off or when {@code
     * hms.allow-unauthenticated}.
     */
    private static HmsAuthentication hmsAuthentication(TreeCatConfiguration configuration, Lakehouse lake) {
        AuthConfig auth = configuration.auth();
        BuiltInPrincipals principals = new BuiltInPrincipals(
                lake.forInterface("auth").runner(), SecretHasher.DEFAULT, new SecureRandom(), Clock.systemUTC());
        SecretCheckCache secrets = new SecretCheckCache(
                principals,
                auth.tokenCacheTtl(),
                auth.tokenCacheMaxEntries(),
                Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        return new HmsAuthentication(
                !auth.enabled() || configuration.hms().allowUnauthenticated(), secrets::authenticate);
    }

    /**
     * Authentication on the application port (docs/security.md): the token endpoint and the principal routes always,
     * the bearer-token filter on every other route when {@code auth.enabled}. Either way the server says loudly at
     * start what is and is not protected.
     */
    private static TokenVerifier registerAuthentication(
            TreeCatConfiguration configuration,
            Environment environment,
            Lakehouse lake,
            GrantsAuthorizer grantsAuthorizer) {
        AuthConfig auth = configuration.auth();
        if (auth.enabled() && auth.adminPrincipals().isEmpty()) {
            LOG.warn("auth.enabled with no auth.admin-principals: no principal may grant anything, so only what "
                    + "grants already stored allow is allowed (docs/security.md, \"Turning it on\")");
        }
        if (auth.enabled()) {
            LOG.info("auth.enabled: the Iceberg REST API, the native JSON API and the gRPC API need a bearer token,"
                    + " Hive Metastore clients SASL PLAIN with a built-in principal's client id and secret"
                    + " (docs/security.md)");
        } else {
            LOG.warn(
                    "\n{}\nAUTHENTICATION IS OFF (auth.enabled: false): anyone who can reach a TreeCat port can "
                            + "read, change and drop every table, namespace and catalog, through every API. Turn it "
                            + "on before serving anything but this machine (docs/security.md).\n{}",
                    "*".repeat(100),
                    "*".repeat(100));
        }
        SecureRandom random = new SecureRandom();
        byte[] key = TokenSigningKey.load(
                auth.tokenSigningKeyFile(), configuration.storage().dataDir(), random);
        BearerTokens tokens = new BearerTokens(
                key, auth.issuer(), auth.audience(), auth.tokenLifetime(), auth.clockSkew(), Clock.systemUTC(), random);
        Arrays.fill(key, (byte) 0);
        // Its own interface name: the native API's writes to /.system are refused, these are the lakehouse's own.
        BuiltInPrincipals principals = new BuiltInPrincipals(
                lake.forInterface("auth").runner(), SecretHasher.DEFAULT, random, Clock.systemUTC());
        MetricRegistry metrics = environment.metrics();
        TokenAuthenticator verifier = tokenAuthenticator(auth, tokens, metrics);
        Grants grants = new Grants(lake.forInterface("auth").runner(), Clock.systemUTC());
        RestAuth.components(
                        auth.enabled(),
                        principals,
                        tokens,
                        verifier,
                        (grant, issued) -> metrics.meter(MetricRegistry.name(
                                        "treecat.auth.tokens", grant, issued ? "issued" : "refused"))
                                .mark(),
                        grants,
                        grantsAuthorizer)
                .forEach(environment.jersey()::register);
        return verifier;
    }

    /** A call the gRPC port refused, as a denied attempt (docs/security.md, "Denied attempts"). */
    private static void grpcRefused(Status.Code code, String principal, String reason, String method, String client) {
        DeniedAttempts.Denial denial = code == Status.Code.UNAUTHENTICATED || principal == null
                ? DeniedAttempts.Denial.unauthenticated(reason)
                : DeniedAttempts.Denial.forbidden(
                        principal, "NATIVE_API", Privilege.ALL.name(), ObjectPath.ROOT.toString());
        DeniedAttempts.record(denial, new DeniedAttempts.Caller("grpc", client));
    }

    /**
     * The issuer {@code console.oidc} signs users in at: its {@code auth.oidc} entry (the start and {@code
     * check-config} alike).
     *
     * @throws IllegalArgumentException naming {@code console.oidc.issuer} when no {@code auth.oidc} entry has that name,
     *     or when authentication is off (the console would sign in to nothing)
     */
    static Optional<ConsoleAssets.SignIn> consoleSignIn(TreeCatConfiguration configuration) {
        ConsoleConfig.Oidc console = configuration.console().oidc();
        if (console == null) {
            return Optional.empty();
        }
        if (!configuration.auth().enabled()) {
            throw new IllegalArgumentException(
                    "console.oidc needs auth.enabled: with authentication off the console needs no sign-in");
        }
        OidcIssuer issuer = oidcIssuers(configuration.auth()).stream()
                .filter(candidate -> candidate.name().equals(console.issuer()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "console.oidc.issuer: no auth.oidc entry is named " + console.issuer()));
        return Optional.of(new ConsoleAssets.SignIn(issuer, console));
    }

    /**
     * {@code auth.oidc} as the lakehouse layer checks it, each entry and the rules between them (the start and {@code
     * check-config} alike).
     *
     * @throws IllegalArgumentException naming {@code auth.oidc[<i>]} and the field, or the clash between entries
     */
    static List<OidcIssuer> oidcIssuers(AuthConfig auth) {
        List<OidcIssuer> issuers = new ArrayList<>();
        for (int i = 0; i < auth.oidc().size(); i++) {
            issuers.add(auth.oidc().get(i).toIssuer(i));
        }
        try {
            TokenAuthenticator.checkIssuers(auth.issuer(), issuers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("auth.oidc: " + e.getMessage(), e);
        }
        return issuers;
    }

    /**
     * The server's one token check (docs/security.md): its own tokens, and those of each {@code auth.oidc} issuer, whose
     * discovery is read now; an issuer that does not answer is logged and retried on its first token later, so the
     * server starts either way. A bad {@code auth.oidc} entry stops the start, naming the entry and the field.
     */
    private static TokenAuthenticator tokenAuthenticator(AuthConfig auth, BearerTokens tokens, MetricRegistry metrics) {
        List<OidcIssuer> issuers = oidcIssuers(auth);
        TokenAuthenticator verifier = new TokenAuthenticator(
                tokens, issuers, auth.tokenCacheTtl(), auth.tokenCacheMaxEntries(), Clock.systemUTC());
        if (auth.enabled()) {
            verifier.discover();
        } else if (!issuers.isEmpty()) {
            LOG.warn("auth.oidc names {} issuer(s), but auth.enabled is false: no token is checked", issuers.size());
        }
        metrics.gauge("treecat.auth.token-cache.size", () -> verifier::cachedTokens);
        return verifier;
    }

    /**
     * Runs one command line as {@link Application#run(String...)} does, but with the given streams and
     * an exit code instead of {@code System.exit}: 0 on success, 2 for a usage error, 1 otherwise.
     */
    int runCommandLine(String[] arguments, OutputStream out, OutputStream err) throws Exception {
        bootstrapLogging();
        Bootstrap<TreeCatConfiguration> bootstrap = new Bootstrap<>(this);
        addDefaultCommands(bootstrap);
        initialize(bootstrap);
        bootstrap.registerMetrics();
        Optional<Throwable> failure = new Cli(new JarLocation(getClass()), bootstrap, out, err).run(arguments);
        if (failure.isEmpty()) {
            return 0;
        }
        return failure.get() instanceof ArgumentParserException ? 2 : 1;
    }

    /** The server's {@code server.gzip}, which the Iceberg routes follow for the table bodies they compress themselves. */
    private static ResponseGzip responseGzip(TreeCatConfiguration configuration) {
        if (configuration.getServerFactory() instanceof AbstractServerFactory server) {
            GzipHandlerFactory gzip = server.getGzipFilterFactory();
            return new ResponseGzip(gzip.isEnabled(), (int)
                    Math.min(Integer.MAX_VALUE, gzip.getMinimumEntitySize().toBytes()));
        }
        return ResponseGzip.DEFAULTS;
    }
}
