package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens of an external OpenID Connect issuer on a real server (docs/security.md, "External OpenID Connect issuers"):
 * navikt's mock-oauth2-server on loopback serves discovery, the JWKS and the tokens. Iceberg's own {@code RESTCatalog}
 * with {@code token=<the issuer's token>} creates, commits and loads, and the commit log names the principal from the
 * configured claim; every forged, stale or foreign token is 401 (never 500) and changes nothing; an issuer down at
 * start leaves the server up, refusing its tokens until it answers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestOidcAuth {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    static final String AUDIENCE = "treecat-api";

    @TempDir
    static Path directory;

    private MockOAuth2Server idp;
    private TreeCatTestServer server;
    private String issuer;

    @BeforeAll
    void start() throws Exception {
        idp = new MockOAuth2Server();
        idp.start();
        issuer = idp.issuerUrl("default").toString();
        server = new TreeCatTestServer(
                directory.resolve("up"),
                oidc(directory.resolve("up.yml"), issuer, "1 second"),
                ConfigOverride.config("auth.enabled", "true"),
                // With grants in force the native API is for holders of ALL on the root (TestAuthorization).
                ConfigOverride.config("auth.admin-principals", "idp:alice,idp:auditor,idp:grpc-job"));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
        idp.shutdown();
    }

    /**
     * The embedded configuration with auth on and one external issuer, named {@code idp}, reading roles from
     * Keycloak's claim (a list entry: Dropwizard's overrides cannot add one, so it is written into a file).
     */
    static String oidc(Path file, String issuer, String retryInterval) throws java.io.IOException {
        String embedded;
        try (java.io.InputStream in = TestOidcAuth.class.getClassLoader().getResourceAsStream("treecat-default.yml")) {
            embedded = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String issuers = "  oidc:\n"
                + "    - name: idp\n"
                + "      issuer: \"" + issuer + "\"\n"
                + "      audience: " + AUDIENCE + "\n"
                + "      roles-claim: realm_access.roles\n"
                + "      retry-interval: " + retryInterval + "\n";
        assertThat(embedded).contains("  oidc: []\n");
        java.nio.file.Files.createDirectories(file.getParent());
        java.nio.file.Files.writeString(file, embedded.replace("  oidc: []\n", issuers));
        return file.toString();
    }

    private String token(String subject) {
        return idp.issueToken(
                        "default",
                        subject,
                        AUDIENCE,
                        Map.of("realm_access", Map.of("roles", List.of("engineers"))),
                        3600)
                .serialize();
    }

    private long newestVid(String token) {
        TreeCatTestServer.Reply reply =
                server.send("GET", "/treecat/v1/query?q=%2F*&limit=1", null, "Authorization", "Bearer " + token);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().get("vid").asLong();
    }

    @Test
    void icebergsClientWithAnIssuersTokenCommitsAndTheLogNamesItsPrincipal() {
        try (RESTCatalog catalog = server.icebergClient("treecat", Map.of("token", token("alice")))) {
            catalog.createNamespace(Namespace.of("oidc"));
            Table table = catalog.createTable(TableIdentifier.of("oidc", "t"), SCHEMA);
            table.updateProperties().set("owner", "alice").commit();
            assertThat(catalog.loadTable(TableIdentifier.of("oidc", "t")).properties())
                    .containsEntry("owner", "alice");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }

        JsonNode log = server.send(
                        "GET",
                        "/treecat/v1/commits?limit=5&order=newest",
                        null,
                        "Authorization",
                        "Bearer " + token("auditor"))
                .json();
        assertThat(log.get("commits").findValuesAsText("principal"))
                .as(log.toString())
                .contains("idp:alice")
                .doesNotContain("alice", "anonymous");
    }

    @Test
    void everyForgedStaleOrForeignTokenIs401AndChangesNothing() throws Exception {
        String good = token("alice");
        long vid = newestVid(good);
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .audience(AUDIENCE)
                .subject("admin")
                .expirationTime(Date.from(now.plusSeconds(600)))
                .build();
        RSAKey published = publishedKey();
        SignedJWT confused = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        confused.sign(new MACSigner(published.toRSAPublicKey().getEncoded()));
        RSAKey rogue = new RSAKeyGenerator(2048).keyID("rogue").generate();
        SignedJWT unknownKid = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("rogue").build(), claims);
        unknownKid.sign(new RSASSASigner(rogue));
        SignedJWT sameKidOtherKey = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256)
                        .keyID(published.getKeyID())
                        .build(),
                claims);
        sameKidOtherKey.sign(new RSASSASigner(rogue));
        String[] parts = good.split("\\.");
        String tampered = parts[0] + "."
                + Base64URL.encode(new String(Base64URL.from(parts[1]).decode(), StandardCharsets.UTF_8)
                        .replace("\"alice\"", "\"admin\""))
                + "." + parts[2];

        Map<String, String> tokens = new LinkedHashMap<>();
        tokens.put(
                idp.issueToken("default", "alice", "another-api", Map.of(), 3600)
                        .serialize(),
                "The token's audience is not this server");
        tokens.put(
                idp.issueToken("other", "alice", AUDIENCE, Map.of(), 3600).serialize(),
                "The token's issuer is not trusted");
        tokens.put(idp.issueToken("default", "alice", AUDIENCE, Map.of(), -120).serialize(), "The token has expired");
        tokens.put(
                idp.issueToken("default", "alice", AUDIENCE, Map.of("nbf", Date.from(now.plusSeconds(600))), 3600)
                        .serialize(),
                "The token is not valid yet");
        tokens.put(tampered, "The token's signature is not valid");
        tokens.put(sameKidOtherKey.serialize(), "The token's signature is not valid");
        tokens.put(new PlainJWT(claims).serialize(), "The token is not a signed JWT");
        tokens.put(confused.serialize(), "The token's algorithm is not accepted for its issuer");
        tokens.put(unknownKid.serialize(), "The token's key is not one of its issuer's");
        for (Map.Entry<String, String> token : tokens.entrySet()) {
            TreeCatTestServer.Reply reply = server.send(
                    "POST",
                    "/v1/warehouse/namespaces",
                    "{\"namespace\": [\"intruder\"]}",
                    "Authorization",
                    "Bearer " + token.getKey());
            assertThat(reply.status())
                    .as(token.getValue() + ": " + reply.body())
                    .isEqualTo(401);
            assertThat(reply.error().get("message").asText()).isEqualTo(token.getValue());
            assertThat(reply.header("WWW-Authenticate"))
                    .isEqualTo("Bearer realm=\"treecat\", error=\"invalid_token\", error_description=\""
                            + token.getValue() + "\"");
            assertThat(reply.body()).doesNotContain(token.getKey());
        }
        assertThat(newestVid(good)).isEqualTo(vid);
    }

    @Test
    void anIssuerDownAtStartLeavesTheServerUpAndIsUsedOnceItAnswers() throws Exception {
        MockOAuth2Server later = new MockOAuth2Server();
        later.start();
        int port = later.baseUrl().port();
        InetAddress host = InetAddress.getByName(later.baseUrl().host());
        String laterIssuer = later.issuerUrl("default").toString();
        String early =
                later.issueToken("default", "bob", AUDIENCE, Map.of(), 3600).serialize();
        later.shutdown();
        // The issuer's port stays ours while it is down: left free, any socket could take it in the seconds the
        // server starts (CI once saw "Address already in use" when the issuer came back).
        RefusingPort down = new RefusingPort(new InetSocketAddress(host, port));

        try (down;
                TreeCatTestServer started = new TreeCatTestServer(
                        directory.resolve("down"),
                        oidc(directory.resolve("down.yml"), laterIssuer, "200ms"),
                        ConfigOverride.config("auth.enabled", "true"))) {
            TreeCatTestServer.Reply refused =
                    started.send("GET", "/v1/config", null, "Authorization", "Bearer " + early);
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.error().get("message").asText()).isEqualTo("The token's issuer is unavailable");
            assertThat(started.admin("/healthcheck").status()).isEqualTo(200);

            down.close();
            MockOAuth2Server up = new MockOAuth2Server();
            up.start(host, port);
            try {
                String fresh = up.issueToken("default", "bob", AUDIENCE, Map.of(), 3600)
                        .serialize();
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                int status;
                do {
                    Thread.sleep(250);
                    status = started.send("GET", "/v1/config", null, "Authorization", "Bearer " + fresh)
                            .status();
                } while (status != 200 && System.nanoTime() < deadline);
                assertThat(status).as("the issuer's token once it answers").isEqualTo(200);
            } finally {
                up.shutdown();
            }
        }
    }

    @Test
    void theGrpcPortTakesTheSameIssuersTokens() {
        try (TreeCatClient connected = TreeCatClient.connect(server.grpcTarget())) {
            connected
                    .withBearerToken(token("grpc-job"))
                    .commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("by-grpc-job"), ObjectKind.INNER, BsonDocument.parse("{}"))));
            assertThatThrownBy(() -> connected
                            .withBearerToken(idp.issueToken("default", "grpc-job", "another-api", Map.of(), 3600)
                                    .serialize())
                            .get(ObjectPath.of("by-grpc-job"), ReadPoint.LATEST))
                    .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                        assertThat(e.getMessage()).isEqualTo("The token's audience is not this server");
                    });
        }
        JsonNode log = server.send(
                        "GET",
                        "/treecat/v1/commits?limit=1&order=newest",
                        null,
                        "Authorization",
                        "Bearer " + token("auditor"))
                .json();
        assertThat(log.get("commits").findValuesAsText("principal")).containsExactly("idp:grpc-job");
    }

    @Test
    void aBadIssuerEntryStopsTheStartNamingTheEntryAndTheField() throws Exception {
        String configuration = oidc(directory.resolve("bad.yml"), "http://idp.example.com/realms/lake", "1 second");

        assertThatThrownBy(() -> new TreeCatTestServer(
                                directory.resolve("bad"), configuration, ConfigOverride.config("auth.enabled", "true"))
                        .close())
                .hasStackTraceContaining("auth.oidc[0] (idp): issuer must be https:// (http:// is accepted only on a"
                        + " loopback address): http://idp.example.com/realms/lake");
    }

    /** The issuer's published key, as anyone can fetch it: the "secret" of an algorithm-confusion forgery. */
    private RSAKey publishedKey() throws Exception {
        HttpResponse<String> jwks = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(idp.jwksUrl("default").toString()))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return JWKSet.parse(jwks.body()).getKeys().get(0).toRSAKey();
    }

    /**
     * A bound port on which nothing answers: every connection is reset as soon as it is accepted, as if its server
     * were down, and no other socket can take the port until it is closed.
     */
    private static final class RefusingPort implements AutoCloseable {
        private final ServerSocket socket;
        private final Thread resetting;

        RefusingPort(InetSocketAddress address) throws IOException {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(address);
            resetting = new Thread(this::resetEveryConnection, "refusing-port-" + address.getPort());
            resetting.setDaemon(true);
            resetting.start();
        }

        private void resetEveryConnection() {
            while (!socket.isClosed()) {
                try (Socket accepted = socket.accept()) {
                    // Linger 0 resets instead of closing, so no TIME_WAIT keeps the port from the issuer's return.
                    accepted.setSoLinger(true, 0);
                } catch (IOException e) {
                    // From accept once close() is called (the loop ends), or from one connection (the next is taken).
                }
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            try {
                resetting.join(Duration.ofSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
