package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.dropwizard.lifecycle.Managed;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.service.CatalogService;
import io.treecat.grpc.GrpcAuthentication;
import io.treecat.grpc.GrpcServerConfig;
import io.treecat.grpc.TreeCatGrpcServer;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The gRPC listener as a managed object. Registered after the catalog, so Dropwizard starts it once
 * RocksDB is open and stops it (draining in-flight calls) before RocksDB closes.
 */
final class GrpcLifecycle implements Managed {
    private final Supplier<CatalogService> catalog;
    private final Supplier<ChangeFeed> feed;
    private final GrpcServerConfig config;
    private volatile TreeCatGrpcServer server;

    private final Optional<GrpcAuthentication> authentication;

    /** @param authentication the bearer-token check on every call, when {@code auth.enabled} */
    GrpcLifecycle(
            Supplier<CatalogService> catalog,
            Supplier<ChangeFeed> feed,
            GrpcServerConfig config,
            Optional<GrpcAuthentication> authentication) {
        this.authentication = authentication;
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.feed = requireNonNull(feed, "feed is null");
        this.config = requireNonNull(config, "config is null");
    }

    @Override
    public void start() {
        TreeCatGrpcServer started = new TreeCatGrpcServer(catalog.get(), feed.get(), config, authentication);
        started.start();
        server = started;
    }

    @Override
    public void stop() {
        TreeCatGrpcServer running = server;
        if (running != null) {
            running.shutdown();
        }
    }

    boolean isServing() {
        TreeCatGrpcServer running = server;
        return running != null && running.isServing();
    }

    /** The bound port, or -1 before start. */
    int port() {
        TreeCatGrpcServer running = server;
        return running == null ? -1 : running.port();
    }
}
