package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.dropwizard.lifecycle.Managed;
import io.treecat.hms.HmsAuthentication;
import io.treecat.hms.HmsServerConfig;
import io.treecat.hms.TreeCatHmsServer;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;

/**
 * The Hive Metastore Thrift listener as a managed object. Registered after the catalog, so it starts
 * once RocksDB is open and stops before RocksDB closes. Its calls run through the lake's shared
 * transaction runner, on the catalog's current service.
 */
final class HmsLifecycle implements Managed {
    private final TransactionRunner runner;
    private final Warehouses warehouses;
    private final HmsServerConfig config;
    private final HmsAuthentication authentication;
    private volatile TreeCatHmsServer server;

    HmsLifecycle(
            TransactionRunner runner, Warehouses warehouses, HmsServerConfig config, HmsAuthentication authentication) {
        this.authentication = requireNonNull(authentication, "authentication is null");
        this.runner = requireNonNull(runner, "runner is null");
        this.warehouses = requireNonNull(warehouses, "warehouses is null");
        this.config = requireNonNull(config, "config is null");
    }

    /** The running server; null before start. */
    TreeCatHmsServer server() {
        return server;
    }

    @Override
    public void start() {
        TreeCatHmsServer started = new TreeCatHmsServer(runner, warehouses, config, authentication);
        started.start();
        server = started;
    }

    @Override
    public void stop() {
        TreeCatHmsServer running = server;
        if (running != null) {
            running.shutdown();
        }
    }

    boolean isServing() {
        TreeCatHmsServer running = server;
        return running != null && running.isServing();
    }

    /** The bound port, or -1 before start. */
    int port() {
        TreeCatHmsServer running = server;
        return running == null ? -1 : running.port();
    }
}
