package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native path queries filtered row by row (docs/security.md, "Native path queries"), on a real auth-on server over
 * HTTP and gRPC on loopback: a principal who may describe one table sees, of any query, that table and the catalog
 * and namespace on the way to it, and nothing of another table, of {@code /.system} or below its table; a projection
 * does not change what it sees; an object it may not see reads as a missing one; native writes stay for holders of
 * {@code ALL} on the root.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestNativeQueryFiltering {

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
                        .encodeToString("treecat-native-filter-signing-key-0123456".getBytes(StandardCharsets.UTF_8)));
        try (TreeCatTestServer open = new TreeCatTestServer(directory)) {
            for (String name : List.of("admin", "reader", "stranger")) {
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
        String admin = token("admin");
        for (String ns : List.of("sales", "hr")) {
            assertThat(send(admin, "POST", "/v1/warehouse/namespaces", "{\"namespace\":[\"" + ns + "\"]}")
                            .status())
                    .isEqualTo(200);
        }
        for (String table : List.of("sales/tables/orders", "sales/tables/returns", "hr/tables/pay")) {
            String[] parts = table.split("/tables/");
            TreeCatTestServer.Reply created = send(
                    admin,
                    "POST",
                    "/v1/warehouse/namespaces/" + parts[0] + "/tables",
                    "{\"name\":\"" + parts[1] + "\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
                            + "[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}");
            assertThat(created.status()).as(created.body()).isEqualTo(200);
        }
        TreeCatTestServer.Reply granted = send(
                admin,
                "POST",
                "/treecat/v1/grants",
                "{\"principal\": \"reader\", \"privilege\": \"TABLE_READ_METADATA\", \"on\": "
                        + "\"/warehouse/sales/orders\"}");
        assertThat(granted.status()).as(granted.body()).isEqualTo(201);
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aReaderOfOneTableSeesThatTableAndTheWayToItOverHttp() {
        String reader = token("reader");
        assertThat(jsonPaths(reader, "/*", null)).containsExactly("/warehouse");
        assertThat(jsonPaths(reader, "/[obj_id='warehouse']/*", null)).containsExactly("/warehouse/sales");
        assertThat(jsonPaths(reader, "/[obj_id='warehouse']/*/*", null)).containsExactly("/warehouse/sales/orders");
        // A projection leaves out the type: the rows kept are the same.
        assertThat(jsonPaths(reader, "/[obj_id='warehouse']/*/*", "id")).containsExactly("/warehouse/sales/orders");
        // Below the table (its metadata objects) needs TABLE_READ_DATA.
        assertThat(jsonPaths(reader, "/[obj_id='warehouse']/[obj_id='sales']/[obj_id='orders']/*", null))
                .isEmpty();
        // The admin sees everything, /.system included.
        String admin = token("admin");
        assertThat(jsonPaths(admin, "/[obj_id='warehouse']/*/*", null))
                .contains("/warehouse/sales/orders", "/warehouse/sales/returns", "/warehouse/hr/pay");
        assertThat(jsonPaths(admin, "/*", null)).contains("/warehouse", "/.system");
        // A stranger sees nothing at all.
        assertThat(jsonPaths(token("stranger"), "/*", null)).isEmpty();

        // Single objects: one the reader may not see is answered as a missing one.
        assertThat(send(reader, "GET", "/treecat/v1/objects?path=%2Fwarehouse%2Fsales%2Forders", null)
                        .status())
                .isEqualTo(200);
        TreeCatTestServer.Reply hidden = send(reader, "GET", "/treecat/v1/objects?path=%2Fwarehouse%2Fhr%2Fpay", null);
        TreeCatTestServer.Reply missing =
                send(reader, "GET", "/treecat/v1/objects?path=%2Fwarehouse%2Fhr%2Fnope", null);
        assertThat(hidden.status()).isEqualTo(404);
        assertThat(hidden.body()).isEqualTo(missing.body().replace("nope", "pay"));
        assertThat(send(reader, "GET", "/treecat/v1/objects?path=%2F.system", null)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void aReaderOfOneTableSeesThatTableAndTheWayToItOverGrpc() {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(token("reader"))) {
            assertThat(grpcPaths(client, "/*")).containsExactly("/warehouse");
            assertThat(grpcPaths(client, "/[obj_id='warehouse']/*/*")).containsExactly("/warehouse/sales/orders");
            assertThat(client.get(ObjectPath.parse("/warehouse/sales/orders"), ReadPoint.LATEST))
                    .isPresent();
            assertThat(client.get(ObjectPath.parse("/warehouse/hr/pay"), ReadPoint.LATEST))
                    .isEmpty();
            assertThat(client.get(ObjectPath.parse("/.system"), ReadPoint.LATEST))
                    .isEmpty();
        }
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(token("admin"))) {
            assertThat(grpcPaths(client, "/[obj_id='warehouse']/*/*"))
                    .contains("/warehouse/sales/orders", "/warehouse/hr/pay");
        }
    }

    @Test
    void nativeWritesStayForHoldersOfAllOnTheRoot() {
        String reader = token("reader");
        TreeCatTestServer.Reply write = send(
                reader,
                "POST",
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/warehouse/sales/orders/x\", \"value\": {}}]}");
        assertThat(write.status()).isEqualTo(403);
        assertThat(write.body()).contains("PERMISSION_DENIED").contains("ALL");
        assertThat(send(reader, "GET", "/treecat/v1/commits", null).status()).isEqualTo(403);
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(reader)) {
            assertThatThrownBy(() -> client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("forged"), ObjectKind.INNER, BsonDocument.parse("{}")))))
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        }
    }

    private List<String> jsonPaths(String token, String query, String fields) {
        TreeCatTestServer.Reply reply = send(
                token,
                "GET",
                "/treecat/v1/query?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
                        + (fields == null ? "" : "&fields=" + fields),
                null);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<String> paths = new ArrayList<>();
        for (JsonNode row : reply.json().get("rows")) {
            paths.add(row.get("path").asText());
        }
        return paths;
    }

    private static List<String> grpcPaths(TreeCatClient client, String query) {
        try (QueryResults results = client.query(query)) {
            return results.stream()
                    .map(CatalogObject::path)
                    .map(ObjectPath::toString)
                    .toList();
        }
    }

    private String token(String principal) {
        return server.clientCredentialsToken(credentials.get(principal));
    }

    private TreeCatTestServer.Reply send(String token, String method, String path, String body) {
        return server.send(method, path, body, "Authorization", "Bearer " + token);
    }
}
