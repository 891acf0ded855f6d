package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import javax.net.ServerSocketFactory;

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
 * @param maxThreads at most this many connections are served at once (one thread each, as Hive does); a
 *     connection beyond them is closed at once
 * @param transport framing, request size limits, idle timeout and the per-client connection cap
 * @param lockTimeout an HMS lock not heartbeated for this long is released (Hive's {@code
 *     hive.txn.timeout}, 300 s by default)
 * @param filterLimits the longest Hive filter and its deepest and/or nesting ({@code hms.filter.*})
 */
public record HmsServerConfig(
        String host,
        int port,
        String catalog,
        String warehouse,
        int minThreads,
        int maxThreads,
        HmsTransportConfig transport,
        Duration lockTimeout,
        HiveFilterLimits filterLimits,
        ServerSocketFactory sockets) {
    public static final int DEFAULT_PORT = 9083;
    /** Hive's default {@code hive.txn.timeout}; Iceberg's HiveCatalog heartbeats every 60 s (its {@code iceberg.hive.lock-heartbeat-interval-ms}). */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(300);

    public static final String DEFAULT_CATALOG = "warehouse";
    public static final int DEFAULT_MAX_THREADS = 256;

    public HmsServerConfig {
        requireNonNull(host, "host is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(warehouse, "warehouse is null");
        requireNonNull(transport, "transport is null");
        requireNonNull(lockTimeout, "lockTimeout is null");
        requireNonNull(filterLimits, "filterLimits is null");
        requireNonNull(sockets, "sockets is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid port: " + port);
        }
        if (catalog.isEmpty()) {
            throw new IllegalArgumentException("catalog is empty");
        }
        if (minThreads < 1 || maxThreads < minThreads) {
            throw new IllegalArgumentException("Invalid thread bounds: " + minThreads + ".." + maxThreads);
        }
        if (lockTimeout.isNegative() || lockTimeout.isZero()) {
            throw new IllegalArgumentException("Invalid lockTimeout: " + lockTimeout);
        }
        warehouse = warehouse.endsWith("/") ? warehouse.substring(0, warehouse.length() - 1) : warehouse;
    }

    /** Defaults for everything but where to listen and the warehouse. */
    public static HmsServerConfig of(String host, int port, String catalog, String warehouse) {
        return new HmsServerConfig(
                host,
                port,
                catalog,
                warehouse,
                4,
                DEFAULT_MAX_THREADS,
                HmsTransportConfig.DEFAULTS,
                DEFAULT_LOCK_TIMEOUT,
                HiveFilterLimits.DEFAULTS,
                ServerSocketFactory.getDefault());
    }

    public HmsServerConfig withLockTimeout(Duration timeout) {
        return new HmsServerConfig(
                host, port, catalog, warehouse, minThreads, maxThreads, transport, timeout, filterLimits, sockets);
    }

    public HmsServerConfig withMaxThreads(int threads) {
        return new HmsServerConfig(
                host,
                port,
                catalog,
                warehouse,
                Math.min(minThreads, threads),
                threads,
                transport,
                lockTimeout,
                filterLimits,
                sockets);
    }

    public HmsServerConfig withTransport(HmsTransportConfig limits) {
        return new HmsServerConfig(
                host, port, catalog, warehouse, minThreads, maxThreads, limits, lockTimeout, filterLimits, sockets);
    }

    public HmsServerConfig withFilterLimits(HiveFilterLimits limits) {
        return new HmsServerConfig(
                host, port, catalog, warehouse, minThreads, maxThreads, transport, lockTimeout, limits, sockets);
    }

    /**
     * Listens on sockets from this factory instead of plain ones: an {@code SSLServerSocketFactory} serves the
     * Thrift protocol over TLS, as Hive's {@code metastore.use.SSL} clients expect. The adapter takes the factory
     * built, so it reads no key files.
     */
    public HmsServerConfig withSockets(ServerSocketFactory factory) {
        return new HmsServerConfig(
                host, port, catalog, warehouse, minThreads, maxThreads, transport, lockTimeout, filterLimits, factory);
    }
}
