package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import io.treecat.hms.HiveFilterLimits;
import io.treecat.hms.HmsServerConfig;
import io.treecat.hms.HmsTransportConfig;
import io.treecat.rest.iceberg.IcebergRest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code hms.*}: the Hive Metastore Thrift listener (docs/hms-thrift.md). Its databases are the
 * first-level namespaces of the TreeCat catalog {@code default-catalog}, the one the Iceberg REST
 * catalog serves by default, so both see one set of tables.
 */
public final class HmsConfig {
    /**
     * Whether the HMS listener may serve unauthenticated Thrift with {@code auth.enabled}: until PLAIN SASL exists
     * an auth-on server refuses to start it otherwise.
     */
    @JsonProperty("allow-unauthenticated")
    private boolean allowUnauthenticated = false;

    public boolean allowUnauthenticated() {
        return allowUnauthenticated;
    }

    /** {@code hms.http}: Hive's HTTP transport on the application port (docs/security.md, "Hive Metastore clients"). */
    public static final class HttpConfig {
        @JsonProperty("enabled")
        private boolean enabled = true;

        /** Whether {@code POST /metastore} on the application port serves Hive's HTTP transport. */
        public boolean enabled() {
            return enabled;
        }
    }

    @Valid
    @NotNull
    @JsonProperty("http")
    private HttpConfig http = new HttpConfig();

    public HttpConfig http() {
        return http;
    }

    /** {@code hms.tls}: absent serves plaintext Thrift. */
    @Valid
    @JsonProperty("tls")
    private TlsConfig tls;

    public Optional<TlsConfig> tls() {
        return Optional.ofNullable(tls);
    }

    /** Unset: loopback with authentication off, every interface with it on (docs/security.md). */
    @JsonProperty("host")
    private String host;

    @Min(0)
    @Max(65535)
    @JsonProperty("port")
    private int port = 9083;

    @NotEmpty
    @JsonProperty("default-catalog")
    // The Iceberg REST catalog's default, so both APIs see the same databases out of the box.
    private String defaultCatalog = IcebergRest.DEFAULT_CATALOG;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("lock-timeout")
    // Hive's hive.txn.timeout: an HMS lock not heartbeated for this long is released.
    private Duration lockTimeout = Duration.seconds(300);

    @Min(1)
    @Max(100_000)
    @JsonProperty("max-threads")
    // One thread per connection, as Hive's metastore.server.max.threads; beyond it a new connection is closed.
    private int maxThreads = HmsServerConfig.DEFAULT_MAX_THREADS;

    @JsonProperty("framed-transport")
    // Hive's metastore.thrift.framed.transport.enabled: clients must use the same setting.
    private boolean framedTransport;

    @NotNull
    @MinDataSize(1)
    @MaxDataSize(value = Integer.MAX_VALUE)
    @JsonProperty("max-message-size")
    // Hive's metastore.server.max.message.size.
    private DataSize maxMessageSize = DataSize.bytes(HmsTransportConfig.DEFAULT_MAX_MESSAGE_BYTES);

    @NotNull
    @MinDataSize(1)
    @MaxDataSize(value = Integer.MAX_VALUE)
    @JsonProperty("max-frame-size")
    private DataSize maxFrameSize = DataSize.bytes(HmsTransportConfig.DEFAULT_MAX_FRAME_BYTES);

    @NotNull
    @MinDataSize(1)
    @MaxDataSize(value = Integer.MAX_VALUE)
    @JsonProperty("max-string-size")
    private DataSize maxStringSize = DataSize.bytes(HmsTransportConfig.DEFAULT_MAX_STRING_BYTES);

    @Min(1)
    @JsonProperty("max-container-elements")
    private int maxContainerElements = HmsTransportConfig.DEFAULT_MAX_CONTAINER_ELEMENTS;

    @Min(1)
    @Max(10_000)
    @JsonProperty("max-depth")
    private int maxDepth = HmsTransportConfig.DEFAULT_MAX_DEPTH;

    @NotNull
    @JsonProperty("client-idle-timeout")
    // 0: never; a read timeout, so a call being served is not cut.
    private Duration clientIdleTimeout = Duration.seconds(300);

    @Min(1)
    @JsonProperty("max-connections-per-client")
    private int maxConnectionsPerClient = HmsTransportConfig.DEFAULT_MAX_CONNECTIONS_PER_CLIENT;

    @Valid
    @NotNull
    @JsonProperty("filter")
    private Filter filter = new Filter();

    /** The configured host; null or blank when unset (the server then picks it, docs/security.md). */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String defaultCatalog() {
        return defaultCatalog;
    }

    public java.time.Duration lockTimeout() {
        return lockTimeout.toJavaDuration();
    }

    public int maxThreads() {
        return maxThreads;
    }

    /** The listener's framing, request limits, idle timeout and per-client cap. */
    public HmsTransportConfig toTransportConfig() {
        return new HmsTransportConfig(
                framedTransport,
                (int) maxMessageSize.toBytes(),
                (int) maxFrameSize.toBytes(),
                (int) maxStringSize.toBytes(),
                maxContainerElements,
                maxDepth,
                clientIdleTimeout.toJavaDuration(),
                maxConnectionsPerClient);
    }

    public HiveFilterLimits filterLimits() {
        return filter.toLimits();
    }

    /** {@code hms.filter.*}: how long a Hive filter may be and how deeply its and/or may alternate. */
    public static final class Filter {
        @Min(1)
        @Max(HiveFilterLimits.LENGTH_CEILING)
        @JsonProperty("max-length")
        private int maxLength = HiveFilterLimits.DEFAULTS.maxLength();

        @Min(1)
        @Max(HiveFilterLimits.DEPTH_CEILING)
        @JsonProperty("max-depth")
        private int maxDepth = HiveFilterLimits.DEFAULTS.maxDepth();

        HiveFilterLimits toLimits() {
            return new HiveFilterLimits(maxLength, maxDepth);
        }
    }
}
