package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static io.treecat.spark.SparkRows.row;
import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark (local mode) with Iceberg's {@code SparkCatalog} on a TreeCat server with {@code auth.enabled} (issue 18):
 * three catalogs of one session, each its own principal.
 *
 * <ul>
 *   <li>{@value #WRITER}: {@code credential=<client id>:<secret>} of a built-in principal with grants to create,
 *       write and drop in the catalog {@code warehouse};
 *   <li>{@value #READER}: a built-in principal with {@code TABLE_READ_DATA} on one namespace only: it reads and
 *       plans, and gets Iceberg's {@link ForbiddenException} (403, naming the privilege) on INSERT, DROP and CREATE;
 *   <li>{@value #IDP}: {@code token=} of an external issuer (navikt's mock-oauth2-server in this JVM), principal
 *       {@code idp:spark-job}, granted through the native API like any other.
 * </ul>
 *
 * <p>Tokens live {@value #TOKEN_LIFETIME_SECONDS} seconds ({@code auth.token-lifetime}), with {@value
 * #CLOCK_SKEW_SECONDS} s of slack ({@code auth.clock-skew}). The writer's secret is
 * rotated after its first token, then the writer keeps working for longer than its token and the server's
 * clock slack: that only works if Iceberg's client refreshed the token by the token exchange, since the rotated
 * secret can no longer get a new token by client credentials.
 *
 * <p>The principals are made while auth is off, then the server restarts with auth on, as docs/security.md's
 * "Turning it on" says.
 */
class IcebergRestAuthSparkIT {
    private static final String WRITER = "w";
    private static final String READER = "r";
    private static final String TREECAT_READER = "tc_reader";
    private static final String IDP = "idp";
    private static final String NAMESPACE = "secured";
    private static final long TOKEN_LIFETIME_SECONDS = 5;
    private static final long CLOCK_SKEW_SECONDS = 2;
    /** The server's clock slack on {@code exp} (docs/security.md) plus the lifetime and a margin. */
    private static final Duration PAST_EXPIRY = Duration.ofSeconds(TOKEN_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS + 8);

    private static final String AUDIENCE = "treecat";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path directory;

    private static MockOAuth2Server idp;
    private static TreeCatServerProcess server;
    private static SparkSession spark;
    private static String adminCredential;
    private static String writerCredential;
    private static String readerClientId;

    @BeforeAll
    static void start() throws Exception {
        String readerCredential;
        try (TreeCatServerProcess open = TreeCatServerProcess.start(directory)) {
            adminCredential = createPrincipal(open, "admin");
            writerCredential = createPrincipal(open, "spark-writer");
            readerCredential = createPrincipal(open, "spark-reader");
        }
        readerClientId = readerCredential.split(":", 2)[0];
        idp = new MockOAuth2Server();
        idp.start();
        String oidc = "  oidc:\n"
                + "    - name: idp\n"
                + "      issuer: \"" + idp.issuerUrl("default") + "\"\n"
                + "      audience: " + AUDIENCE + "\n";
        server = TreeCatServerProcess.start(
                directory,
                "",
                oidc,
                Map.of(
                        "TREECAT_AUTH_ENABLED", "true",
                        "TREECAT_AUTH_ADMIN_PRINCIPALS", "[admin]",
                        "TREECAT_AUTH_TOKEN_LIFETIME", TOKEN_LIFETIME_SECONDS + " seconds",
                        "TREECAT_AUTH_CLOCK_SKEW", CLOCK_SKEW_SECONDS + " seconds",
                        // This test uses no Hive client; the Thrift port is on loopback.
                        "TREECAT_HMS_ALLOW_UNAUTHENTICATED", "true"),
                List.of());

        // The writer may make namespaces and tables in the catalog and write and drop them; the issuer's principal too.
        for (String grantee : List.of("spark-writer", "idp:spark-job")) {
            for (String privilege : List.of("NAMESPACE_CREATE", "TABLE_CREATE", "TABLE_WRITE", "TABLE_DROP")) {
                grant(grantee, privilege, "/warehouse");
            }
        }
        String idpToken =
                idp.issueToken("default", "spark-job", AUDIENCE, Map.of(), 3600).serialize();

        SparkSession.Builder builder = SparkSessions.local("treecat-iceberg-rest-auth", directory)
                .config(
                        "spark.sql.extensions",
                        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                                + TreeCatSparkExtensions.class.getName());
        // The settings docs/engines.md gives for a server with auth on: rest.auth.type and the token endpoint are set
        // so
        // that Iceberg's client does not infer (and warn about) them.
        catalog(builder, WRITER, Map.of("credential", writerCredential));
        catalog(builder, READER, Map.of("credential", readerCredential));
        // An issuer's token is refreshed at the issuer, not by TreeCat's token exchange (which refuses it).
        catalog(builder, IDP, Map.of("token", idpToken, "token-refresh-enabled", "false"));
        // TreeCat's own catalog with the reader's credential: treecat_query and the system tables get their tokens
        // with it as Iceberg's client does.
        builder.config("spark.sql.catalog." + TREECAT_READER, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + TREECAT_READER + ".uri", server.restUri())
                .config("spark.sql.catalog." + TREECAT_READER + ".credential", readerCredential)
                .config("spark.sql.treecat.catalog", TREECAT_READER);
        spark = builder.getOrCreate();

        spark.sql("CREATE NAMESPACE " + WRITER + "." + NAMESPACE);
        // Rotated after the writer's catalog holds its first token: from now on only a token exchange refreshes it.
        rotate("spark-writer");
        grant("spark-reader", "TABLE_READ_DATA", "/warehouse/" + NAMESPACE);
    }

    private static void catalog(SparkSession.Builder builder, String name, Map<String, String> auth) {
        String prefix = "spark.sql.catalog." + name;
        builder.config(prefix, "org.apache.iceberg.spark.SparkCatalog")
                .config(prefix + ".type", "rest")
                .config(prefix + ".uri", server.restUri())
                .config(prefix + ".cache-enabled", "false")
                .config(prefix + ".rest.auth.type", "oauth2")
                .config(prefix + ".oauth2-server-uri", server.restUri() + "/v1/oauth/tokens");
        auth.forEach((key, value) -> builder.config(prefix + "." + key, value));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            SparkSessions.stop("IcebergRestAuthSparkIT", spark, server);
        } finally {
            if (idp != null) {
                idp.shutdown();
            }
        }
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    @Test
    void treecatQueryAndTheSystemTablesAuthenticateWithTheCatalogsCredential() {
        spark.sql("CREATE TABLE " + WRITER + "." + NAMESPACE + ".visible (id BIGINT) USING iceberg");
        String query = "treecat_query('/[obj_id=\"warehouse\"]/[obj_id=\"" + NAMESPACE + "\"]/*')";
        assertThat(column(spark, "SELECT id FROM " + query, 0)).contains("visible");
        assertThat(column(spark, "SELECT id FROM " + TREECAT_READER + ".system.tables", 0))
                .contains("visible");

        // A TreeCat catalog without credentials is refused by the server, with its message.
        spark.conf().set("spark.sql.catalog.tc_anonymous", TreeCatCatalog.class.getName());
        spark.conf().set("spark.sql.catalog.tc_anonymous.uri", server.restUri());
        spark.conf().set("spark.sql.treecat.catalog", "tc_anonymous");
        try {
            assertThatThrownBy(() -> spark.sql("SELECT id FROM " + query))
                    .isInstanceOf(AnalysisException.class)
                    .hasMessageContaining("TreeCat refused the path query");
            // A wrong secret: no token, and the message does not carry the secret.
            spark.conf().set("spark.sql.catalog.tc_wrong", TreeCatCatalog.class.getName());
            spark.conf().set("spark.sql.catalog.tc_wrong.uri", server.restUri());
            spark.conf().set("spark.sql.catalog.tc_wrong.credential", readerClientId + ":not-the-secret-4711");
            spark.conf().set("spark.sql.treecat.catalog", "tc_wrong");
            assertThatThrownBy(() -> spark.sql("SELECT id FROM " + query))
                    .isInstanceOf(AnalysisException.class)
                    .hasMessageContaining("No token for the catalog's credential")
                    .hasMessageNotContaining("not-the-secret-4711");
        } finally {
            spark.conf().set("spark.sql.treecat.catalog", TREECAT_READER);
        }
        spark.sql("DROP TABLE " + WRITER + "." + NAMESPACE + ".visible");
    }

    @Test
    void aWriterCreatesWritesAndReadsAndAReaderReadsAndPlansButIsForbiddenToChange() {
        String table = NAMESPACE + ".orders";
        spark.sql("CREATE TABLE " + WRITER + "." + table + " (id BIGINT, region STRING) USING iceberg");
        spark.sql("INSERT INTO " + WRITER + "." + table + " VALUES (1, 'EU'), (2, 'US'), (3, 'EU')");
        assertThat(rows(spark, "SELECT region, count(*) FROM " + WRITER + "." + table + " GROUP BY region ORDER BY 1"))
                .containsExactly(row("EU", 2L), row("US", 1L));

        // The reader sees the namespace and the table, reads and plans.
        assertThat(column(spark, "SHOW TABLES IN " + READER + "." + NAMESPACE, 1))
                .contains("orders");
        assertThat(scalar(spark, "SELECT count(*) FROM " + READER + "." + table + " WHERE region = 'EU'"))
                .isEqualTo(2L);
        assertThat(rows(spark, "EXPLAIN SELECT id FROM " + READER + "." + table + " WHERE id > 1")
                        .get(0)
                        .get(0)
                        .toString())
                .contains("BatchScan " + READER + "." + table);

        assertForbidden(
                "INSERT INTO " + READER + "." + table + " VALUES (4, 'APAC')",
                "TABLE_WRITE",
                "/warehouse/" + NAMESPACE + "/orders");
        assertForbidden("DROP TABLE " + READER + "." + table, "TABLE_DROP", "/warehouse/" + NAMESPACE + "/orders");
        assertForbidden(
                "CREATE TABLE " + READER + "." + NAMESPACE + ".mine (id BIGINT) USING iceberg",
                "TABLE_CREATE",
                "/warehouse/" + NAMESPACE);

        // Nothing changed: the writer still sees its three rows, one snapshot, and no table "mine".
        assertThat(scalar(spark, "SELECT count(*) FROM " + WRITER + "." + table))
                .isEqualTo(3L);
        assertThat(scalar(spark, "SELECT count(*) FROM " + WRITER + "." + table + ".snapshots"))
                .isEqualTo(1L);
        assertThat(column(spark, "SHOW TABLES IN " + WRITER + "." + NAMESPACE, 1))
                .doesNotContain("mine");

        spark.sql("DROP TABLE " + WRITER + "." + table);
        assertThat(column(spark, "SHOW TABLES IN " + WRITER + "." + NAMESPACE, 1))
                .doesNotContain("orders");
    }

    @Test
    void anIssuersTokenCreatesWritesAndReads() throws Exception {
        spark.sql("CREATE NAMESPACE " + IDP + ".from_idp");
        spark.sql("CREATE TABLE " + IDP + ".from_idp.events (id BIGINT, kind STRING) USING iceberg");
        spark.sql("INSERT INTO " + IDP + ".from_idp.events VALUES (1, 'open'), (2, 'close')");
        assertThat(rows(spark, "SELECT id, kind FROM " + IDP + ".from_idp.events ORDER BY id"))
                .containsExactly(row(1L, "open"), row(2L, "close"));

        // The commit log names the issuer's principal, <issuer name>:<sub>.
        JsonNode log = adminGet("/treecat/v1/commits?limit=5&order=newest");
        assertThat(log.get("commits").findValuesAsText("principal"))
                .as(log.toString())
                .contains("idp:spark-job");
    }

    @Test
    void aSessionKeepsWorkingPastItsTokensExpiryByTheTokenExchange() throws Exception {
        String table = WRITER + "." + NAMESPACE + ".long_job";
        spark.sql("CREATE TABLE " + table + " (step INT) USING iceberg");
        long began = System.nanoTime();
        int step = 0;
        // A job that keeps committing, every two seconds, for longer than its first token (and any token issued before
        // the secret's rotation) is accepted.
        while (System.nanoTime() - began < PAST_EXPIRY.toNanos()) {
            spark.sql("INSERT INTO " + table + " VALUES (" + step + ")");
            step++;
            Thread.sleep(2000);
        }
        spark.sql("INSERT INTO " + table + " VALUES (" + step + ")");
        assertThat(scalar(spark, "SELECT count(*) FROM " + table)).isEqualTo((long) step + 1);

        // And the secret the catalog was configured with really is refused now: only the exchange could have renewed.
        HttpResponse<String> refused = token(writerCredential);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
        assertThat(refused.body()).contains("invalid_client");
    }

    private static void assertForbidden(String sql, String privilege, String object) {
        assertThatThrownBy(() -> spark.sql(sql))
                .satisfies(thrown -> assertThat(causeOf(thrown, ForbiddenException.class))
                        .as("ForbiddenException in the causes of %s", thrown)
                        .isNotNull()
                        .extracting(Throwable::getMessage)
                        .asString()
                        .contains("Permission denied")
                        .contains("privilege=" + privilege)
                        .contains("object=" + object));
    }

    private static Throwable causeOf(Throwable thrown, Class<? extends Throwable> type) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        return null;
    }

    // ---- TreeCat's native API over plain HTTP (the management routes of docs/security.md)

    /** Creates a built-in principal on a server with auth off and returns its {@code <client id>:<secret>}. */
    private static String createPrincipal(TreeCatServerProcess open, String name)
            throws IOException, InterruptedException {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(URI.create(open.restUri() + "/treecat/v1/principals"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"" + name + "\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JSON.readTree(created.body()).get("credential").asText();
    }

    private static HttpResponse<String> token(String credential) throws IOException, InterruptedException {
        String[] parts = credential.split(":", 2);
        String form = "grant_type=client_credentials&scope=catalog&client_id="
                + URLEncoder.encode(parts[0], StandardCharsets.UTF_8) + "&client_secret="
                + URLEncoder.encode(parts[1], StandardCharsets.UTF_8);
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(server.restUri() + "/v1/oauth/tokens"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(form))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A fresh token of the admin for each call: tokens here live only a few seconds. */
    private static String adminToken() throws IOException, InterruptedException {
        HttpResponse<String> answer = token(adminCredential);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).get("access_token").asText();
    }

    private static HttpResponse<String> adminSend(String method, String path, String body)
            throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(server.restUri() + path))
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

    private static void rotate(String principal) throws IOException, InterruptedException {
        HttpResponse<String> rotated = adminSend("POST", "/treecat/v1/principals/" + principal + "/rotate", null);
        assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(200);
    }
}
