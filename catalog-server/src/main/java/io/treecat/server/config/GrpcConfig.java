package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.Optional;

/**
 * {@code grpc.*}: the native gRPC listener. Each field maps one-to-one onto the gRPC module's
 * {@code GrpcServerConfig(host, port, maxInboundMessageBytes, queryBatchSize, shutdownGrace)}; the
 * shutdown grace is the server's {@code server.shutdownGracePeriod}, so both listeners drain alike.
 */
public final class GrpcConfig {
    /** Unset: loopback with authentication off, every interface with it on (docs/security.md). */
    @JsonProperty("host")
    private String host;

    @Min(0)
    @Max(65535)
    @JsonProperty("port")
    private int port = 50051;

    @NotNull
    @JsonProperty("max-inbound-message-size")
    private DataSize maxInboundMessageSize = DataSize.mebibytes(16);

    @Min(1)
    @Max(100_000)
    @JsonProperty("query-batch-size")
    private int queryBatchSize = 1000;

    /** {@code grpc.tls}: absent serves plaintext. */
    @Valid
    @JsonProperty("tls")
    private TlsConfig tls;

    public Optional<TlsConfig> tls() {
        return Optional.ofNullable(tls);
    }

    /** The configured host; null or blank when unset (the server then picks it, docs/security.md). */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public int maxInboundMessageBytes() {
        return (int) Math.min(Integer.MAX_VALUE, maxInboundMessageSize.toBytes());
    }

    public int queryBatchSize() {
        return queryBatchSize;
    }
}
