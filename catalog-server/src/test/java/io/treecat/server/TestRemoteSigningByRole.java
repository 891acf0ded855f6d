package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.ConfigOverride;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote signing told readers from writers (docs/security.md, "Remote signing by role"), on a real auth-on server with
 * S3Proxy as the store: a {@code TABLE_READ_DATA} reader gets GET and HEAD signed and a 403 naming {@code TABLE_WRITE}
 * for PUT, POST and DELETE; a writer gets all signed; a principal who may only describe the table gets 403 naming
 * {@code TABLE_READ_DATA}; one with no rights gets a missing table's 404, word for word; the old fixed route refuses
 * everyone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestRemoteSigningByRole {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SIGN = "/v1/lake/namespaces/scope/tables/t/sign";

    @TempDir
    static Path directory;

    private final Map<String, String> credentials = new HashMap<>();
    private final Map<String, String> tokens = new HashMap<>();
    private S3ProxyServer s3;
    private TreeCatTestServer server;
    private String object;

    @BeforeAll
    void start() throws Exception {
        s3 = new S3ProxyServer();
        s3.createBucket("lake");
        Path secretFile = directory.resolve("lake-s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + S3ProxyServer.ACCESS_KEY + "\nsecret-access-key=" + S3ProxyServer.SECRET_KEY + "\n");
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(
                keyFile,
                Base64.getEncoder()
                        .encodeToString("treecat-signer-role-test-key-0123456789ab".getBytes(StandardCharsets.UTF_8)));
        String prefix = "warehouse.catalogs.lake.";
        List<ConfigOverride> lake = List.of(
                ConfigOverride.config(prefix + "location", "s3://lake/warehouse"),
                ConfigOverride.config(prefix + "properties.s3\\.endpoint", s3.endpoint()),
                ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"),
                ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"),
                ConfigOverride.config(prefix + "credentials.source", "static"),
                ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
        try (TreeCatTestServer open = new TreeCatTestServer(directory, lake.toArray(ConfigOverride[]::new))) {
            for (String name : List.of("admin", "reader", "writer", "viewer", "stranger")) {
                TreeCatTestServer.Reply created = open.post("/treecat/v1/principals", "{\"name\": \"" + name + "\"}");
                assertThat(created.status()).isEqualTo(201);
                credentials.put(name, created.json().get("credential").asText());
            }
        }
        List<ConfigOverride> withAuth = new java.util.ArrayList<>(lake);
        withAuth.add(ConfigOverride.config("auth.enabled", "true"));
        withAuth.add(ConfigOverride.config("auth.admin-principals", "admin"));
        withAuth.add(ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
        server = new TreeCatTestServer(directory, withAuth.toArray(ConfigOverride[]::new));
        String admin = token("admin");
        assertThat(send(admin, "POST", "/v1/lake/namespaces", "{\"namespace\":[\"scope\"]}")
                        .status())
                .isEqualTo(200);
        TreeCatTestServer.Reply table = send(
                admin,
                "POST",
                "/v1/lake/namespaces/scope/tables",
                "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
                        + "[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}");
        assertThat(table.status()).as(table.body()).isEqualTo(200);
        for (String[] grant : List.of(
                new String[] {"reader", "TABLE_READ_DATA"},
                new String[] {"writer", "TABLE_WRITE"},
                new String[] {"viewer", "TABLE_READ_METADATA"})) {
            TreeCatTestServer.Reply granted = send(
                    admin,
                    "POST",
                    "/treecat/v1/grants",
                    "{\"principal\": \"" + grant[0] + "\", \"privilege\": \"" + grant[1]
                            + "\", \"on\": \"/lake/scope\"}");
            assertThat(granted.status()).as(granted.body()).isEqualTo(201);
        }
        object = s3.endpoint() + "/lake/warehouse/scope/t/data/part-0.parquet";
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void aReaderMaySignReadsOnly() {
        for (String method : List.of("GET", "HEAD")) {
            TreeCatTestServer.Reply signed = sign("reader", method);
            assertThat(signed.status()).as(signed.body()).isEqualTo(200);
            assertThat(signed.body()).contains("AWS4-HMAC-SHA256");
        }
        for (String method : List.of("PUT", "POST", "DELETE")) {
            TreeCatTestServer.Reply refused = sign("reader", method);
            assertThat(refused.status()).as(method).isEqualTo(403);
            assertThat(refused.body())
                    .contains("ForbiddenException")
                    .contains("privilege=TABLE_WRITE")
                    .contains("object=/lake/scope/t")
                    .doesNotContain("AWS4-HMAC-SHA256");
        }
    }

    @Test
    void aWriterMaySignReadsAndWrites() {
        for (String method : List.of("GET", "HEAD", "PUT", "POST", "DELETE")) {
            TreeCatTestServer.Reply signed = sign("writer", method);
            assertThat(signed.status()).as(method + " " + signed.body()).isEqualTo(200);
            assertThat(signed.body()).contains("AWS4-HMAC-SHA256");
        }
    }

    @Test
    void aViewerMaySignNothingAndAStrangerIsToldTheTableDoesNotExist() {
        TreeCatTestServer.Reply viewer = sign("viewer", "GET");
        assertThat(viewer.status()).isEqualTo(403);
        assertThat(viewer.body()).contains("privilege=TABLE_READ_DATA");
        assertThat(sign("viewer", "PUT").body()).contains("privilege=TABLE_WRITE");

        TreeCatTestServer.Reply stranger = sign("stranger", "GET");
        TreeCatTestServer.Reply missing = server.send(
                "POST",
                "/v1/lake/namespaces/scope/tables/missing/sign",
                request("GET"),
                "Authorization",
                "Bearer " + token("admin"));
        assertThat(stranger.status()).isEqualTo(404);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(stranger.body()).isEqualTo(missing.body().replace("scope.missing", "scope.t"));
        assertThat(sign("stranger", "PUT").status()).isEqualTo(404);
    }

    @Test
    void theOldFixedRouteRefusesEveryone() {
        for (String principal : List.of("writer", "reader", "stranger")) {
            TreeCatTestServer.Reply refused = send(token(principal), "POST", "/v1/aws/s3/sign", request("GET"));
            assertThat(refused.status()).isEqualTo(403);
            assertThat(refused.body()).contains("names no table").doesNotContain("AWS4-HMAC-SHA256");
        }
    }

    private TreeCatTestServer.Reply sign(String principal, String method) {
        return send(token(principal), "POST", SIGN, request(method));
    }

    private String request(String method) {
        ObjectNode request = JSON.createObjectNode();
        request.put("region", "us-east-1");
        request.put("method", method);
        request.put("uri", object);
        request.putObject("headers").putArray("x-amz-content-sha256").add("UNSIGNED-PAYLOAD");
        request.putObject("properties");
        request.put("provider", "s3");
        return request.toString();
    }

    private String token(String principal) {
        return tokens.computeIfAbsent(principal, this::fetchToken);
    }

    private String fetchToken(String principal) {
        return server.clientCredentialsToken(credentials.get(principal));
    }

    private TreeCatTestServer.Reply send(String token, String method, String path, String body) {
        return server.send(method, path, body, "Authorization", "Bearer " + token);
    }
}
