package io.treecat.lakehouse.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.http.MockWebServerWrapper;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

/**
 * A real OpenID Connect provider for tests: navikt's mock-oauth2-server in-process on loopback, serving discovery, a
 * JWKS and signed RS256 tokens for any issuer id ({@code http://localhost:<port>/<id>}), with a key that can be
 * rotated: after {@link #rotate()} it signs with a new key under a new key id and publishes only that one.
 */
public final class OidcTestIssuer implements AutoCloseable {
    private final RotatingKeys keys = new RotatingKeys();
    private final MockOAuth2Server server;

    private OidcTestIssuer(int port) {
        server = new MockOAuth2Server(new OAuth2Config(
                false, null, null, false, new OAuth2TokenProvider(keys), Set.of(), new MockWebServerWrapper()));
        server.start(port);
    }

    /** A provider on a free port. */
    public static OidcTestIssuer start() {
        return new OidcTestIssuer(0);
    }

    /** A provider on {@code port}: one that was down comes up where it was configured. */
    public static OidcTestIssuer start(int port) {
        return new OidcTestIssuer(port);
    }

    public int port() {
        return server.baseUrl().port();
    }

    /** The {@code iss} of issuer id {@code id}'s tokens. */
    public String issuer(String id) {
        return server.issuerUrl(id).toString();
    }

    /** A token of issuer id {@code id}, signed with the current key. */
    public String token(String id, String subject, String audience, Map<String, Object> claims, long expirySeconds) {
        return server.issueToken(id, subject, audience, claims, expirySeconds).serialize();
    }

    public String token(String id, String subject, String audience) {
        return token(id, subject, audience, Map.of(), 3600);
    }

    /** The key tokens are signed with now (private part included: tests forge with it). */
    public RSAKey currentKey() {
        return keys.current;
    }

    /** Signs from now on with a new key under a new key id; the key set lists only the new one. */
    public void rotate() {
        keys.rotate();
    }

    /** How many key-set requests the provider has answered since the last call. */
    public int keySetRequests() {
        int count = 0;
        while (true) {
            try {
                if (server.takeRequest(200, java.util.concurrent.TimeUnit.MILLISECONDS)
                        .getPath()
                        .endsWith("/jwks")) {
                    count++;
                }
            } catch (RuntimeException e) {
                return count;
            }
        }
    }

    @Override
    public void close() {
        server.shutdown();
    }

    /** One RSA key at a time, whatever issuer id is asked for. */
    private static final class RotatingKeys extends KeyProvider {
        private volatile RSAKey current;
        private int generation;

        RotatingKeys() {
            super(List.of());
            rotate();
        }

        synchronized void rotate() {
            generation++;
            try {
                current = new RSAKeyGenerator(2048).keyID("key-" + generation).generate();
            } catch (JOSEException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public JWK signingKey(String keyId) {
            return current;
        }
    }
}
