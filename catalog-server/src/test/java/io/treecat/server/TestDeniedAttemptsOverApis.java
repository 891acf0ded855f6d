package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.lakehouse.auth.DeniedAttempts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The denied-attempts log on a real auth-on server (docs/security.md, "Denied attempts"): a 401 on the Iceberg and
 * native routes, at the token endpoint and on the gRPC port, and a 403 of the lakehouse check and of the native rule,
 * each one JSON record on {@code treecat.audit.denied} with the API, the client address, the principal (or none), the
 * privilege and the object; never the token or the secret; a flood writes at most the limit per second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestDeniedAttemptsOverApis {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Something only a token could contain: no record may hold it. */
    private static final String FORGED = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.forged-marker-7f3a";

    @TempDir
    static Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, String> credentials = new HashMap<>();
    private final Records records = new Records();
    private TreeCatTestServer server;

    /** What the denied-attempts logger writes. */
    private static final class Records extends AppenderBase<ILoggingEvent> {
        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void append(ILoggingEvent event) {
            lines.add(event.getFormattedMessage());
        }

        List<JsonNode> denied() {
            List<JsonNode> found = new ArrayList<>();
            synchronized (lines) {
                for (String line : lines) {
                    try {
                        JsonNode record = JSON.readTree(line);
                        if (record.get("event").asText().equals("denied")) {
                            found.add(record);
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            return found;
        }
    }

    @BeforeAll
    void start() throws Exception {
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(
                keyFile,
                Base64.getEncoder()
                        .encodeToString("treecat-denied-test-signing-key-0123456789".getBytes(StandardCharsets.UTF_8)));
        try (TreeCatTestServer open = new TreeCatTestServer(directory)) {
            for (String name : List.of("admin", "reader")) {
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
        assertThat(send(admin, "POST", "/v1/warehouse/namespaces", "{\"namespace\":[\"sales\"]}")
                        .status())
                .isEqualTo(200);
        assertThat(send(
                                admin,
                                "POST",
                                "/v1/warehouse/namespaces/sales/tables",
                                "{\"name\":\"orders\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
                                        + "[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}")
                        .status())
                .isEqualTo(200);
        assertThat(send(
                                admin,
                                "POST",
                                "/treecat/v1/grants",
                                "{\"principal\": \"reader\", \"privilege\": \"TABLE_READ_DATA\", \"on\": "
                                        + "\"/warehouse/sales\"}")
                        .status())
                .isEqualTo(201);
        records.start();
        Logger denied = (Logger) LoggerFactory.getLogger(DeniedAttempts.LOGGER);
        // The test server logs at WARN; the logger follows the root level unless given its own, as the docs' snippet
        // does.
        denied.setLevel(Level.INFO);
        denied.addAppender(records);
    }

    @AfterAll
    void stop() {
        ((Logger) LoggerFactory.getLogger(DeniedAttempts.LOGGER)).detachAppender(records);
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void forget() throws InterruptedException {
        // A new second: what an earlier test spent of the flood limit does not count here.
        Thread.sleep(1_100);
        records.lines.clear();
    }

    @Test
    void everyRefusalIsOneRecordNamingApiClientPrincipalPrivilegeAndObject() throws Exception {
        // 401s on the REST port: no header, a forged token.
        assertThat(server.get("/v1/warehouse/namespaces").status()).isEqualTo(401);
        assertThat(send(FORGED, "GET", "/treecat/v1/query?q=%2F*", null).status())
                .isEqualTo(401);
        // A wrong secret at the token endpoint.
        String clientId = credentials.get("reader").split(":", 2)[0];
        HttpResponse<String> badSecret = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/oauth/tokens"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&client_id=" + clientId
                                + "&client_secret=wrong-secret-marker-91c2"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(badSecret.statusCode()).isEqualTo(401);
        // 403s: the lakehouse check (a reader committing), the native rule, and a hidden table's 404.
        String reader = token("reader");
        TreeCatTestServer.Reply commit = send(
                reader,
                "POST",
                "/v1/warehouse/namespaces/sales/tables/orders",
                "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"a\":\"b\"}}]}");
        assertThat(commit.status()).as(commit.body()).isEqualTo(403);
        assertThat(send(reader, "GET", "/treecat/v1/commits", null).status()).isEqualTo(403);
        // gRPC: a forged token, and a principal without ALL on the root.
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(FORGED)) {
            assertThatThrownBy(() -> client.get(ObjectPath.of("warehouse"), ReadPoint.LATEST))
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        }
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(reader)) {
            assertThatThrownBy(() -> client.listSnapshots())
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        }

        List<JsonNode> denied = records.denied();
        assertThat(denied)
                .extracting(record ->
                        record.get("status").asInt() + " " + record.get("api").asText() + " "
                                + record.get("principal").asText() + " "
                                + record.path("privilege").asText("-") + " "
                                + record.path("object").asText("-"))
                .containsExactly(
                        "401 iceberg-rest none - -",
                        "401 native-json none - -",
                        "401 iceberg-rest none - -",
                        "403 iceberg-rest reader TABLE_WRITE /warehouse/sales/orders",
                        "403 native-json reader ALL /",
                        "401 grpc none - -",
                        "403 grpc reader ALL /");
        assertThat(denied).allSatisfy(record -> {
            assertThat(record.get("client").asText()).isEqualTo("127.0.0.1");
            assertThat(record.get("reason").asText()).isNotEmpty();
        });
        assertThat(denied.get(3).get("action").asText()).isEqualTo("COMMIT_TABLE");
        String all = String.join("\n", records.lines);
        assertThat(all)
                .doesNotContain(FORGED)
                .doesNotContain("forged-marker")
                .doesNotContain("wrong-secret-marker")
                .doesNotContain(clientId)
                .doesNotContain(reader)
                .doesNotContain("Bearer");
    }

    @Test
    void aRefusedHiveCallIsRecordedAsTheThriftPortsFromItsClient() throws Exception {
        // A client without SASL, served as anonymous (the fixture's hms.allow-unauthenticated), whom the grants deny.
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client thrift = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            assertThatThrownBy(() -> thrift.get_table_req(new GetTableRequest("sales", "orders")))
                    .isInstanceOf(NoSuchObjectException.class);
        } finally {
            socket.close();
        }
        List<JsonNode> denied = records.denied();
        assertThat(denied).isNotEmpty().allSatisfy(record -> {
            assertThat(record.get("api").asText()).isEqualTo("hms");
            assertThat(record.get("client").asText()).isEqualTo("127.0.0.1");
            assertThat(record.get("principal").asText()).isEqualTo("anonymous");
            assertThat(record.get("object").asText()).startsWith("/warehouse/sales");
        });
    }

    @Test
    void aFloodOfBadTokensWritesAtMostTheLimitPerSecond() throws Exception {
        long started = System.nanoTime();
        int sent = 600;
        for (int i = 0; i < sent; i++) {
            assertThat(send(FORGED + i, "GET", "/v1/warehouse/namespaces", null).status())
                    .isEqualTo(401);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long written = records.denied().size();
        // At most PER_SECOND in each second the flood touched.
        assertThat(written).isLessThanOrEqualTo((long) DeniedAttempts.PER_SECOND * ((long) Math.ceil(seconds) + 1));
        if (seconds < 4) {
            assertThat(written).isLessThan(sent);
            // The next denial after the flood reports how many were left out.
            Thread.sleep(1_100);
            assertThat(server.get("/v1/warehouse/namespaces").status()).isEqualTo(401);
            assertThat(String.join("\n", records.lines)).contains("\"event\":\"suppressed\"");
        }
    }

    private String token(String principal) {
        return server.clientCredentialsToken(credentials.get(principal));
    }

    private TreeCatTestServer.Reply send(String token, String method, String path, String body) {
        return server.send(method, path, body, "Authorization", "Bearer " + token);
    }
}
