package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one TLS shape every listener takes ({@code tls:} under an {@code https-pem} REST connector,
 * {@code grpc.tls}, {@code hms.tls}): a PEM certificate chain (leaf first), its PEM PKCS#8 private key
 * (unencrypted: an encrypted key fails the start, since its password would be one more secret in the
 * configuration), and an optional PEM bundle of client CAs, read and checked but not yet enforced.
 * Kubernetes TLS Secrets ({@code tls.crt}, {@code tls.key}, {@code ca.crt}) mount in this shape as they are.
 */
public final class TlsConfig {
    @NotEmpty
    @JsonProperty("certificate-chain")
    private String certificateChain;

    @NotEmpty
    @JsonProperty("private-key")
    private String privateKey;

    @JsonProperty("client-ca")
    private String clientCa;

    public TlsConfig() {}

    public TlsConfig(String certificateChain, String privateKey, String clientCa) {
        this.certificateChain = certificateChain;
        this.privateKey = privateKey;
        this.clientCa = clientCa;
    }

    public Path certificateChain() {
        return Path.of(certificateChain);
    }

    public Path privateKey() {
        return Path.of(privateKey);
    }

    public Optional<Path> clientCa() {
        return Optional.ofNullable(clientCa).filter(path -> !path.isBlank()).map(Path::of);
    }
}
