package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.server.cli.CliTokens;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens on the gRPC port (docs/security.md), on a real server with {@code auth.enabled}: the project's own
 * Java client without a token, with bad, expired and tampered ones is refused UNAUTHENTICATED with a fixed reason and
 * changes nothing; with a good one it commits, and its principal is the commit's in the commit log. The CLI's token
 * comes from the environment, a credential exchanged at the token endpoint.
 */
final class TestGrpcAuth {
    private static final byte[] KEY = "treecat-grpc-test-signing-key-0123456789".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path directory;

    private static TreeCatTestServer server;

    @BeforeAll
    static void start() throws Exception {
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(keyFile, Base64.getEncoder().encodeToString(KEY));
        server = new TreeCatTestServer(
                directory.resolve("server"),
                ConfigOverride.config("auth.enabled", "true"),
                // With grants in force the native API is for holders of ALL on the root (TestAuthorization).
                ConfigOverride.config("auth.admin-principals", "etl,admin,etl-grpc,cli-user"),
                ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A token as the server issues them (same key, issuer and audience), issued at {@code at}. */
    private static String token(String principal, Instant at) {
        return new BearerTokens(
                        KEY,
                        "treecat",
                        "treecat",
                        Duration.ofMinutes(5),
                        Clock.fixed(at, ZoneOffset.UTC),
                        new SecureRandom())
                .issue(new Principal(principal))
                .token();
    }

    private static WriteSet add(String name) {
        return WriteSet.of(new WriteOp.Add(ObjectPath.of(name), ObjectKind.INNER, BsonDocument.parse("{}")));
    }

    private static void assertRefused(TreeCatClient client, String path, String reason, String token) {
        assertThatThrownBy(() -> client.commit(add(path))).isInstanceOfSatisfying(TreeCatClientException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(e.getMessage()).isEqualTo(reason);
            if (token != null) {
                assertThat(e.getMessage()).doesNotContain(token);
            }
        });
        assertThatThrownBy(() -> client.get(ObjectPath.of(path), ReadPoint.LATEST))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    }

    @Test
    void callsWithoutAGoodTokenAreUnauthenticatedAndChangeNothing() {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            assertRefused(
                    client,
                    "none",
                    "Authentication required: send a bearer token (metadata authorization: Bearer <token>)",
                    null);
            assertRefused(client.withBearerToken("garbage"), "garbage", "The token is not a signed JWT", "garbage");
            String expired = token("etl", Instant.now().minus(Duration.ofHours(1)));
            assertRefused(client.withBearerToken(expired), "expired", "The token has expired", expired);
            String good = token("etl", Instant.now());
            String tampered = good.substring(0, good.length() - 4) + (good.endsWith("AAAA") ? "BBBB" : "AAAA");
            assertRefused(client.withBearerToken(tampered), "tampered", "The token's signature is not valid", tampered);
            String otherKey = new BearerTokens(
                            "another-key-another-key-another-key-0000".getBytes(StandardCharsets.UTF_8),
                            "treecat",
                            "treecat",
                            Duration.ofMinutes(5),
                            Clock.systemUTC(),
                            new SecureRandom())
                    .issue(new Principal("admin"))
                    .token();
            assertRefused(
                    client.withBearerToken(otherKey), "other-key", "The token's signature is not valid", otherKey);

            // The health service stays open, for probes and load balancers.
            HealthCheckResponse health =
                    HealthGrpc.newBlockingStub(client.channel()).check(HealthCheckRequest.getDefaultInstance());
            assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
        String admin = "Bearer " + token("admin", Instant.now());
        for (String path : new String[] {"none", "garbage", "expired", "tampered", "other-key"}) {
            assertThat(server.send("GET", "/treecat/v1/objects?path=%2F" + path, null, "Authorization", admin)
                            .status())
                    .as(path)
                    .isEqualTo(404);
        }
    }

    /** The status a server-reflection call ends with (a listing of the services). */
    private static Status reflectionStatus(TreeCatClient client, String token) throws Exception {
        java.util.concurrent.CompletableFuture<Status> done = new java.util.concurrent.CompletableFuture<>();
        io.grpc.reflection.v1.ServerReflectionGrpc.ServerReflectionStub stub =
                io.grpc.reflection.v1.ServerReflectionGrpc.newStub(client.channel());
        if (token != null) {
            io.grpc.Metadata headers = new io.grpc.Metadata();
            headers.put(
                    io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
                    "Bearer " + token);
            stub = stub.withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers));
        }
        io.grpc.stub.StreamObserver<io.grpc.reflection.v1.ServerReflectionRequest> requests =
                stub.serverReflectionInfo(new io.grpc.stub.StreamObserver<>() {
                    @Override
                    public void onNext(io.grpc.reflection.v1.ServerReflectionResponse response) {}

                    @Override
                    public void onError(Throwable failure) {
                        done.complete(Status.fromThrowable(failure));
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(Status.OK);
                    }
                });
        requests.onNext(io.grpc.reflection.v1.ServerReflectionRequest.newBuilder()
                .setListServices("")
                .build());
        requests.onCompleted();
        return done.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void serverReflectionNeedsATokenToo() throws Exception {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            assertThat(reflectionStatus(client, null).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(reflectionStatus(client, token("etl", Instant.now())).getCode())
                    .isEqualTo(Status.Code.OK);
        }
    }

    @Test
    void aGoodTokensPrincipalIsTheCommitsPrincipal() {
        try (TreeCatClient connected = TreeCatClient.connect(server.grpcTarget())) {
            TreeCatClient client = connected.withBearerToken(token("etl-grpc", Instant.now()));
            client.commit(add("by-etl"));
            client.clone(ObjectPath.of("by-etl"), ObjectPath.of("by-etl-clone"), ReadPoint.LATEST);
            assertThat(client.get(ObjectPath.of("by-etl-clone"), ReadPoint.LATEST))
                    .isPresent();
        }
        JsonNode log = server.send(
                        "GET",
                        "/treecat/v1/commits?limit=2&order=newest",
                        null,
                        "Authorization",
                        "Bearer " + token("admin", Instant.now()))
                .json();
        assertThat(log.get("commits").findValuesAsText("principal")).containsExactly("etl-grpc", "etl-grpc");
    }

    @Test
    void theCliTakesACredentialFromTheEnvironmentAndExchangesIt() throws Exception {
        String admin = "Bearer " + token("admin", Instant.now());
        TreeCatTestServer.Reply created =
                server.send("POST", "/treecat/v1/principals", "{\"name\": \"cli-user\"}", "Authorization", admin);
        assertThat(created.status()).isEqualTo(201);
        String credential = created.json().get("credential").asText();

        String token = CliTokens.fromEnvironment(Map.of(
                        "TREECAT_CREDENTIAL", credential, "TREECAT_HTTP", "http://127.0.0.1:" + server.port() + "/"))
                .orElseThrow();
        assertThat(CliTokens.fromEnvironment(Map.of("TREECAT_TOKEN", token))).contains(token);
        assertThat(CliTokens.fromEnvironment(Map.of())).isEmpty();
        try (TreeCatClient connected = TreeCatClient.connect(server.grpcTarget())) {
            connected.withBearerToken(token).commit(add("by-cli"));
        }
        JsonNode log = server.send("GET", "/treecat/v1/commits?limit=1&order=newest", null, "Authorization", admin)
                .json();
        assertThat(log.get("commits").findValuesAsText("principal")).containsExactly("cli-user");
    }
}
