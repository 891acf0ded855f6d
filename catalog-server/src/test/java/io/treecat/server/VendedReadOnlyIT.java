package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vended credentials follow the caller's grants (docs/security.md, "Vended credentials"), against moto's S3 and STS and
 * an auth-on server: a writer's {@code AssumeRole} carries the read-write session policy, a reader's (only {@code
 * TABLE_READ_DATA}) the read-only one without {@code Put} or {@code Delete}, and a caller who may only describe the
 * table gets none (its credentials route answers 403). STS calls pass through a {@link TcpRelay}, so the test reads the
 * policy each one carried.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VendedReadOnlyIT {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final String DELEGATION = "X-Iceberg-Access-Delegation";
    private static final Pattern POLICY = Pattern.compile("Policy=([^&\\s]+)");

    @TempDir
    static Path directory;

    private MotoServer moto;
    private TcpRelay store;
    private TcpRelay sts;
    private TreeCatTestServer server;
    private final Map<String, String> credentials = new HashMap<>();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        moto = new MotoServer(directory, "lake");
        store = new TcpRelay(moto.port());
        sts = new TcpRelay(moto.port());
        Path secretFile = directory.resolve("lake-s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + moto.accessKeyId() + "\nsecret-access-key=" + moto.secretAccessKey() + "\n");
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(
                keyFile,
                Base64.getEncoder()
                        .encodeToString("treecat-vended-test-signing-key-0123456789".getBytes(StandardCharsets.UTF_8)));
        List<ConfigOverride> overrides = new ArrayList<>();
        String prefix = "warehouse.catalogs.lake.";
        overrides.add(ConfigOverride.config(prefix + "location", "s3://lake/warehouse"));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.endpoint", store.endpoint()));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"));
        overrides.add(ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.retry\\.num-retries", "0"));
        overrides.add(ConfigOverride.config(prefix + "credentials.source", "static"));
        overrides.add(ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
        overrides.add(ConfigOverride.config(prefix + "credentials.role-arn", moto.roleArn()));
        overrides.add(ConfigOverride.config(prefix + "credentials.sts-endpoint", sts.endpoint()));
        Path data = directory.resolve("server");
        try (TreeCatTestServer open = new TreeCatTestServer(data, overrides.toArray(ConfigOverride[]::new))) {
            for (String name : List.of("admin", "reader", "viewer")) {
                TreeCatTestServer.Reply created = open.post("/treecat/v1/principals", "{\"name\": \"" + name + "\"}");
                assertThat(created.status()).isEqualTo(201);
                credentials.put(name, created.json().get("credential").asText());
            }
        }
        overrides.add(ConfigOverride.config("auth.enabled", "true"));
        overrides.add(ConfigOverride.config("auth.admin-principals", "admin"));
        overrides.add(ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
        server = new TreeCatTestServer(data, overrides.toArray(ConfigOverride[]::new));

        String admin = token("admin");
        assertThat(send(admin, "POST", "/v1/lake/namespaces", "{\"namespace\":[\"ns\"]}", null)
                        .status())
                .isEqualTo(200);
        TreeCatTestServer.Reply created = send(
                admin,
                "POST",
                "/v1/lake/namespaces/ns/tables",
                "{\"name\":\"t\",\"schema\":" + org.apache.iceberg.SchemaParser.toJson(SCHEMA) + "}",
                null);
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        grant(admin, "reader", "TABLE_READ_DATA");
        grant(admin, "viewer", "TABLE_READ_METADATA");
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable closeable : new AutoCloseable[] {server, sts, store, moto}) {
            if (closeable != null) {
                closeable.close();
            }
        }
    }

    private void grant(String admin, String principal, String privilege) {
        TreeCatTestServer.Reply granted = send(
                admin,
                "POST",
                "/treecat/v1/grants",
                "{\"principal\": \"" + principal + "\", \"privilege\": \"" + privilege + "\", \"on\": \"/lake/ns\"}",
                null);
        assertThat(granted.status()).as(granted.body()).isEqualTo(201);
    }

    private String token(String principal) throws Exception {
        String[] parts = credentials.get(principal).split(":", 2);
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&client_id=" + parts[0]
                        + "&client_secret=" + URLEncoder.encode(parts[1], StandardCharsets.UTF_8)))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return TreeCatTestServer.JSON
                .readTree(response.body())
                .get("access_token")
                .asText();
    }

    private TreeCatTestServer.Reply send(String token, String method, String path, String body, String delegation) {
        return delegation == null
                ? server.send(method, path, body, "Authorization", "Bearer " + token)
                : server.send(method, path, body, "Authorization", "Bearer " + token, DELEGATION, delegation);
    }

    /** The session policy of the one AssumeRole sent since {@code from}. */
    private String policySince(int from) {
        List<String> policies = new ArrayList<>();
        Matcher policy = POLICY.matcher(sts.sent().substring(from));
        while (policy.find()) {
            policies.add(URLDecoder.decode(policy.group(1), StandardCharsets.UTF_8));
        }
        assertThat(policies).hasSize(1);
        return policies.get(0);
    }

    private static JsonNode storageConfig(TreeCatTestServer.Reply load) {
        return load.json().get("storage-credentials").get(0).get("config");
    }

    @Test
    void aWriterGetsReadWriteAReaderReadOnlyAViewerNone() throws Exception {
        int from = sts.sent().length();
        TreeCatTestServer.Reply writer =
                send(token("admin"), "GET", "/v1/lake/namespaces/ns/tables/t", null, "vended-credentials");
        assertThat(writer.status()).as(writer.body()).isEqualTo(200);
        assertThat(storageConfig(writer).has("s3.session-token")).isTrue();
        assertThat(policySince(from)).contains("s3:GetObject", "s3:PutObject", "s3:DeleteObject");

        from = sts.sent().length();
        TreeCatTestServer.Reply reader =
                send(token("reader"), "GET", "/v1/lake/namespaces/ns/tables/t", null, "vended-credentials");
        assertThat(reader.status()).as(reader.body()).isEqualTo(200);
        assertThat(storageConfig(reader).has("s3.session-token")).isTrue();
        assertThat(policySince(from))
                .contains("s3:GetObject", "arn:aws:s3:::lake/warehouse/ns/t/*")
                .doesNotContain("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");
        TreeCatTestServer.Reply refreshed =
                send(token("reader"), "GET", "/v1/lake/namespaces/ns/tables/t/credentials", null, null);
        assertThat(refreshed.status()).as(refreshed.body()).isEqualTo(200);

        from = sts.sent().length();
        String viewer = token("viewer");
        TreeCatTestServer.Reply described =
                send(viewer, "GET", "/v1/lake/namespaces/ns/tables/t", null, "vended-credentials");
        assertThat(described.status()).as(described.body()).isEqualTo(200);
        assertThat(described.body()).doesNotContain("s3.session-token", "storage-credentials\":[{");
        TreeCatTestServer.Reply refused =
                send(viewer, "GET", "/v1/lake/namespaces/ns/tables/t/credentials", null, null);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("ForbiddenException", "TABLE_READ_DATA");
        assertThat(sts.sent().substring(from)).doesNotContain("AssumeRole");
    }
}
