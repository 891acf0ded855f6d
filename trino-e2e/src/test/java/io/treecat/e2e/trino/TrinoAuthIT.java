package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Trino's Iceberg connector with {@code iceberg.rest-catalog.security=OAUTH2} on a TreeCat with {@code auth.enabled}
 * (issue 18). One Trino, three catalogs, each its own principal:
 *
 * <ul>
 *   <li>{@value #WRITER}: {@code iceberg.rest-catalog.oauth2.credential=<client id>:<secret>} of a built-in principal
 *       with grants to create, write and drop in the catalog {@code warehouse};
 *   <li>{@value #READER}: a built-in principal with {@code TABLE_READ_DATA} on one schema: it selects, and its INSERT,
 *       DROP TABLE and CREATE TABLE fail with TreeCat's 403 message in Trino's error;
 *   <li>{@value #IDP}: {@code iceberg.rest-catalog.oauth2.token=} an external issuer's access token (navikt's
 *       mock-oauth2-server in this JVM), principal {@code idp:trino-job}, granted through the native API.
 * </ul>
 *
 * <p>Its own TreeCat and Trino, not {@link TrinoEnvironmentExtension}'s shared unauthenticated pair. The principals are
 * made while auth is off, then TreeCat restarts with auth on (docs/security.md, "Turning it on").
 */
class TrinoAuthIT {
    private static final String WRITER = "writer";
    private static final String READER = "reader";
    private static final String IDP = "idp";
    private static final String SCHEMA = "trino_auth";
    private static final String AUDIENCE = "treecat";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static MockOAuth2Server idp;
    private static TreeCatServer treeCat;
    private static TrinoEnvironment trino;
    private static String adminCredential;

    @BeforeAll
    static void start() throws Exception {
        Path directory = Files.createTempDirectory(
                Files.createDirectories(Path.of("target/e2e-runs").toAbsolutePath()), "auth-");
        String writerCredential;
        String readerCredential;
        try (TreeCatServer open = TreeCatServer.start(directory)) {
            adminCredential = createPrincipal(open.restUri(), "admin");
            writerCredential = createPrincipal(open.restUri(), "trino-writer");
            readerCredential = createPrincipal(open.restUri(), "trino-reader");
        }
        idp = new MockOAuth2Server();
        idp.start();
        treeCat = TreeCatServer.start(
                directory,
                Map.of(
                        "TREECAT_AUTH_ENABLED", "true",
                        "TREECAT_AUTH_ADMIN_PRINCIPALS", "[admin]",
                        // Trino's Hive catalogs are not configured here; the Thrift port is on loopback.
                        "TREECAT_HMS_ALLOW_UNAUTHENTICATED", "true"),
                "  oidc:\n"
                        + "    - name: idp\n"
                        + "      issuer: \"" + idp.issuerUrl("default") + "\"\n"
                        + "      audience: " + AUDIENCE + "\n");
        for (String grantee : List.of("trino-writer", "idp:trino-job")) {
            for (String privilege : List.of("NAMESPACE_CREATE", "TABLE_CREATE", "TABLE_WRITE", "TABLE_DROP")) {
                grant(grantee, privilege, "/warehouse");
            }
        }
        String idpToken =
                idp.issueToken("default", "trino-job", AUDIENCE, Map.of(), 3600).serialize();

        URI rest = treeCat.restUri();
        trino = TrinoEnvironment.startOn(
                rest,
                Map.of(
                        WRITER, catalog(rest, Map.of("iceberg.rest-catalog.oauth2.credential", writerCredential)),
                        READER, catalog(rest, Map.of("iceberg.rest-catalog.oauth2.credential", readerCredential)),
                        // An issuer's token is refreshed at the issuer, not by TreeCat's token exchange.
                        IDP,
                                catalog(
                                        rest,
                                        Map.of(
                                                "iceberg.rest-catalog.oauth2.token",
                                                idpToken,
                                                "iceberg.rest-catalog.oauth2.token-refresh-enabled",
                                                "false"))));
    }

    /** The Iceberg REST catalog docs/engines.md shows for a server with auth on. */
    private static Map<String, String> catalog(URI rest, Map<String, String> auth) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("fs.native-local.enabled", "true");
        properties.put("local.location", "/");
        properties.put("iceberg.rest-catalog.security", "OAUTH2");
        properties.put(
                "iceberg.rest-catalog.oauth2.server-uri",
                rest.resolve("/v1/oauth/tokens").toString());
        properties.putAll(auth);
        return TrinoEnvironment.icebergRestCatalog(rest, properties);
    }

    @AfterAll
    static void stop() {
        try {
            if (trino != null) {
                trino.close();
            }
        } finally {
            try {
                if (treeCat != null) {
                    treeCat.close();
                }
            } finally {
                if (idp != null) {
                    idp.shutdown();
                }
            }
        }
    }

    @Test
    void aWriterCreatesInsertsAndSelectsAndAReaderSelectsButIsForbiddenToChange() throws Exception {
        trino.execute("CREATE SCHEMA " + WRITER + "." + SCHEMA);
        trino.execute("CREATE TABLE " + WRITER + "." + SCHEMA + ".orders (id BIGINT, region VARCHAR)");
        assertThat(trino.execute(
                        "INSERT INTO " + WRITER + "." + SCHEMA + ".orders VALUES (1, 'EU'), (2, 'US'), (3, 'EU')"))
                .isEqualTo(3);
        assertThat(trino.query(
                        "SELECT region, count(*) FROM " + WRITER + "." + SCHEMA + ".orders GROUP BY region ORDER BY 1"))
                .containsExactly(List.of("EU", 2L), List.of("US", 1L));

        grant("trino-reader", "TABLE_READ_DATA", "/warehouse/" + SCHEMA);
        String orders = READER + "." + SCHEMA + ".orders";
        assertThat(trino.query("SHOW TABLES FROM " + READER + "." + SCHEMA)).contains(List.of("orders"));
        assertThat(trino.query("SELECT count(*) FROM " + orders + " WHERE region = 'EU'"))
                .containsExactly(List.of(2L));
        assertThat(trino.query("EXPLAIN SELECT id FROM " + orders + " WHERE id > 1")
                        .get(0)
                        .get(0)
                        .toString())
                .contains("orders");

        List<List<Object>> snapshots =
                trino.query("SELECT snapshot_id FROM " + WRITER + "." + SCHEMA + ".\"orders$snapshots\"");
        String table = "/warehouse/" + SCHEMA + "/orders";
        assertForbidden("INSERT INTO " + orders + " VALUES (4, 'APAC')", "TABLE_WRITE", table);
        assertForbidden("DROP TABLE " + orders, "TABLE_DROP", table);
        // Trino creates a table by a staged create (stage-create, then a commit asserting the table does not exist):
        // both steps are creates, TABLE_CREATE on the schema, as Spark's plain CREATE TABLE is.
        assertForbidden(
                "CREATE TABLE " + READER + "." + SCHEMA + ".mine (id BIGINT)", "TABLE_CREATE", "/warehouse/" + SCHEMA);

        // Nothing changed: three rows, the same snapshots, no table "mine".
        assertThat(trino.query("SELECT count(*) FROM " + WRITER + "." + SCHEMA + ".orders"))
                .containsExactly(List.of(3L));
        assertThat(trino.query("SELECT snapshot_id FROM " + WRITER + "." + SCHEMA + ".\"orders$snapshots\""))
                .isEqualTo(snapshots);
        assertThat(trino.query("SHOW TABLES FROM " + WRITER + "." + SCHEMA)).doesNotContain(List.of("mine"));

        trino.execute("DROP TABLE " + WRITER + "." + SCHEMA + ".orders");
        assertThat(trino.query("SHOW TABLES FROM " + WRITER + "." + SCHEMA)).doesNotContain(List.of("orders"));
    }

    @Test
    void anIssuersTokenCreatesInsertsAndSelects() throws Exception {
        trino.execute("CREATE SCHEMA " + IDP + ".trino_idp");
        trino.execute("CREATE TABLE " + IDP + ".trino_idp.events (id BIGINT, kind VARCHAR)");
        assertThat(trino.execute("INSERT INTO " + IDP + ".trino_idp.events VALUES (1, 'open'), (2, 'close')"))
                .isEqualTo(2);
        assertThat(trino.query("SELECT id, kind FROM " + IDP + ".trino_idp.events ORDER BY id"))
                .containsExactly(List.of(1L, "open"), List.of(2L, "close"));

        JsonNode log = adminGet("/treecat/v1/commits?limit=5&order=newest");
        assertThat(log.get("commits").findValuesAsText("principal"))
                .as(log.toString())
                .contains("idp:trino-job");
    }

    /** Trino's error (the JDBC message, or a cause Trino sent along) carries TreeCat's 403 message. */
    private static void assertForbidden(String sql, String privilege, String object) {
        assertThatThrownBy(() -> trino.execute(sql))
                .isInstanceOf(SQLException.class)
                .satisfies(thrown -> assertThat(messages(thrown))
                        .contains("Permission denied")
                        .contains("privilege=" + privilege)
                        .contains("object=" + object));
    }

    private static String messages(Throwable thrown) {
        StringBuilder all = new StringBuilder();
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            all.append(cause.getMessage()).append('\n');
        }
        return all.toString();
    }

    // ---- TreeCat's native API over plain HTTP (the management routes of docs/security.md)

    private static String createPrincipal(URI rest, String name) throws IOException, InterruptedException {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(rest.resolve("/treecat/v1/principals"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"" + name + "\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JSON.readTree(created.body()).get("credential").asText();
    }

    private static String adminToken() throws IOException, InterruptedException {
        String[] parts = adminCredential.split(":", 2);
        String form = "grant_type=client_credentials&scope=catalog&client_id="
                + URLEncoder.encode(parts[0], StandardCharsets.UTF_8) + "&client_secret="
                + URLEncoder.encode(parts[1], StandardCharsets.UTF_8);
        HttpResponse<String> answer = HTTP.send(
                HttpRequest.newBuilder(treeCat.restUri().resolve("/v1/oauth/tokens"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(form))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).get("access_token").asText();
    }

    private static HttpResponse<String> adminSend(String method, String path, String body)
            throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(treeCat.restUri().resolve(path))
                        .header("Authorization", "Bearer " + adminToken())
                        .header("Content-Type", "application/json")
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode adminGet(String path) throws IOException, InterruptedException {
        HttpResponse<String> answer = adminSend("GET", path, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private static void grant(String principal, String privilege, String on) throws IOException, InterruptedException {
        HttpResponse<String> granted = adminSend(
                "POST",
                "/treecat/v1/grants",
                JSON.writeValueAsString(Map.of("principal", principal, "privilege", privilege, "on", on)));
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(201);
    }
}
