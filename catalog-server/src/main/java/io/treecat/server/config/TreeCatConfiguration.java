package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import java.util.zip.Deflater;

/**
 * The whole configuration of a TreeCat process: one YAML file (docs/configuration.md). Every field
 * has a default here that matches {@code treecat-default.yml}, so a file need only name what it
 * changes; the {@code server} section, if given, replaces the default listeners as a whole.
 */
public final class TreeCatConfiguration extends Configuration {
    public static final int DEFAULT_HTTP_PORT = 8181;
    public static final int DEFAULT_ADMIN_PORT = 8182;

    @Valid
    @NotNull
    @JsonProperty("storage")
    private StorageConfig storage = new StorageConfig();

    @Valid
    @NotNull
    @JsonProperty("warehouse")
    private WarehouseConfig warehouse = new WarehouseConfig();

    @Valid
    @NotNull
    @JsonProperty("lake")
    private LakeConfig lake = new LakeConfig();

    @Valid
    @NotNull
    @JsonProperty("iceberg")
    private IcebergConfig iceberg = new IcebergConfig();

    @Valid
    @NotNull
    @JsonProperty("transactions")
    private TransactionsConfig transactions = new TransactionsConfig();

    @Valid
    @NotNull
    @JsonProperty("retention")
    private RetentionSettings retention = new RetentionSettings();

    @Valid
    @NotNull
    @JsonProperty("grpc")
    private GrpcConfig grpc = new GrpcConfig();

    @Valid
    @NotNull
    @JsonProperty("hms")
    private HmsConfig hms = new HmsConfig();

    @Valid
    @NotNull
    @JsonProperty("http")
    private HttpConfig http = new HttpConfig();

    @Valid
    @NotNull
    @JsonProperty("query")
    private QueryConfig query = new QueryConfig();

    @Valid
    @NotNull
    @JsonProperty("feed")
    private FeedConfig feed = new FeedConfig();

    @Valid
    @NotNull
    @JsonProperty("console")
    private ConsoleConfig console = new ConsoleConfig();

    @Valid
    @NotNull
    @JsonProperty("replication")
    private ReplicationConfig replication = new ReplicationConfig();

    @Valid
    @NotNull
    @JsonProperty("purge")
    private PurgeConfig purge = new PurgeConfig();

    @Valid
    @NotNull
    @JsonProperty("auth")
    private AuthConfig auth = new AuthConfig();

    public TreeCatConfiguration() {
        DefaultServerFactory server = new DefaultServerFactory();
        server.setApplicationConnectors(List.of(connector(DEFAULT_HTTP_PORT)));
        server.setAdminConnectors(List.of(connector(DEFAULT_ADMIN_PORT)));
        server.setShutdownGracePeriod(Duration.seconds(30));
        server.setRegisterDefaultExceptionMappers(false);
        // The fastest level, as the Iceberg routes compress table bodies: the largest answers Jetty compresses
        // are scan plans' tasks (treecat-default.yml, docs/configuration.md).
        server.getGzipFilterFactory().setDeflateCompressionLevel(Deflater.BEST_SPEED);
        setServerFactory(server);
    }

    private static ConnectorFactory connector(int port) {
        HttpConnectorFactory connector = new HttpConnectorFactory();
        connector.setPort(port);
        return connector;
    }

    public StorageConfig storage() {
        return storage;
    }

    public WarehouseConfig warehouse() {
        return warehouse;
    }

    public LakeConfig lake() {
        return lake;
    }

    public IcebergConfig iceberg() {
        return iceberg;
    }

    public TransactionsConfig transactions() {
        return transactions;
    }

    public RetentionSettings retention() {
        return retention;
    }

    public GrpcConfig grpc() {
        return grpc;
    }

    public HmsConfig hms() {
        return hms;
    }

    public HttpConfig http() {
        return http;
    }

    public FeedConfig feed() {
        return feed;
    }

    public ConsoleConfig console() {
        return console;
    }

    public ReplicationConfig replication() {
        return replication;
    }

    public AuthConfig auth() {
        return auth;
    }

    public PurgeConfig purge() {
        return purge;
    }

    public QueryConfig query() {
        return query;
    }
}
