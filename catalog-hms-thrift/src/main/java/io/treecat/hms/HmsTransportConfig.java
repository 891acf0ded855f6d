package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How the HMS Thrift listener frames requests, how large one may be and how long and how many connections it
 * keeps (docs/hms-thrift.md, "Transport"; docs/robustness.md, "Thrift: limits").
 *
 * <p>None of the sizes is allocated up front: strings, binaries and frames are read in chunks as their bytes
 * arrive ({@link HmsProtocol}, {@link HmsFramedTransport}), so a client that declares a large field and sends
 * nothing costs the server what it sent, not what it declared.
 *
 * @param framed each message is preceded by its 4-byte length, as Hive's metastore with {@code
 *     metastore.thrift.framed.transport.enabled}; clients must use the same setting
 * @param maxMessageBytes the most bytes one request may carry (Hive's {@code metastore.server.max.message.size});
 *     a larger one closes its connection
 * @param maxFrameBytes with {@code framed}, the largest frame; a larger one closes its connection, as libthrift's
 *     {@code TFramedTransport} does
 * @param maxStringBytes the largest string or binary field; a larger one is a {@code PROTOCOL_ERROR}
 * @param maxContainerElements the most elements one list, set or map may declare (Java pre-sizes its collections
 *     to the declared count); more is a {@code PROTOCOL_ERROR}
 * @param maxDepth how deeply structs and containers may nest (libthrift's recursion limit); deeper is a {@code
 *     PROTOCOL_ERROR}
 * @param clientIdleTimeout a connection that sends nothing for this long is closed (a read timeout: a call being
 *     served is not cut); zero: never
 * @param maxConnectionsPerClient the most connections one client address may hold open; a further one is answered
 *     with an error and closed, so one address cannot take every worker
 */
public record HmsTransportConfig(
        boolean framed,
        int maxMessageBytes,
        int maxFrameBytes,
        int maxStringBytes,
        int maxContainerElements,
        int maxDepth,
        Duration clientIdleTimeout,
        int maxConnectionsPerClient) {
    /** Hive's {@code metastore.server.max.message.size}: requests as large as Hive serves still fit. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;
    /** libthrift's {@code TConfiguration.DEFAULT_MAX_FRAME_SIZE}, the limit of Hive's framed metastore. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16_384_000;
    /** Larger than any name, view text, location or statistics blob a client sends; a framed client could not send more. */
    public static final int DEFAULT_MAX_STRING_BYTES = 16 * 1024 * 1024;
    /**
     * Far above a real request (add_partitions of thousands of partitions, file lists of an insert event), while a
     * declared but unsent list pre-sizes at most ~4 MiB of references.
     */
    public static final int DEFAULT_MAX_CONTAINER_ELEMENTS = 1_000_000;
    /** libthrift's {@code TConfiguration.DEFAULT_RECURSION_DEPTH}; Hive's structs nest under 10 deep. */
    public static final int DEFAULT_MAX_DEPTH = 64;
    /** Hive's, Iceberg's and Spark's clients reconnect when an idle connection was closed; Trino opens one per call. */
    public static final Duration DEFAULT_CLIENT_IDLE_TIMEOUT = Duration.ofSeconds(300);
    /** Half the default workers: one address cannot starve the others, a HiveServer2 or Trino coordinator still fits. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 128;

    public static final HmsTransportConfig DEFAULTS = new HmsTransportConfig(
            false,
            DEFAULT_MAX_MESSAGE_BYTES,
            DEFAULT_MAX_FRAME_BYTES,
            DEFAULT_MAX_STRING_BYTES,
            DEFAULT_MAX_CONTAINER_ELEMENTS,
            DEFAULT_MAX_DEPTH,
            DEFAULT_CLIENT_IDLE_TIMEOUT,
            DEFAULT_MAX_CONNECTIONS_PER_CLIENT);

    public HmsTransportConfig {
        requireNonNull(clientIdleTimeout, "clientIdleTimeout is null");
        positive(maxMessageBytes, "maxMessageBytes");
        positive(maxFrameBytes, "maxFrameBytes");
        positive(maxStringBytes, "maxStringBytes");
        positive(maxContainerElements, "maxContainerElements");
        positive(maxDepth, "maxDepth");
        positive(maxConnectionsPerClient, "maxConnectionsPerClient");
        if (clientIdleTimeout.isNegative() || clientIdleTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Invalid clientIdleTimeout: " + clientIdleTimeout);
        }
    }

    private static void positive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException("Invalid " + name + ": " + value);
        }
    }

    public HmsTransportConfig withFramed(boolean framed) {
        return new HmsTransportConfig(
                framed,
                maxMessageBytes,
                maxFrameBytes,
                maxStringBytes,
                maxContainerElements,
                maxDepth,
                clientIdleTimeout,
                maxConnectionsPerClient);
    }

    public HmsTransportConfig withSizes(
            int maxMessageBytes, int maxFrameBytes, int maxStringBytes, int maxContainerElements, int maxDepth) {
        return new HmsTransportConfig(
                framed,
                maxMessageBytes,
                maxFrameBytes,
                maxStringBytes,
                maxContainerElements,
                maxDepth,
                clientIdleTimeout,
                maxConnectionsPerClient);
    }

    public HmsTransportConfig withConnections(Duration clientIdleTimeout, int maxConnectionsPerClient) {
        return new HmsTransportConfig(
                framed,
                maxMessageBytes,
                maxFrameBytes,
                maxStringBytes,
                maxContainerElements,
                maxDepth,
                clientIdleTimeout,
                maxConnectionsPerClient);
    }
}
