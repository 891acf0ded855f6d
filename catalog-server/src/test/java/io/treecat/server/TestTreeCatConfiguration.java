package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.query.parser.QueryLimits;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.ConcurrencyProtocol;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.RetentionConfig;
import io.treecat.hms.HiveFilterLimits;
import io.treecat.hms.HmsServerConfig;
import io.treecat.hms.HmsTransportConfig;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.rest.nativeapi.BodyLimits;
import io.treecat.server.config.TreeCatConfiguration;
import io.treecat.server.config.TreeCatConfigurationFactory;
import io.treecat.server.config.TreeCatConfigurationSource;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The embedded default YAML and the code defaults describe the same server, and map onto core's settings. */
class TestTreeCatConfiguration {
    private final ConfigurationSourceProvider source = TreeCatConfigurationSource.withEnvironment();
    private final YamlConfigurationFactory<TreeCatConfiguration> factory = new TreeCatConfigurationFactory(
            TreeCatConfiguration.class,
            Validators.newValidator(),
            Jackson.newObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES),
            "dw",
            source);

    @Test
    void embeddedDefaultsMatchCodeDefaults() throws Exception {
        for (TreeCatConfiguration configuration :
                new TreeCatConfiguration[] {factory.build(), new TreeCatConfiguration()}) {
            assertThat(configuration.storage().dataDir()).isEqualTo(Path.of("data"));
            assertThat(configuration.storage().rocksdb().toOptions()).isEqualTo(RocksStoreOptions.defaults());
            assertThat(configuration.transactions().toTransactionConfig()).isEqualTo(TransactionConfig.defaults());
            assertThat(configuration.retention().toRetentionConfig()).isEqualTo(RetentionConfig.defaults());
            assertThat(configuration.warehouse().location()).isEqualTo("warehouse");
            assertThat(configuration.warehouse().externalLocations()).isEqualTo(ExternalLocations.ALLOWED);
            assertThat(configuration.lake().names()).isEqualTo(LakeNames.DEFAULT);
            // Unset: the server picks loopback or every interface by auth.enabled (ListenerBindings).
            assertThat(configuration.grpc().host()).isNull();
            assertThat(configuration.grpc().port()).isEqualTo(50051);
            assertThat(configuration.grpc().maxInboundMessageBytes()).isEqualTo(16 << 20);
            assertThat(configuration.grpc().queryBatchSize()).isEqualTo(1000);
            assertThat(configuration.hms().host()).isNull();
            assertThat(configuration.hms().port()).isEqualTo(9083);
            assertThat(configuration.hms().defaultCatalog()).isEqualTo("warehouse");
            assertThat(configuration.hms().lockTimeout()).isEqualTo(java.time.Duration.ofSeconds(300));
            assertThat(configuration.hms().maxThreads()).isEqualTo(HmsServerConfig.DEFAULT_MAX_THREADS);
            assertThat(configuration.hms().toTransportConfig()).isEqualTo(HmsTransportConfig.DEFAULTS);
            assertThat(configuration.http().toBodyLimits())
                    .isEqualTo(new BodyLimits(16L << 20, 4L << 30, java.time.Duration.ofSeconds(30)));
            assertThat(configuration.http().toJsonLimits()).isEqualTo(JsonLimits.DEFAULTS);
            assertThat(configuration.query().toLimits()).isEqualTo(QueryLimits.DEFAULTS);
            assertThat(configuration.feed().maxSubscribers()).isEqualTo(256);
            assertThat(configuration.console().enabled()).isTrue();
            assertThat(configuration.iceberg().eventsEndpoint()).isFalse();
            assertThat(configuration.iceberg().rebaseAppends()).isTrue();
            assertThat(configuration.feed().maxWait()).isEqualTo(java.time.Duration.ofSeconds(60));
            assertThat(configuration.hms().filterLimits()).isEqualTo(HiveFilterLimits.DEFAULTS);
            assertThat(configuration.auth().enabled()).isFalse();
            assertThat(configuration.auth().tokenLifetime()).isEqualTo(java.time.Duration.ofHours(1));
            assertThat(configuration.auth().issuer()).isEqualTo("treecat");
            assertThat(configuration.auth().audience()).isEqualTo("treecat");
            assertThat(configuration.auth().tokenSigningKeyFile()).isEmpty();
            DefaultServerFactory server = (DefaultServerFactory) configuration.getServerFactory();
            assertThat(((HttpConnectorFactory) server.getApplicationConnectors().get(0)).getPort())
                    .isEqualTo(8181);
            assertThat(((HttpConnectorFactory) server.getAdminConnectors().get(0)).getPort())
                    .isEqualTo(8182);
            assertThat(server.getShutdownGracePeriod().toSeconds()).isEqualTo(30);
            assertThat(server.getGzipFilterFactory().isEnabled()).isTrue();
            assertThat(server.getGzipFilterFactory().getDeflateCompressionLevel())
                    .isEqualTo(java.util.zip.Deflater.BEST_SPEED);
        }
    }

    @Test
    void systemPropertiesOverrideKeys() throws Exception {
        System.setProperty("dw.transactions.protocol", "MGL");
        System.setProperty("dw.storage.rocksdb.block-cache-size", "1GiB");
        System.setProperty("dw.hms.lock-timeout", "2 seconds");
        System.setProperty("dw.hms.client-idle-timeout", "0 seconds");
        System.setProperty("dw.hms.max-connections-per-client", "8");
        System.setProperty("dw.hms.max-string-size", "1MiB");
        System.setProperty("dw.hms.framed-transport", "true");
        try {
            TreeCatConfiguration configuration = factory.build();
            assertThat(configuration.transactions().toTransactionConfig().protocol())
                    .isEqualTo(ConcurrencyProtocol.MGL);
            assertThat(configuration.storage().rocksdb().toOptions().blockCacheBytes())
                    .isEqualTo(1L << 30);
            assertThat(configuration.hms().lockTimeout()).isEqualTo(java.time.Duration.ofSeconds(2));
            assertThat(configuration.hms().toTransportConfig())
                    .isEqualTo(HmsTransportConfig.DEFAULTS
                            .withFramed(true)
                            .withConnections(java.time.Duration.ZERO, 8)
                            .withSizes(
                                    HmsTransportConfig.DEFAULT_MAX_MESSAGE_BYTES,
                                    HmsTransportConfig.DEFAULT_MAX_FRAME_BYTES,
                                    1 << 20,
                                    HmsTransportConfig.DEFAULT_MAX_CONTAINER_ELEMENTS,
                                    HmsTransportConfig.DEFAULT_MAX_DEPTH));
        } finally {
            System.clearProperty("dw.hms.client-idle-timeout");
            System.clearProperty("dw.hms.max-connections-per-client");
            System.clearProperty("dw.hms.max-string-size");
            System.clearProperty("dw.hms.framed-transport");
            System.clearProperty("dw.hms.lock-timeout");
            System.clearProperty("dw.transactions.protocol");
            System.clearProperty("dw.storage.rocksdb.block-cache-size");
        }
    }

    @Test
    void queryAndFilterDepthsAreBoundedBelowWhatTheStackTakes() {
        System.setProperty("dw.query.max-depth", "257");
        System.setProperty("dw.hms.filter.max-depth", "2001");
        try {
            assertThatThrownBy(factory::build)
                    .isInstanceOf(io.dropwizard.configuration.ConfigurationValidationException.class)
                    .hasMessageContaining("query.maxDepth must be less than or equal to 256")
                    .hasMessageContaining("hms.filter.maxDepth must be less than or equal to 2000");
        } finally {
            System.clearProperty("dw.query.max-depth");
            System.clearProperty("dw.hms.filter.max-depth");
        }
    }

    @Test
    void jsonDepthIsBoundedBelowWhatTheStoreCanWrite() {
        System.setProperty("dw.http.json.max-depth", "1001");
        try {
            assertThatThrownBy(factory::build)
                    .isInstanceOf(io.dropwizard.configuration.ConfigurationValidationException.class)
                    .hasMessageContaining("http.json.maxDepth must be less than or equal to 1000");
        } finally {
            System.clearProperty("dw.http.json.max-depth");
        }
    }

    @Test
    void replicationIsOffByDefaultAndItsPeersAreChecked() throws Exception {
        assertThat(factory.build().replication().enabled()).isFalse();
        System.setProperty("dw.replication.node-id", "n2");
        System.setProperty("dw.replication.peers", "n1=127.0.0.1:9190,n2=127.0.0.1:9191,n3=host-3:9192");
        try {
            var replication = factory.build().replication();
            assertThat(replication.enabled()).isTrue();
            assertThat(replication.peers())
                    .extracting(peer -> peer.id() + "@" + peer.address())
                    .containsExactly("n1@127.0.0.1:9190", "n2@127.0.0.1:9191", "n3@host-3:9192");
            assertThat(replication.logDir(Path.of("data")))
                    .isEqualTo(Path.of("raft").toAbsolutePath());

            System.setProperty("dw.replication.node-id", "n4");
            assertThatThrownBy(factory::build)
                    .isInstanceOf(io.dropwizard.configuration.ConfigurationValidationException.class)
                    .hasMessageContaining("node-id must name one of the peers");
            System.setProperty("dw.replication.node-id", "n1");
            System.setProperty("dw.replication.peers", "n1=127.0.0.1:9190,n1=127.0.0.1:9191");
            assertThatThrownBy(factory::build).hasMessageContaining("peer ids must be unique");
            System.setProperty("dw.replication.peers", "n1=127.0.0.1,n2=127.0.0.1:9191");
            assertThatThrownBy(factory::build).hasMessageContaining("must be id=host:port");
        } finally {
            System.clearProperty("dw.replication.node-id");
            System.clearProperty("dw.replication.peers");
        }
    }
}
