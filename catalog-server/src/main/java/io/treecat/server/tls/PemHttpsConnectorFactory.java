package io.treecat.server.tls;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.dropwizard.jetty.HttpsConnectorFactory;
import io.treecat.server.config.TlsConfig;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * {@code type: https-pem}: Dropwizard's HTTPS connector (all its cipher, protocol and SNI settings) with the key
 * and chain read from the PEM files of {@link TlsConfig} into a KeyStore in memory, so a Kubernetes TLS Secret is
 * mounted as it is instead of converted into a password-protected keystore file. Used for the application and the
 * admin connectors alike.
 */
@JsonTypeName("https-pem")
public class PemHttpsConnectorFactory extends HttpsConnectorFactory {
    @Valid
    @NotNull
    @JsonProperty("tls")
    private TlsConfig tls;

    /** Which connector, for its errors (the application or the admin port). */
    @JsonProperty("name")
    private String name = "REST";

    public TlsConfig tls() {
        return tls;
    }

    public void setTls(TlsConfig tls) {
        this.tls = tls;
    }

    @Override
    public boolean isValidKeyStorePath() {
        // The key comes from tls.private-key, never from a keystore file.
        return true;
    }

    @Override
    public boolean isValidKeyStorePassword() {
        // The KeyStore is built in memory from an unencrypted PEM key: no password to configure.
        return true;
    }

    @Override
    protected SslContextFactory.Server configureSslContextFactory(SslContextFactory factory) {
        SslContextFactory.Server server = super.configureSslContextFactory(factory);
        PemTls pem = PemTls.load(name + " connector on port " + getPort(), tls);
        server.setKeyStore(pem.keyStore());
        server.setKeyStoreType("PKCS12");
        server.setKeyStorePassword(pem.keyStorePassword());
        server.setKeyManagerPassword(pem.keyStorePassword());
        return server;
    }
}
