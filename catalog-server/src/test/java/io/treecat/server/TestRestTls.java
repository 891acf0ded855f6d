package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import io.treecat.server.tls.PemTls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.auth.TLSConfigurer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application and admin connectors as {@code type: https-pem} over a throwaway CA: Iceberg's own
 * RESTCatalog and the JDK client trusting that CA are served; a client that does not trust it, or speaks plain
 * HTTP, is refused; a bad PEM fails the start naming the connector and the file.
 */
final class TestRestTls {
    @TempDir
    static Path directory;

    private static TestCertificates certificates;
    private static TreeCatTestServer server;

    @BeforeAll
    static void start() throws Exception {
        certificates = TestCertificates.create(directory.resolve("tls"));
        server = new TreeCatTestServer(directory.resolve("server"), tlsOn(certificates, certificates.privateKey()));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static ConfigOverride[] tlsOn(TestCertificates certificates, Path key) {
        List<ConfigOverride> overrides = new ArrayList<>();
        for (String connector : List.of("applicationConnectors", "adminConnectors")) {
            String prefix = "server." + connector + "[0].";
            overrides.add(ConfigOverride.config(prefix + "type", "https-pem"));
            overrides.add(ConfigOverride.config(
                    prefix + "tls.certificate-chain",
                    certificates.certificateChain().toString()));
            overrides.add(ConfigOverride.config(prefix + "tls.private-key", key.toString()));
            overrides.add(ConfigOverride.config(
                    prefix + "tls.client-ca", certificates.ca().toString()));
        }
        return overrides.toArray(ConfigOverride[]::new);
    }

    /** Iceberg's hook for its HTTP client's TLS: trusts the CA file named by {@code test.tls.ca}. */
    public static final class TrustTestCa implements TLSConfigurer {
        private SSLContext context;

        @Override
        public void initialize(Map<String, String> properties) {
            context = trusting(Path.of(properties.get("test.tls.ca")));
        }

        @Override
        public SSLContext sslContext() {
            return context;
        }
    }

    static SSLContext trusting(Path ca) {
        List<X509Certificate> cas = PemTls.certificates("test client", "CA", ca);
        return PemTls.clientContext(cas);
    }

    @Test
    void icebergRestCatalogTrustingTheCa() throws Exception {
        try (RESTCatalog client = new RESTCatalog()) {
            client.initialize(
                    "treecat",
                    Map.of(
                            "uri", "https://127.0.0.1:" + server.port(),
                            "io-impl", io.treecat.lakehouse.storage.LocalFileIO.class.getName(),
                            "rest.client.tls.configurer-impl", TrustTestCa.class.getName(),
                            "test.tls.ca", certificates.ca().toString()));
            client.createNamespace(Namespace.of("over_tls"));
            assertThat(client.listNamespaces()).contains(Namespace.of("over_tls"));
        }
    }

    @Test
    void adminConnectorServesTlsToo() throws Exception {
        HttpClient http =
                HttpClient.newBuilder().sslContext(trusting(certificates.ca())).build();
        HttpResponse<String> reply = http.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.adminPort() + "/healthcheck"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).isEqualTo(200);
        assertThat(reply.body()).contains("listener-rest");
    }

    @Test
    void clientNotTrustingTheCaIsRefused() {
        // The JDK's default trust (the public CAs) does not know the throwaway CA.
        HttpClient http = HttpClient.newHttpClient();
        assertThatThrownBy(() -> http.send(
                        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/v1/config"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void plainHttpGetsNoAnswer() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        // Jetty answers plain HTTP on a TLS port with a 400 ("not TLS") or drops it: never the API.
        try {
            HttpResponse<String> reply = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/config"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(reply.statusCode()).isEqualTo(400);
            assertThat(reply.body()).doesNotContain("defaults");
        } catch (java.io.IOException refused) {
            assertThat(refused).isNotNull();
        }
    }

    @Test
    void mismatchedKeyFailsTheStartNamingConnectorAndFiles() {
        assertThatThrownBy(() -> new TreeCatTestServer(
                        directory.resolve("mismatched"), tlsOn(certificates, certificates.otherKey())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TLS for REST connector on port 0: the private key " + certificates.otherKey())
                .hasMessageContaining("does not match the first certificate of " + certificates.certificateChain());
    }

    @Test
    void missingKeyFailsTheStartNamingTheFile() {
        Path missing = directory.resolve("no-such.key");
        assertThatThrownBy(() -> new TreeCatTestServer(directory.resolve("missing"), tlsOn(certificates, missing)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("TLS for REST connector on port 0: cannot read the private key file " + missing
                        + " (NoSuchFileException)");
    }
}
