package io.treecat.benchmarks.iceberg;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;

/**
 * An OpenID Connect issuer on loopback for {@link AuthOverheadBenchmark}: a discovery document, a JWKS with one RSA
 * key, and RS256 access tokens signed by nimbus-jose-jwt (the library TreeCat checks them with). The server's side of
 * the check is the one a real provider's token takes (discovery, the JWKS fetched and cached, RS256, the claims);
 * only the provider is small. The tests use navikt's mock-oauth2-server, whose Kotlin tree would not converge with
 * this module's compile-scope dependencies.
 */
final class LoopbackIssuer implements AutoCloseable {
    private final HttpServer server;
    private final RSAKey key;
    private final String issuer;

    private LoopbackIssuer(HttpServer server, RSAKey key) {
        this.server = server;
        this.key = key;
        this.issuer = "http://127.0.0.1:" + server.getAddress().getPort() + "/default";
    }

    static LoopbackIssuer start() throws IOException, JOSEException {
        RSAKey key =
                new RSAKeyGenerator(2048).keyID(UUID.randomUUID().toString()).generate();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        LoopbackIssuer issuer = new LoopbackIssuer(server, key);
        String jwks = new JWKSet(key.toPublicJWK()).toString();
        String discovery = "{\"issuer\":\"" + issuer.issuer + "\",\"jwks_uri\":\"" + issuer.issuer + "/jwks\"}";
        server.createContext("/default/.well-known/openid-configuration", exchange -> json(exchange, discovery));
        server.createContext("/default/jwks", exchange -> json(exchange, jwks));
        server.start();
        return issuer;
    }

    private static void json(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    String issuer() {
        return issuer;
    }

    /** An RS256 access token for {@code subject} and {@code audience}, valid for {@code lifetime}. */
    String token(String subject, String audience, Duration lifetime) throws JOSEException {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256)
                        .keyID(key.getKeyID())
                        .type(JOSEObjectType.JWT)
                        .build(),
                new JWTClaimsSet.Builder()
                        .issuer(issuer)
                        .subject(subject)
                        .audience(audience)
                        .issueTime(Date.from(now))
                        .notBeforeTime(Date.from(now))
                        .expirationTime(Date.from(now.plus(lifetime)))
                        .jwtID(UUID.randomUUID().toString())
                        .build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
