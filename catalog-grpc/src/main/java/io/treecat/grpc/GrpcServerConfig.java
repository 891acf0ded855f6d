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
 */
public record GrpcServerConfig(
        String host,
        int port,
        int maxInboundMessageBytes,
        int queryBatchSize,
        Duration shutdownGrace,
        ServerCredentials credentials) {
    public static final int DEFAULT_PORT = 50051;

    public GrpcServerConfig {
        requireNonNull(host, "host is null");
        requireNonNull(shutdownGrace, "shutdownGrace is null");
        requireNonNull(credentials, "credentials is null");
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
        return new GrpcServerConfig(host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, newCredentials);
    }

    /** All interfaces on 50051, 16 MiB requests, batches of 1000 objects, 30 s to drain. */
    public static GrpcServerConfig defaults() {
        return new GrpcServerConfig("0.0.0.0", DEFAULT_PORT, 16 << 20, 1000, Duration.ofSeconds(30));
    }

    public GrpcServerConfig withHost(String newHost) {
        return new GrpcServerConfig(newHost, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials);
    }

    public GrpcServerConfig withPort(int newPort) {
        return new GrpcServerConfig(host, newPort, maxInboundMessageBytes, queryBatchSize, shutdownGrace, credentials);
    }

    public GrpcServerConfig withMaxInboundMessageBytes(int bytes) {
        return new GrpcServerConfig(host, port, bytes, queryBatchSize, shutdownGrace, credentials);
    }

    public GrpcServerConfig withQueryBatchSize(int objects) {
        return new GrpcServerConfig(host, port, maxInboundMessageBytes, objects, shutdownGrace, credentials);
    }

    public GrpcServerConfig withShutdownGrace(Duration grace) {
        return new GrpcServerConfig(host, port, maxInboundMessageBytes, queryBatchSize, grace, credentials);
    }
}
