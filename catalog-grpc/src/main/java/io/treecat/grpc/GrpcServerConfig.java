package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import java.time.Duration;

/**
 * How the gRPC endpoint listens.
 *
 * @param host the interface to bind; {@code 0.0.0.0} for all
 * @param port the port; 0 picks a free one ({@link TreeCatGrpcServer#port()} tells which)
 * @param maxInboundMessageBytes the largest request message accepted; a larger one fails with
 *     RESOURCE_EXHAUSTED and the server carries on
 * @param queryBatchSize the most objects in one streamed {@code QueryBatch}
 * @param shutdownGrace how long {@link TreeCatGrpcServer#shutdown()} lets calls in flight finish
 *     before cancelling them
 * @param credentials plaintext or TLS
 * @param minVidWait how long a call with {@code x-treecat-min-vid} waits for this node to publish that vid
 *     ({@link MinVidInterceptor})
 */
public record GrpcServerConfig(
        String host,
        int port,
        int maxInboundMessageBytes,
        int queryBatchSize,
        Duration shutdownGrace,
        ServerCredentials credentials,
        Duration minVidWait) {
    public static final int DEFAULT_PORT = 50051;
    /** What {@code replication.min-vid-wait} defaults to. */
    public static final Duration DEFAULT_MIN_VID_WAIT = Duration.ofSeconds(10);

    public GrpcServerConfig {
        requireNonNull(host, "host is null");
        requireNonNull(shutdownGrace, "shutdownGrace is null");
        requireNonNull(credentials, "credentials is null");
        requireNonNull(minVidWait, "minVidWait is null");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host is blank");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535: " + port);
        }
        if (maxInboundMessageBytes <= 0) {
            throw new IllegalArgumentException("maxInboundMessageBytes must be positive: " + maxInboundMessageBytes);
        }
        if (queryBatchSize <= 0) {
            throw new IllegalArgumentException("queryBatchSize must be positive: " + queryBatchSize);
        }
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdownGrace must not be negative: " + shutdownGrace);
        }
        if (minVidWait.isNegative()) {
            throw new IllegalArgumentException("minVidWait must not be negative: " + minVidWait);
        }
    }

    /** With these credentials and the default min-vid wait. */
    public GrpcServerConfig(
            String host,
            int port,
            int maxInboundMessageBytes,
            int queryBatchSize,
            Duration shutdownGrace,
            ServerCredentials credentials) {
        this(host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials, DEFAULT_MIN_VID_WAIT);
    }

    /** Plaintext: what every listener served before TLS, and still the default. */
    public GrpcServerConfig(
            String host, int port, int maxInboundMessageBytes, int queryBatchSize, Duration shutdownGrace) {
        this(host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, InsecureServerCredentials.create());
    }

    /**
     * Serves with these credentials instead, e.g. {@code TlsServerCredentials} over the server's PEM key and
     * chain; the adapter takes them built, so it reads no files and knows no configuration.
     */
    public GrpcServerConfig withCredentials(ServerCredentials newCredentials) {
        return new GrpcServerConfig(
                host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, newCredentials, minVidWait);
    }

    /** All interfaces on 50051, 16 MiB requests, batches of 1000 objects, 30 s to drain, 10 s for a min vid. */
    public static GrpcServerConfig defaults() {
        return new GrpcServerConfig("0.0.0.0", DEFAULT_PORT, 16 << 20, 1000, Duration.ofSeconds(30));
    }

    public GrpcServerConfig withHost(String newHost) {
        return new GrpcServerConfig(
                newHost, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials, minVidWait);
    }

    public GrpcServerConfig withPort(int newPort) {
        return new GrpcServerConfig(
                host, newPort, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials, minVidWait);
    }

    public GrpcServerConfig withMaxInboundMessageBytes(int bytes) {
        return new GrpcServerConfig(host, port, bytes, queryBatchSize, shutdownGrace, credentials, minVidWait);
    }

    public GrpcServerConfig withQueryBatchSize(int objects) {
        return new GrpcServerConfig(
                host, port, maxInboundMessageBytes, objects, shutdownGrace, credentials, minVidWait);
    }

    public GrpcServerConfig withShutdownGrace(Duration grace) {
        return new GrpcServerConfig(host, port, maxInboundMessageBytes, queryBatchSize, grace, credentials, minVidWait);
    }

    public GrpcServerConfig withMinVidWait(Duration wait) {
        return new GrpcServerConfig(
                host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials, wait);
    }
}
