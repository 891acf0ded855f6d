package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.server.config.TlsConfig;
import io.treecat.server.tls.PemTls;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each bad PEM input is refused with a message naming the listener and the file, never the key's bytes. */
final class TestPemTls {
    private static final String LISTENER = "test listener";

    @TempDir
    static Path directory;

    private static TestCertificates certificates;

    @BeforeAll
    static void create() throws Exception {
        certificates = TestCertificates.create(directory.resolve("tls"));
    }

    private static PemTls load(Path chain, Path key, Path clientCa) {
        return PemTls.load(
                LISTENER,
                new TlsConfig(chain.toString(), key.toString(), clientCa == null ? null : clientCa.toString()));
    }

    private static Path write(String name, String text) throws Exception {
        return Files.writeString(directory.resolve(name), text);
    }

    @Test
    void loadsChainKeyAndClientCa() {
        PemTls pem = load(certificates.certificateChain(), certificates.privateKey(), certificates.ca());
        assertThat(pem.certificateChain()).hasSize(2);
        assertThat(pem.certificateChain().get(0).getSubjectX500Principal().getName())
                .isEqualTo("CN=localhost");
        assertThat(pem.clientCas()).hasValueSatisfying(cas -> assertThat(cas).hasSize(1));
        assertThat(pem.privateKey().getAlgorithm()).isEqualTo("EC");
        assertThat(pem.sslContext().getProtocol()).isEqualTo("TLS");
    }

    @Test
    void encryptedKeyIsRefusedWithTheConversion() throws Exception {
        Path key = write(
                "encrypted.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThatThrownBy(() -> load(certificates.certificateChain(), key, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("TLS for test listener: the private key file " + key
                        + " is encrypted, which TreeCat does not support (openssl pkcs8 -topk8 -nocrypt)");
    }

    @Test
    void pkcs1KeyIsRefusedWithTheConversion() throws Exception {
        Path key = write("pkcs1.key", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> load(certificates.certificateChain(), key, null))
                .hasMessage("TLS for test listener: the private key file " + key
                        + " is RSA PRIVATE KEY (PKCS#1/SEC1), not PKCS#8 (openssl pkcs8 -topk8 -nocrypt)");
    }

    @Test
    void garbledKeyIsRefusedWithoutItsContents() throws Exception {
        Path key =
                write("garbled.key", "-----BEGIN PRIVATE KEY-----\nU2VjcmV0S2V5Qnl0ZXM=\n-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> load(certificates.certificateChain(), key, null))
                .hasMessage(
                        "TLS for test listener: the private key file " + key + " is not an RSA, EC or EdDSA PKCS#8 key")
                .hasNoCause();
    }

    @Test
    void keyFileWithoutPemIsRefused() throws Exception {
        Path key = write("empty.key", "not a key");
        assertThatThrownBy(() -> load(certificates.certificateChain(), key, null))
                .hasMessage("TLS for test listener: the private key file " + key + " holds no PEM block");
    }

    @Test
    void chainThatIsNotPemIsRefused() throws Exception {
        Path chain = write("chain.crt", "no certificate here");
        assertThatThrownBy(() -> load(chain, certificates.privateKey(), null))
                .hasMessageStartingWith("TLS for test listener: the certificate chain file " + chain);
    }

    @Test
    void unreadableClientCaIsRefused() {
        Path missing = directory.resolve("no-ca.crt");
        assertThatThrownBy(() -> load(certificates.certificateChain(), certificates.privateKey(), missing))
                .hasMessage(
                        "TLS for test listener: cannot read the client CA file " + missing + " (NoSuchFileException)");
    }

    @Test
    void keyOfAnotherCertificateIsRefused() {
        assertThatThrownBy(() -> load(certificates.certificateChain(), certificates.otherKey(), null))
                .hasMessage("TLS for test listener: the private key " + certificates.otherKey()
                        + " does not match the first certificate of " + certificates.certificateChain());
    }
}
