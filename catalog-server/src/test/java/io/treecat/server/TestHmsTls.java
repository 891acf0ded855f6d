package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import io.treecat.server.tls.PemTls;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hms.tls}: Hive's own {@code HiveMetaStoreClient} with {@code metastore.use.SSL} and a truststore holding
 * the throwaway CA is served; with a truststore without it, or in plaintext, it cannot connect.
 */
final class TestHmsTls {
    private static final String TRUST_PASSWORD = "test-only";

    @TempDir
    static Path directory;

    private static TestCertificates certificates;
    private static TreeCatTestServer server;
    private static Path trustingTheCa;
    private static Path trustingAnother;

    @BeforeAll
    static void start() throws Exception {
        certificates = TestCertificates.create(directory.resolve("tls"));
        trustingTheCa = truststore(directory.resolve("ca-trust.p12"), certificates.ca());
        TestCertificates other = TestCertificates.create(directory.resolve("other-ca"));
        trustingAnother = truststore(directory.resolve("other-trust.p12"), other.ca());
        server = new TreeCatTestServer(directory.resolve("server"), hmsTls(certificates.privateKey()));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ConfigOverride[] hmsTls(Path key) {
        return new ConfigOverride[] {
            ConfigOverride.config(
                    "hms.tls.certificate-chain", certificates.certificateChain().toString()),
            ConfigOverride.config("hms.tls.private-key", key.toString())
        };
    }

    private static Path truststore(Path file, Path ca) throws Exception {
        try (OutputStream out = Files.newOutputStream(file)) {
            PemTls.trustStore(PemTls.certificates("test client", "CA", ca)).store(out, TRUST_PASSWORD.toCharArray());
        }
        return file;
    }

    private static Configuration hiveConf(boolean ssl, Path truststore) {
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", "thrift://127.0.0.1:" + server.hmsPort());
        conf.set("metastore.connect.retries", "1");
        conf.set("metastore.client.connect.retry.delay", "0s");
        conf.set("metastore.client.socket.timeout", "10s");
        conf.setBoolean("metastore.use.SSL", ssl);
        if (truststore != null) {
            conf.set("metastore.truststore.path", truststore.toString());
            conf.set("metastore.truststore.password", TRUST_PASSWORD);
            conf.set("metastore.truststore.type", "PKCS12");
        }
        return conf;
    }

    @Test
    void hiveClientOverSslTrustingTheCa() throws Exception {
        HiveMetaStoreClient client = new HiveMetaStoreClient(hiveConf(true, trustingTheCa));
        try {
            Database db = new Database();
            db.setName("over_tls");
            client.createDatabase(db);
            assertThat(client.getAllDatabases()).contains("default", "over_tls");
        } finally {
            client.close();
        }
        assertThat(server.get("/v1/warehouse/namespaces").body()).contains("over_tls");
    }

    @Test
    void hiveClientWithPlainSaslOverSsl() throws Exception {
        // SASL PLAIN over the TLS socket, as Hive's client combines them; the secret from a JCEKS credential store.
        TreeCatTestServer.Reply created = server.post("/treecat/v1/principals", "{\"name\": \"tls-etl\"}");
        assertThat(created.status()).isEqualTo(201);
        String[] credential = created.json().get("credential").asText().split(":", 2);
        for (String secret : new String[] {credential[1], credential[1] + "x"}) {
            Path file = Files.createTempFile(directory, "plain", ".jceks");
            Files.delete(file);
            String store = "jceks://file" + file.toAbsolutePath();
            Configuration storeConf = new Configuration(false);
            storeConf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, store);
            CredentialProvider provider =
                    CredentialProviderFactory.getProviders(storeConf).get(0);
            provider.createCredentialEntry(credential[0], secret.toCharArray());
            provider.flush();
            Configuration conf = hiveConf(true, trustingTheCa);
            conf.set("metastore.client.auth.mode", "PLAIN");
            conf.set("metastore.client.plain.username", credential[0]);
            conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, store);
            // (The clear-text fallback stays on: Hive reads the truststore password through the same lookup.)
            if (secret.equals(credential[1])) {
                HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
                try {
                    assertThat(client.getAllDatabases()).contains("default");
                } finally {
                    client.close();
                }
            } else {
                assertThatThrownBy(() -> new HiveMetaStoreClient(conf))
                        .isInstanceOf(MetaException.class)
                        .hasMessageContaining("Authentication failed: unknown client id or wrong secret");
            }
        }
    }

    @Test
    void hiveClientTrustingAnotherCaCannotConnect() {
        assertThatThrownBy(() -> new HiveMetaStoreClient(hiveConf(true, trustingAnother)).getAllDatabases())
                // Hive opens the socket lazily: the failed handshake surfaces on the first call.
                .isInstanceOfAny(MetaException.class, TTransportException.class);
        // The refused handshake left the listener serving.
        assertThat(server.admin("/healthcheck")
                        .json()
                        .get("listener-hms")
                        .get("healthy")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void plaintextHiveClientGetsNoAnswer() {
        assertThatThrownBy(() -> new HiveMetaStoreClient(hiveConf(false, null)).getAllDatabases())
                .isInstanceOf(Exception.class);
    }

    @Test
    void missingChainFailsTheStartNamingListenerAndFile() {
        Path missing = directory.resolve("no-such.crt");
        assertThatThrownBy(() -> new TreeCatTestServer(
                        directory.resolve("missing"),
                        ConfigOverride.config("hms.tls.certificate-chain", missing.toString()),
                        ConfigOverride.config(
                                "hms.tls.private-key", certificates.privateKey().toString())))
                .hasMessage("TLS for HMS Thrift listener (hms.tls): cannot read the certificate chain file " + missing
                        + " (NoSuchFileException)");
    }
}
