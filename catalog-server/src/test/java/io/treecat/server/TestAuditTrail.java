package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * The commit log is the audit trail (docs/security.md, "Audit"): on a real server with {@code auth.enabled}, a change
 * through each API (Iceberg REST by a granted principal, native JSON and gRPC by an admin, the management routes)
 * appears in {@code GET /treecat/v1/commits} with the principal its token proved, the operation, the paths it touched
 * and its vid; {@code ?principal=} keeps one principal's commits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestAuditTrail {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    static Path directory;

    private final Map<String, String> credentials = new HashMap<>();
    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(
                keyFile,
                Base64.getEncoder()
                        .encodeToString("treecat-audit-test-signing-key-0123456789".getBytes(StandardCharsets.UTF_8)));
        try (TreeCatTestServer open = new TreeCatTestServer(directory)) {
            for (String name : List.of("admin", "etl")) {
                TreeCatTestServer.Reply created = open.post("/treecat/v1/principals", "{\"name\": \"" + name + "\"}");
                assertThat(created.status()).isEqualTo(201);
                credentials.put(name, created.json().get("credential").asText());
            }
        }
        server = new TreeCatTestServer(
                directory,
                ConfigOverride.config("auth.enabled", "true"),
                ConfigOverride.config("auth.admin-principals", "admin"),
                ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyAuthenticatedChangeIsInTheCommitLogWithItsPrincipalOperationPathsAndVid() throws Exception {
        String admin = token("admin");
        long before = newestVid(admin);
        try (RESTCatalog catalog = client("admin")) {
            catalog.createNamespace(Namespace.of("sales"));
        }
        for (String privilege : List.of("TABLE_CREATE", "TABLE_WRITE")) {
            TreeCatTestServer.Reply granted = send(
                    admin,
                    "POST",
                    "/treecat/v1/grants",
                    "{\"principal\": \"etl\", \"privilege\": \"" + privilege + "\", \"on\": \"/warehouse/sales\"}");
            assertThat(granted.status()).as(granted.body()).isEqualTo(201);
        }
        try (RESTCatalog etl = client("etl")) {
            Table orders = etl.createTable(TableIdentifier.of("sales", "orders"), SCHEMA);
            orders.updateProperties().set("owner", "etl").commit();
        }
        TreeCatTestServer.Reply json = send(
                admin,
                "POST",
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/audit_json\", \"value\": {}}]}");
        assertThat(json.status()).as(json.body()).isEqualTo(200);
        long jsonVid = json.json().get("vid").asLong();
        TreeCatTestServer.Reply cloned =
                send(admin, "POST", "/treecat/v1/clone", "{\"source\": \"/audit_json\", \"target\": \"/audit_copy\"}");
        assertThat(cloned.status()).as(cloned.body()).isEqualTo(200);
        long grpcVid;
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(admin)) {
            grpcVid = client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("audit_grpc"), ObjectKind.INNER, BsonDocument.parse("{}"))))
                    .vid();
        }

        List<JsonNode> commits = commitsSince(admin, before, null);
        assertThat(commits)
                .extracting(commit -> commit.path("principal").asText("-") + " "
                        + commit.get("interface").asText() + "."
                        + commit.get("operation").asText())
                .containsExactly(
                        "admin rest.createNamespace",
                        "admin auth.manageGrants",
                        "admin auth.manageGrants",
                        "etl rest.createTable",
                        "etl rest.commitTable",
                        "admin native.commit",
                        "admin native.clone",
                        "admin native.commit");
        // With the request's idempotency key, which Iceberg's client sends and the same commit records.
        assertThat(paths(commits.get(0))).contains("/warehouse/sales");
        assertThat(paths(commits.get(1))).anyMatch(path -> path.startsWith("/.system/"));
        assertThat(paths(commits.get(3))).contains("/warehouse/sales/orders");
        assertThat(paths(commits.get(4))).contains("/warehouse/sales/orders");
        assertThat(commits.get(5).get("vid").asLong()).isEqualTo(jsonVid);
        assertThat(paths(commits.get(5))).containsExactly("/audit_json");
        assertThat(paths(commits.get(6))).contains("/audit_copy");
        assertThat(commits.get(7).get("vid").asLong()).isEqualTo(grpcVid);
        assertThat(paths(commits.get(7))).containsExactly("/audit_grpc");
        // Vids rise with the log, one per commit.
        for (int i = 1; i < commits.size(); i++) {
            assertThat(commits.get(i).get("vid").asLong())
                    .isGreaterThan(commits.get(i - 1).get("vid").asLong());
        }

        // One principal's trail.
        assertThat(commitsSince(admin, before, "etl"))
                .extracting(commit -> commit.get("operation").asText())
                .containsExactly("createTable", "commitTable");
        assertThat(commitsSince(admin, before, "nobody")).isEmpty();
    }

    private List<JsonNode> commitsSince(String token, long after, String principal) {
        List<JsonNode> found = new ArrayList<>();
        String page = null;
        do {
            TreeCatTestServer.Reply reply = send(
                    token,
                    "GET",
                    "/treecat/v1/commits?since=" + (after + 1)
                            + (principal == null ? "" : "&principal=" + principal)
                            + (page == null ? "" : "&pageToken=" + URLEncoder.encode(page, StandardCharsets.UTF_8)),
                    null);
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            reply.json().get("commits").forEach(found::add);
            page = reply.json().path("nextPageToken").asText(null);
        } while (page != null);
        return found;
    }

    private long newestVid(String token) {
        TreeCatTestServer.Reply reply = send(token, "GET", "/treecat/v1/commits?limit=1&order=newest", null);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode commits = reply.json().get("commits");
        return commits.isEmpty() ? 0 : commits.get(0).get("vid").asLong();
    }

    private static List<String> paths(JsonNode commit) {
        List<String> paths = new ArrayList<>();
        commit.path("changes").forEach(change -> paths.add(change.get("path").asText()));
        commit.path("prefixes").forEach(prefix -> paths.add(prefix.asText()));
        return paths;
    }

    private RESTCatalog client(String principal) {
        return server.icebergClient(
                "treecat",
                Map.of(
                        "credential",
                        credentials.get(principal),
                        "rest.auth.type",
                        "oauth2",
                        "oauth2-server-uri",
                        "http://127.0.0.1:" + server.port() + "/v1/oauth/tokens"));
    }

    private String token(String principal) {
        return server.clientCredentialsToken(credentials.get(principal));
    }

    private TreeCatTestServer.Reply send(String token, String method, String path, String body) {
        return server.send(method, path, body, "Authorization", "Bearer " + token);
    }
}
