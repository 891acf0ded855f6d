package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.dropwizard.testing.ConfigOverride;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Authentication on a real server (docs/security.md): principals made while auth is off (the bootstrap), then the
 * server restarted with {@code auth.enabled} on the same data. Iceberg's own {@code RESTCatalog} with {@code
 * credential=id:secret} gets a token from {@code /v1/oauth/tokens}, loads and commits, and refreshes its short-lived
 * token; without a credential it is refused. Every bad header is 401 (never 500) and changes nothing; no secret or
 * token reaches a log line, an error body or a metric.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestBearerAuth {
    /** The key the server signs with, so the test can forge tokens that differ in one claim only. */
    private static final byte[] KEY = "treecat-test-signing-key-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    static Path directory;

    private TreeCatTestServer server;
    private String clientId;
    private String secret;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<String> bodies = new ArrayList<>();
    private final List<String> tokens = new ArrayList<>();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(keyFile, Base64.getEncoder().encodeToString(KEY));
        // Auth off: the bootstrap. The server warns, and the principal routes need no token.
        try (TreeCatTestServer open =
                new TreeCatTestServer(directory, ConfigOverride.config("logging.level", "INFO"))) {
            TreeCatTestServer.Reply created = open.post("/treecat/v1/principals", "{\"name\": \"etl\"}");
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.header("Cache-Control")).isEqualTo("no-store");
            clientId = created.json().get("client_id").asText();
            secret = created.json().get("secret").asText();
            assertThat(created.json().get("credential").asText()).isEqualTo(clientId + ":" + secret);
            assertThat(open.post("/treecat/v1/principals", "{\"name\": \"gone\"}")
                            .status())
                    .isEqualTo(201);
        }
        // The embedded default, with Jetty's request log written to a file that the secrets grep reads too.
        Path configuration = directory.resolve("treecat.yml");
        String embedded;
        try (java.io.InputStream in = TreeCatApplication.class.getResourceAsStream("/treecat-default.yml")) {
            embedded = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Files.writeString(
                configuration,
                embedded.replace(
                        "\nserver:\n",
                        "\nserver:\n  requestLog:\n    appenders:\n      - type: file\n        currentLogFilename: "
                                + directory.resolve("requests.log") + "\n        archive: false\n"));
        server = new TreeCatTestServer(
                directory,
                configuration.toString(),
                Map.of("logging.level", "INFO"),
                ConfigOverride.config("auth.enabled", "true"),
                // Authentication is what this test is about: etl may do everything (TestAuthorization: grants).
                ConfigOverride.config("auth.admin-principals", "etl"),
                ConfigOverride.config("auth.token-lifetime", "3 seconds"),
                ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
        // After the start: Dropwizard resets logging when it starts.
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    @AfterAll
    void stop() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        if (server != null) {
            server.close();
        }
    }

    /** A form POST to the token endpoint, as Iceberg's client sends it (the fixture's requests are JSON). */
    private TreeCatTestServer.Reply tokenRequest(String form) {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            TreeCatTestServer.Reply reply = new TreeCatTestServer.Reply(
                    response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(""),
                    response.body(),
                    response.headers().map());
            if (reply.status() != 200) {
                bodies.add(reply.body()); // a token answer holds a token, by design; errors must not
            }
            return reply;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String token() {
        TreeCatTestServer.Reply reply = tokenRequest("grant_type=client_credentials&client_id=" + clientId
                + "&client_secret=" + URLEncoder.encode(secret, StandardCharsets.UTF_8) + "&scope=catalog");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        String token = reply.json().get("access_token").asText();
        tokens.add(token);
        return token;
    }

    private TreeCatTestServer.Reply get(String path, String authorization) {
        TreeCatTestServer.Reply reply = authorization == null
                ? server.get(path)
                : server.send("GET", path, null, "Authorization", authorization);
        bodies.add(reply.body());
        return reply;
    }

    private RESTCatalog client(Map<String, String> properties) {
        return server.icebergClient("treecat", properties);
    }

    private long newestVid(String token) {
        return get("/treecat/v1/query?q=%2F*&limit=1", "Bearer " + token)
                .json()
                .get("vid")
                .asLong();
    }

    @Test
    void theTokenEndpointAnswersIcebergsTokenResponse() {
        TreeCatTestServer.Reply reply =
                tokenRequest("grant_type=client_credentials&client_id=" + clientId + "&client_secret=" + secret);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
        JsonNode body = reply.json();
        assertThat(body.get("token_type").asText()).isEqualTo("bearer");
        assertThat(body.get("expires_in").asInt()).isEqualTo(3);
        assertThat(body.get("issued_token_type").asText()).isEqualTo("urn:ietf:params:oauth:token-type:access_token");
        tokens.add(body.get("access_token").asText());
        assertThat(get("/v1/config", "Bearer " + body.get("access_token").asText())
                        .status())
                .isEqualTo(200);
    }

    @Test
    void badClientCredentialsAreOAuthErrors() {
        TreeCatTestServer.Reply wrong =
                tokenRequest("grant_type=client_credentials&client_id=" + clientId + "&client_secret=nope");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.json().get("error").asText()).isEqualTo("invalid_client");
        assertThat(wrong.json().get("error_description").asText()).isEqualTo("Unknown client id or wrong secret");

        TreeCatTestServer.Reply unknown =
                tokenRequest("grant_type=client_credentials&client_id=AAAAAAAAAAAAAAAAAAAAAA&client_secret=" + secret);
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.json().get("error").asText()).isEqualTo("invalid_client");

        TreeCatTestServer.Reply grant = tokenRequest("grant_type=password&username=a&password=b");
        assertThat(grant.status()).isEqualTo(400);
        assertThat(grant.json().get("error").asText()).isEqualTo("unsupported_grant_type");

        assertThat(tokenRequest("").json().get("error").asText()).isEqualTo("invalid_request");
        assertThat(tokenRequest("grant_type=client_credentials&client_id=%zz")
                        .json()
                        .get("error")
                        .asText())
                .isEqualTo("invalid_request");
        assertThat(tokenRequest("grant_type=" + OAuthGrant.EXCHANGE + "&subject_token=abc")
                        .json()
                        .get("error")
                        .asText())
                .isEqualTo("invalid_grant");
    }

    /** The names Iceberg's client sends; kept here so a typo in the server's constants would fail the test. */
    private static final class OAuthGrant {
        static final String EXCHANGE = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange";
    }

    @Test
    void everyRouteButTheTokenEndpointNeedsAToken() {
        for (String path : List.of(
                "/v1/config",
                "/v1/warehouse/namespaces",
                "/v1/nowhere",
                "/treecat/v1/query?q=%2F*",
                "/treecat/v1/principals",
                "/nowhere")) {
            TreeCatTestServer.Reply reply = get(path, null);
            assertThat(reply.status()).as(path).isEqualTo(401);
            assertThat(reply.header("WWW-Authenticate")).as(path).isEqualTo("Bearer realm=\"treecat\"");
            assertThat(reply.error().get("message").asText())
                    .as(path)
                    .isEqualTo("Authentication required: send a bearer token");
        }
        assertThat(get("/v1/config", null).error().get("type").asText()).isEqualTo("NotAuthorizedException");
        assertThat(get("/treecat/v1/query?q=%2F*", null).error().get("type").asText())
                .isEqualTo("UNAUTHENTICATED");
    }

    /** One raw request without a token; the path is sent as written (no client-side normalisation). */
    private HttpResponse<String> rawWithoutToken(String method, String rawPath, String form) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + rawPath))
                .header("Content-Type", "application/x-www-form-urlencoded");
        builder = form == null
                ? builder.method(method, HttpRequest.BodyPublishers.noBody())
                : builder.method(method, HttpRequest.BodyPublishers.ofString(form));
        HttpResponse<String> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        bodies.add(response.body());
        return response;
    }

    @Test
    void onlyTheExactTokenPathIsOpenAndNoSpellingOfItReachesAnotherRoute() throws Exception {
        // Spellings a path check might mistake for the token endpoint, or that a router might resolve elsewhere: each
        // is refused without a token, or answered by the token endpoint itself (an OAuth error for an empty grant),
        // never by another route.
        for (String path : List.of(
                "/v1/oauth/tokens/",
                "//v1/oauth/tokens",
                "/v1//oauth/tokens",
                "/v1/oauth%2Ftokens",
                "/v1%2Foauth%2Ftokens",
                "/v1/oauth/tokens;x=y",
                "/v1;x=y/oauth/tokens",
                "/v1/oauth/tokens%00",
                "/v1/oauth/tokens/../../config",
                "/v1/oauth/tokens/%2e%2e/%2e%2e/config",
                "/V1/OAUTH/TOKENS",
                "/v1/oauth/tokens/x")) {
            for (String method : List.of("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS")) {
                HttpResponse<String> response = rawWithoutToken(method, path, method.equals("POST") ? "" : null);
                assertThat(response.statusCode()).as("%s %s", method, path).isIn(400, 401, 404, 405);
                assertThat(response.body()).as("%s %s", method, path).doesNotContain("access_token", "overrides");
            }
        }
        // The exact path: the token endpoint's own answers, and only for its own method.
        assertThat(rawWithoutToken("POST", "/v1/oauth/tokens", "").statusCode()).isEqualTo(400);
        for (String method : List.of("GET", "PUT", "DELETE")) {
            assertThat(rawWithoutToken(method, "/v1/oauth/tokens", null).statusCode())
                    .as(method)
                    .isIn(404, 405);
        }
        for (String method : List.of("HEAD", "OPTIONS")) {
            HttpResponse<String> response = rawWithoutToken(method, "/v1/oauth/tokens", null);
            assertThat(response.statusCode()).as(method).isLessThan(500);
            assertThat(response.body()).as(method).doesNotContain("access_token");
        }
        // The config route needs a token: Iceberg's client sends the one it just got.
        for (String path : List.of("/v1/config", "/v1/config/", "/v1/config;x=y", "//v1/config", "/v1/./config")) {
            assertThat(rawWithoutToken("GET", path, null).statusCode()).as(path).isIn(400, 401, 404);
        }
    }

    @Test
    void everyBadHeaderIs401AndChangesNothing() throws Exception {
        String good = token();
        long vid = newestVid(good);
        Instant now = Instant.now();
        String expired = signed(claims("etl", now.minus(Duration.ofMinutes(10)), "treecat", "treecat"), KEY);
        String wrongIssuer = signed(claims("etl", now.plusSeconds(60), "someone-else", "treecat"), KEY);
        String wrongAudience = signed(claims("etl", now.plusSeconds(60), "treecat", "another"), KEY);
        String otherKey = signed(
                claims("etl", now.plusSeconds(60), "treecat", "treecat"),
                "another-key-another-key-another-key-0123".getBytes(StandardCharsets.UTF_8));
        String none = new PlainJWT(claims("etl", now.plusSeconds(60), "treecat", "treecat")).serialize();
        String[] parts = good.split("\\.");
        String tampered = parts[0] + "."
                + Base64URL.encode(new String(Base64URL.from(parts[1]).decode(), StandardCharsets.UTF_8)
                        .replace("\"etl\"", "\"admin\""))
                + "." + parts[2];
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put(
                "Basic "
                        + Base64.getEncoder()
                                .encodeToString((clientId + ":" + secret).getBytes(StandardCharsets.UTF_8)),
                "The Authorization header is not a bearer token");
        headers.put(good, "The Authorization header is not a bearer token");
        headers.put("Bearer", "The Authorization header is not a bearer token");
        headers.put("Bearer   ", "The Authorization header is not a bearer token");
        headers.put("Bearer x", "The token is not a signed JWT");
        headers.put("Bearer " + expired, "The token has expired");
        headers.put("Bearer " + wrongIssuer, "The token's issuer is not this server");
        headers.put("Bearer " + wrongAudience, "The token's audience is not this server");
        headers.put("Bearer " + otherKey, "The token's signature is not valid");
        headers.put("Bearer " + none, "The token is not a signed JWT");
        headers.put("Bearer " + tampered, "The token's signature is not valid");
        headers.put("Bearer " + "a".repeat(6000), "The token is too long");
        headers.put("Bearer a.b.c.d.e", "The token is not a signed JWT");
        headers.put("Bearer \u00e9\u00e9.\u00e9.\u00e9", "The token is not a signed JWT");
        for (Map.Entry<String, String> header : headers.entrySet()) {
            for (String path : List.of("/v1/warehouse/namespaces", "/treecat/v1/commit")) {
                TreeCatTestServer.Reply reply = path.startsWith("/v1")
                        ? server.send("POST", path, "{\"namespace\": [\"intruder\"]}", "Authorization", header.getKey())
                        : server.send(
                                "POST",
                                path,
                                "{\"writes\": [{\"op\": \"add\", \"path\": \"/intruder\", \"value\": {}}]}",
                                "Authorization",
                                header.getKey());
                bodies.add(reply.body());
                assertThat(reply.status()).as(header.getValue() + " on " + path).isEqualTo(401);
                assertThat(reply.error().get("message").asText()).isEqualTo(header.getValue());
                assertThat(reply.header("WWW-Authenticate")).startsWith("Bearer realm=\"treecat\"");
            }
        }
        assertThat(newestVid(token())).isEqualTo(vid);
    }

    @Test
    void icebergsClientWithACredentialLoadsAndCommitsAndRefreshes() throws Exception {
        double refreshesBefore = meterCount("treecat.auth.tokens.token_exchange.issued");
        try (RESTCatalog catalog = client(Map.of("credential", clientId + ":" + secret, "scope", "catalog"))) {
            catalog.createNamespace(Namespace.of("authn"));
            Table table = catalog.createTable(TableIdentifier.of("authn", "t"), SCHEMA);
            table.updateProperties().set("owner", "etl").commit();
            // The token lives 3 s: the client refreshes it (token exchange) before it expires, and goes on.
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (meterCount("treecat.auth.tokens.token_exchange.issued") <= refreshesBefore) {
                assertThat(System.nanoTime())
                        .as("the client refreshed its token")
                        .isLessThan(deadline);
                Thread.sleep(200);
            }
            assertThat(catalog.loadTable(TableIdentifier.of("authn", "t")).properties())
                    .containsEntry("owner", "etl");
            table.updateProperties().set("owner", "etl-2").commit();
        }
        // The commit log names who committed, through which interface.
        JsonNode log = get("/treecat/v1/commits?limit=5&order=newest", "Bearer " + token())
                .json();
        bodies.add(log.toString());
        assertThat(log.get("commits").findValuesAsText("principal"))
                .as(log.toString())
                .contains("etl");
        assertThat(log.get("commits").findValuesAsText("operation")).contains("commitTable");
    }

    @Test
    void icebergsClientWithoutACredentialIsRefused() {
        assertThatThrownBy(() -> client(Map.of()))
                .isInstanceOf(NotAuthorizedException.class)
                .hasMessageContaining("Authentication required: send a bearer token");
        assertThatThrownBy(() -> client(Map.of("credential", clientId + ":wrong")))
                .isInstanceOf(NotAuthorizedException.class)
                .hasMessageContaining("Unknown client id or wrong secret");
    }

    @Test
    void principalsAreManagedWithATokenAndNeverShowTheirHash() {
        String bearer = "Bearer " + token();
        TreeCatTestServer.Reply listed = get("/treecat/v1/principals", bearer);
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().get("principals").findValuesAsText("name")).contains("etl", "gone");
        assertThat(listed.body())
                .doesNotContain("$2y$")
                .doesNotContain("secret_hash")
                .doesNotContain(secret);

        TreeCatTestServer.Reply rotated =
                server.send("POST", "/treecat/v1/principals/gone/rotate", "", "Authorization", bearer);
        assertThat(rotated.status()).isEqualTo(200);
        String goneId = rotated.json().get("client_id").asText();
        String goneSecret = rotated.json().get("secret").asText();
        assertThat(tokenRequest("grant_type=client_credentials&client_id=" + goneId + "&client_secret=" + goneSecret)
                        .status())
                .isEqualTo(200);
        TreeCatTestServer.Reply deleted =
                server.send("DELETE", "/treecat/v1/principals/gone", null, "Authorization", bearer);
        assertThat(deleted.status()).isEqualTo(204);
        assertThat(tokenRequest("grant_type=client_credentials&client_id=" + goneId + "&client_secret=" + goneSecret)
                        .status())
                .isEqualTo(401);
        TreeCatTestServer.Reply again =
                server.send("DELETE", "/treecat/v1/principals/gone", null, "Authorization", bearer);
        bodies.add(again.body());
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.error().get("message").asText()).isEqualTo("No principal with this name");
    }

    @Test
    void nativeWritesCannotReachTheSystemArea() {
        String bearer = "Bearer " + token();
        long vid = newestVid(token());
        TreeCatTestServer.Reply reply = server.send(
                "POST",
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"remove\", \"path\": \"/.system\"}]}",
                "Authorization",
                bearer);
        bodies.add(reply.body());
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error().get("message").asText())
                .startsWith("The path is in an area only TreeCat itself writes");
        assertThat(newestVid(token())).isEqualTo(vid);
    }

    @Test
    void theCliManagesPrincipalsWithACredentialFile() throws Exception {
        Path credential = directory.resolve("etl.credential");
        Files.writeString(credential, clientId + ":" + secret);
        String http = "http://127.0.0.1:" + server.port();
        String[] with = {"principals", "--http", http, "--credential-file", credential.toString()};

        String created = cli(0, with, "create", "cli-made");
        JsonNode made = jsonLine(created);
        assertThat(made.get("name").asText()).isEqualTo("cli-made");
        String[] pair = made.get("credential").asText().split(":", 2);
        assertThat(tokenRequest("grant_type=client_credentials&client_id=" + pair[0] + "&client_secret=" + pair[1])
                        .status())
                .isEqualTo(200);
        assertThat(cli(0, with, "list"))
                .contains("\"cli-made\"")
                .doesNotContain("$2y$")
                .doesNotContain(pair[1]);
        assertThat(jsonLine(cli(0, with, "rotate", "cli-made"))
                        .get("credential")
                        .asText())
                .startsWith(pair[0] + ":")
                .isNotEqualTo(made.get("credential").asText());
        assertThat(cli(0, with, "delete", "cli-made")).contains("\"deleted\": \"cli-made\"");
        assertThat(cli(1, with, "delete", "cli-made"))
                .contains("HTTP 404 OBJECT_NOT_FOUND: No principal with this name");
        // Without a credential: the server's 401, in one line.
        assertThat(cli(1, new String[] {"principals", "--http", http}, "list"))
                .contains("treecat: HTTP 401 UNAUTHENTICATED: Authentication required: send a bearer token");
    }

    /** The first JSON line of a command's output. */
    private static JsonNode jsonLine(String text) throws Exception {
        for (String line : text.split("\n")) {
            if (line.startsWith("{")) {
                return TreeCatTestServer.JSON.readTree(line);
            }
        }
        throw new AssertionError("No JSON line in: " + text);
    }

    /** Runs the command line in-process; answers what it printed (standard output, then error). */
    private static String cli(int expectedExit, String[] options, String... action) throws Exception {
        String[] arguments = new String[options.length + action.length];
        System.arraycopy(options, 0, arguments, 0, options.length);
        System.arraycopy(action, 0, arguments, options.length, action.length);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.out;
        int exit;
        // The command prints to System.out, as every remote command does.
        System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            exit = new TreeCatApplication().runCommandLine(arguments, out, err);
        } finally {
            System.setOut(saved);
        }
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isEqualTo(expectedExit);
        return text;
    }

    /** Runs after the others (by name): no secret or token in any log line, error body or metric. */
    @Test
    void zzNoSecretOrTokenAppearsInALogLineErrorBodyOrMetric() {
        everyBadHeaderIs401AndChangesNothing_quiet();
        bodies.add(server.admin("/metrics").body());
        bodies.add(server.admin("/metrics/prometheus").body());
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent event : logs.list) {
            lines.add(event.getFormattedMessage());
            for (ch.qos.logback.classic.spi.IThrowableProxy t = event.getThrowableProxy();
                    t != null;
                    t = t.getCause()) {
                lines.add(t.getClassName() + ": " + t.getMessage());
            }
        }
        assertThat(tokens).isNotEmpty();
        // The request log: requests reached it (the token endpoint's among them), and none carries a secret.
        List<String> requestLog;
        try {
            requestLog = Files.readAllLines(directory.resolve("requests.log"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(requestLog).anyMatch(line -> line.contains("/v1/oauth/tokens"));
        lines.addAll(requestLog);
        String key = Base64.getEncoder().encodeToString(KEY);
        for (String text : lines) {
            assertThat(text).doesNotContain(secret).doesNotContain(key);
            for (String token : tokens) {
                assertThat(text).doesNotContain(token).doesNotContain(token.split("\\.")[2]);
            }
        }
        for (String text : bodies) {
            assertThat(text).doesNotContain(secret).doesNotContain(key).doesNotContain("$2y$");
            for (String token : tokens) {
                assertThat(text).doesNotContain(token.split("\\.")[2]);
            }
        }
    }

    private void everyBadHeaderIs401AndChangesNothing_quiet() {
        bodies.add(
                tokenRequest("grant_type=client_credentials&client_id=" + clientId + "&client_secret=" + secret + "x")
                        .body());
    }

    private double meterCount(String name) {
        JsonNode meter = server.admin("/metrics").json().get("meters").get(name);
        return meter == null ? 0 : meter.get("count").asDouble();
    }

    private static JWTClaimsSet claims(String subject, Instant expires, String issuer, String audience) {
        return new JWTClaimsSet.Builder()
                .subject(subject)
                .issuer(issuer)
                .audience(audience)
                .issueTime(Date.from(expires.minus(Duration.ofHours(1))))
                .expirationTime(Date.from(expires))
                .build();
    }

    private static String signed(JWTClaimsSet claims, byte[] key) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(key));
        return jwt.serialize();
    }
}
