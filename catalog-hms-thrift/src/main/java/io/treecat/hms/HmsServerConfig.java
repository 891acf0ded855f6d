package io.treecat.hms;

import static java.util.Objects.requireNonNull;

/**
 * How the HMS Thrift listener runs.
 *
 * @param host the address to bind ({@code 0.0.0.0}: all)
 * @param port the port to bind; 0 picks a free one ({@link TreeCatHmsServer#port()} tells which)
 * @param catalog the TreeCat catalog (first tree level) whose first-level namespaces are the HMS
 *     databases; Hive's default catalog {@code hive} maps to it
 * @param warehouse the warehouse root with a scheme ({@code file:/…}), where default database and
 *     table locations go: {@code <warehouse>/<catalog>/<db>[/<table>]}, as the Iceberg REST side does
 * @param minThreads worker threads kept
 * @param maxThreads at most this many connections are served at once (one thread each, as Hive does)
 * @param maxMessageBytes the largest string or binary field a request may carry
 */
public record HmsServerConfig(String host, int port, String catalog, String warehouse, int minThreads, int maxThreads, int maxMessageBytes) {
  public static final int DEFAULT_PORT = 9083;
  public static final String DEFAULT_CATALOG = "warehouse";

  public HmsServerConfig {
    requireNonNull(host, "host is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(warehouse, "warehouse is null");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("Invalid port: " + port);
    }
    if (catalog.isEmpty()) {
      throw new IllegalArgumentException("catalog is empty");
    }
    if (minThreads < 1 || maxThreads < minThreads) {
      throw new IllegalArgumentException("Invalid thread bounds: " + minThreads + ".." + maxThreads);
    }
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("Invalid maxMessageBytes: " + maxMessageBytes);
    }
    warehouse = warehouse.endsWith("/") ? warehouse.substring(0, warehouse.length() - 1) : warehouse;
  }

  /** Defaults for everything but where to listen and the warehouse. */
  public static HmsServerConfig of(String host, int port, String catalog, String warehouse) {
    return new HmsServerConfig(host, port, catalog, warehouse, 4, 256, 100 * 1024 * 1024);
  }
}
