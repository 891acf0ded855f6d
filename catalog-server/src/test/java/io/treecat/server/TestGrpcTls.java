package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code grpc.tls}: the project's own Java client over TLS trusting the throwaway CA; without it, refused. */
final class TestGrpcTls {
    @TempDir
    static Path directory;

    private static TestCertificates certificates;
    private static TreeCatTestServer server;

    @BeforeAll
    static void start() throws Exception {
        certificates = TestCertificates.create(directory.resolve("tls"));
        server = new TreeCatTestServer(directory.resolve("server"), grpcTls(certificates.privateKey()));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ConfigOverride[] grpcTls(Path key) {
        return new ConfigOverride[] {
            ConfigOverride.config(
                    "grpc.tls.certificate-chain",
                    certificates.certificateChain().toString()),
            ConfigOverride.config("grpc.tls.private-key", key.toString())
        };
    }

    @Test
    void javaClientTrustingTheCa() throws Exception {
        try (TreeCatClient client = TreeCatClient.connect(
                server.grpcTarget(),
                TlsChannelCredentials.newBuilder()
                        .trustManager(certificates.ca().toFile())
                        .build())) {
            client.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.of("tls"), ObjectKind.INNER, BsonDocument.parse("{via: 'grpc'}"))));
        }
        assertThat(server.get("/treecat/v1/objects?path=%2Ftls").status()).isEqualTo(200);
    }

    @Test
    void clientNotTrustingTheCaIsRefused() {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget(), TlsChannelCredentials.create())) {
            assertThatThrownBy(() -> client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("refused"), ObjectKind.INNER, BsonDocument.parse("{}")))))
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.UNAVAILABLE));
        }
        assertThat(server.get("/treecat/v1/objects?path=%2Frefused").status()).isEqualTo(404);
    }

    @Test
    void plaintextClientIsRefused() {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            assertThatThrownBy(() -> client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("plain"), ObjectKind.INNER, BsonDocument.parse("{}")))))
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.UNAVAILABLE));
        }
    }

    @Test
    void mismatchedKeyFailsTheStartNamingListenerAndFile() {
        assertThatThrownBy(
                        () -> new TreeCatTestServer(directory.resolve("mismatched"), grpcTls(certificates.otherKey())))
                .hasMessageContaining("TLS for gRPC listener (grpc.tls): the private key " + certificates.otherKey()
                        + " does not match");
    }
}
