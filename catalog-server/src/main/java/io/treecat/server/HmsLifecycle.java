package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.dropwizard.lifecycle.Managed;
import io.treecat.core.service.CatalogService;
import io.treecat.hms.HmsServerConfig;
import io.treecat.hms.TreeCatHmsServer;
import java.util.function.Supplier;

/**
 * The Hive Metastore Thrift listener as a managed object. Registered after the catalog, so it starts
 * once RocksDB is open and stops before RocksDB closes.
 */
final class HmsLifecycle implements Managed {
  private final Supplier<CatalogService> catalog;
  private final HmsServerConfig config;
  private volatile TreeCatHmsServer server;

  HmsLifecycle(Supplier<CatalogService> catalog, HmsServerConfig config) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.config = requireNonNull(config, "config is null");
  }

  @Override
  public void start() {
    TreeCatHmsServer started = new TreeCatHmsServer(catalog.get(), config);
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
