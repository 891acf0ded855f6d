package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.service.CatalogService;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC endpoint's lifecycle: the TreeCat service, server reflection (so {@code grpcurl} works
 * without the .proto) and the standard health service, on Netty. The server process owns one and
 * calls {@link #start()} and {@link #shutdown()}; the {@link CatalogService} stays the caller's to
 * close, after this.
 *
 * <p>Calls run on a fixed pool of threads, so a burst of requests queues instead of starting
 * threads without bound. A commit blocks its thread until it is durable, and group commit needs
 * several commits in flight to batch their syncs, hence more threads than cores.
 *
 * <p>The TreeCat service's calls pass the bearer-token check first (when authentication is on), then {@link
 * MinVidInterceptor} (read-your-writes across nodes), then the service: in grpc-java the interceptor applied last
 * runs first.
 */
public final class TreeCatGrpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCatGrpcServer.class);
    /** How long shutdown waits, after cancelling what the grace period did not finish. */
    private static final long FORCED_WAIT_SECONDS = 5;

    private final CatalogService catalog;
    private final ChangeFeed feed;
    /** A feed this server made for itself (no feed given), closed with it. */
    private final boolean ownsFeed;

    private final GrpcServerConfig config;
    private final Optional<GrpcAuthentication> authentication;
    private TreeCatGrpcService service;
    private final HealthStatusManager health = new HealthStatusManager();
    private ExecutorService executor;
    private Server server;
    private boolean stopped;

    /** A server with a change feed of its own, of the default subscriber limit. */
    public TreeCatGrpcServer(CatalogService catalog, GrpcServerConfig config) {
        this(
                catalog,
                new ChangeFeed(catalog.tree(), ChangeFeed.DEFAULT_MAX_SUBSCRIBERS),
                true,
                config,
                Optional.empty());
    }

    /** @param feed the change feed {@code Subscribe} follows; the caller's to close, after this server */
    public TreeCatGrpcServer(CatalogService catalog, ChangeFeed feed, GrpcServerConfig config) {
        this(catalog, feed, false, config, Optional.empty());
    }

    /**
     * @param feed the change feed {@code Subscribe} follows; the caller's to close, after this server
     * @param authentication when present, every call but the health service's needs a bearer token it accepts
     */
    public TreeCatGrpcServer(
            CatalogService catalog,
            ChangeFeed feed,
            GrpcServerConfig config,
            Optional<GrpcAuthentication> authentication) {
        this(catalog, feed, false, config, authentication);
    }

    private TreeCatGrpcServer(
            CatalogService catalog,
            ChangeFeed feed,
            boolean ownsFeed,
            GrpcServerConfig config,
            Optional<GrpcAuthentication> authentication) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.feed = requireNonNull(feed, "feed is null");
        this.ownsFeed = ownsFeed;
        this.config = requireNonNull(config, "config is null");
        this.authentication = requireNonNull(authentication, "authentication is null");
    }

    /**
     * Binds and starts serving.
     *
     * @throws IllegalStateException if started twice, or if the address is taken (the message names it)
     * @throws UncheckedIOException if the server cannot start for another reason
     */
    public synchronized void start() {
        if (server != null) {
            throw new IllegalStateException("The gRPC server was already started");
        }
        ExecutorService pool = newExecutor(Math.max(8, 4 * Runtime.getRuntime().availableProcessors()));
        TreeCatGrpcService treecat = new TreeCatGrpcService(catalog, feed, config.queryBatchSize());
        Server built = NettyServerBuilder.forAddress(
                        new InetSocketAddress(config.host(), config.port()), config.credentials())
                .executor(pool)
                .maxInboundMessageSize(config.maxInboundMessageBytes())
                .addService(authenticated(ServerInterceptors.intercept(
                        MalformedRequests.refused(treecat.bindService()),
                        new MinVidInterceptor(catalog, config.minVidWait()))))
                .addService(authenticated(ProtoReflectionServiceV1.newInstance().bindService()))
                .addService(authenticated(legacyReflection().bindService()))
                .addService(health.getHealthService())
                .build();
        try {
            built.start();
        } catch (IOException e) {
            pool.shutdownNow();
            if (isBindFailure(e)) {
                throw new IllegalStateException(
                        "Cannot serve gRPC on " + config.host() + ":" + config.port()
                                + ": the address is already in use",
                        e);
            }
            throw new UncheckedIOException("Cannot start the gRPC server on " + config.host() + ":" + config.port(), e);
        }
        server = built;
        executor = pool;
        service = treecat;
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(TreeCatGrpc.SERVICE_NAME, ServingStatus.SERVING);
        LOG.info("gRPC serving on {}:{}", config.host(), server.getPort());
    }

    /** The service behind the bearer-token check, when authentication is on; the health service is never. */
    private ServerServiceDefinition authenticated(ServerServiceDefinition service) {
        return authentication
                .map(check -> ServerInterceptors.intercept(service, check))
                .orElse(service);
    }

    /** grpcurl and most tools speak reflection v1; older ones only v1alpha. */
    @SuppressWarnings("deprecation")
    private static io.grpc.BindableService legacyReflection() {
        return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
    }

    /** Netty's native transports report a taken port as their own IOException, not BindException. */
    private static boolean isBindFailure(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException
                    || String.valueOf(cause.getMessage()).contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    private static ExecutorService newExecutor(int threads) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "treecat-grpc-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    }

    /** The bound port: the configured one, or the one picked for port 0. */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("The gRPC server is not started");
        }
        return server.getPort();
    }

    /** True from a successful {@link #start()} until {@link #shutdown()} begins. */
    public synchronized boolean isServing() {
        return server != null && !stopped && !server.isShutdown();
    }

    /**
     * Stops taking calls, reports NOT_SERVING to health checks, lets calls in flight finish for up to
     * {@code shutdownGrace}, then cancels the rest (a cancelled query closes its cursor). Returns
     * once the server has stopped. Idempotent.
     */
    public synchronized void shutdown() {
        if (server == null || stopped) {
            stopped = true;
            closeOwnFeed();
            return;
        }
        stopped = true;
        health.enterTerminalState();
        server.shutdown();
        // A change-feed stream never ends by itself: end each, naming where to resume, so it does not hold the grace.
        service.endSubscriptions();
        try {
            if (!server.awaitTermination(config.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("gRPC calls still running after {}; cancelling them", config.shutdownGrace());
                server.shutdownNow();
                server.awaitTermination(FORCED_WAIT_SECONDS, TimeUnit.SECONDS);
            }
            executor.shutdown();
            if (!executor.awaitTermination(FORCED_WAIT_SECONDS, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        closeOwnFeed();
        LOG.info("gRPC server stopped");
    }

    private void closeOwnFeed() {
        if (ownsFeed) {
            feed.close();
        }
    }

    /** The service, once started: tests watch its change-feed streams. */
    synchronized TreeCatGrpcService service() {
        return service;
    }

    @Override
    public void close() {
        shutdown();
    }
}
