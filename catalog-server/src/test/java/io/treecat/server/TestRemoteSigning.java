package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.ConfigOverride;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Remote signing end to end (S3Proxy on loopback, the real server): Iceberg's own client, holding no key of the store,
 * is told by the server to sign through it, and creates, appends, reads manifests and loads; the server signs only
 * requests for objects under the table's own location and refuses every other one with 403.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestRemoteSigning {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path directory;

    private S3ProxyServer s3;
    private TreeCatTestServer server;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ListAppender logs = new ListAppender();
    private final List<String> bodies = new ArrayList<>();

    /** Every log event, with its causes. */
    private static final class ListAppender extends ch.qos.logback.core.AppenderBase<ILoggingEvent> {
        private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void append(ILoggingEvent event) {
            String cause =
                    event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
            lines.add(event.getFormattedMessage() + cause);
        }
    }

    @BeforeAll
    void start() throws Exception {
        s3 = new S3ProxyServer();
        s3.createBucket("lake");
        s3.createBucket("other");
        Path secretFile = directory.resolve("lake-s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + S3ProxyServer.ACCESS_KEY + "\nsecret-access-key=" + S3ProxyServer.SECRET_KEY + "\n");
        String prefix = "warehouse.catalogs.lake.";
        server = new TreeCatTestServer(
                directory,
                TreeCatTestServer.logLevel("INFO"),
                ConfigOverride.config(prefix + "location", "s3://lake/warehouse"),
                ConfigOverride.config(prefix + "properties.s3\\.endpoint", s3.endpoint()),
                ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"),
                ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"),
                ConfigOverride.config(prefix + "credentials.source", "static"),
                ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    @AfterAll
    void stop() throws Exception {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        if (server != null) {
            server.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /**
     * Iceberg's REST client asking for remote signing: no key of the store, only the catalog's URI. Its S3 client gets
     * anonymous credentials (the SDK needs some provider); every request is signed by the server.
     */
    private RESTCatalog client() {
        Map<String, String> properties = new HashMap<>();
        properties.put("uri", "http://127.0.0.1:" + server.port());
        properties.put("warehouse", "lake");
        properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("header.X-Iceberg-Access-Delegation", "remote-signing");
        properties.put(
                "client.credentials-provider", "software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider");
        properties.put("http-client.type", "apache");
        RESTCatalog client = new RESTCatalog();
        client.initialize("treecat-signing", properties);
        return client;
    }

    private static DataFile file(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
    }

    @Test
    void aClientWithNoKeysWritesAndReadsThroughTheSigner() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("signed");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "events");
            Table table = catalog.createTable(id, SCHEMA);
            assertThat(table.properties()).doesNotContainKey("s3.access-key-id");
            table.newAppend().appendFile(file(table, "a")).commit();
            table.newAppend().appendFile(file(table, "b")).commit();

            Table loaded = catalog.loadTable(id);
            // Reading the manifest list and the manifests goes through signed GETs.
            assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).hasSize(1);
            assertThat(loaded.snapshots()).hasSize(2);
            assertThat(s3.keys("lake")).anyMatch(key -> key.startsWith("warehouse/signed/events/metadata/snap-"));
        }
    }

    @Test
    void loadAndCreateAnswerTheSignerSettingsAndNoKey() throws Exception {
        post("/v1/lake/namespaces", "{\"namespace\":[\"cfg\"]}", null);
        HttpResponse<String> created = post(
                "/v1/lake/namespaces/cfg/tables", "{\"name\":\"t\",\"schema\":" + schemaJson() + "}", "remote-signing");
        assertThat(created.statusCode()).isEqualTo(200);
        JsonNode config = JSON.readTree(created.body()).get("config");
        assertThat(config.get("s3.remote-signing-enabled").asText()).isEqualTo("true");
        assertThat(config.get("s3.signer.uri").asText()).isEqualTo("http://127.0.0.1:" + server.port() + "/");
        assertThat(config.get("s3.signer.endpoint").asText()).isEqualTo("v1/lake/namespaces/cfg/tables/t/sign");
        assertThat(config.get("s3.endpoint").asText()).isEqualTo(s3.endpoint());
        assertThat(config.get("s3.path-style-access").asText()).isEqualTo("true");
        assertThat(config.get("client.region").asText()).isEqualTo("us-east-1");
        assertThat(created.body()).doesNotContain(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "access-key");

        HttpResponse<String> loaded = get("/v1/lake/namespaces/cfg/tables/t", "remote-signing");
        assertThat(JSON.readTree(loaded.body())
                        .get("config")
                        .get("s3.signer.endpoint")
                        .asText())
                .isEqualTo("v1/lake/namespaces/cfg/tables/t/sign");
        // Without the header: no signer settings (and the cached body is not the delegated one).
        assertThat(get("/v1/lake/namespaces/cfg/tables/t", null).body()).doesNotContain("s3.signer");

        HttpResponse<String> configResponse = get("/v1/config?warehouse=lake", null);
        assertThat(configResponse.body()).contains("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign");
    }

    @Test
    void theSignerSignsOnlyInsideTheTablesLocation() throws Exception {
        post("/v1/lake/namespaces", "{\"namespace\":[\"scope\"]}", null);
        post("/v1/lake/namespaces/scope/tables", "{\"name\":\"a\",\"schema\":" + schemaJson() + "}", null);
        post("/v1/lake/namespaces/scope/tables", "{\"name\":\"b\",\"schema\":" + schemaJson() + "}", null);
        String a = "/v1/lake/namespaces/scope/tables/a/sign";
        String bucket = s3.endpoint() + "/lake/warehouse/scope/";

        // Inside table a: signed, and the signed request is accepted by the store.
        String metadataKey = s3.keys("lake").stream()
                .filter(key -> key.startsWith("warehouse/scope/a/metadata/"))
                .findFirst()
                .orElseThrow();
        HttpResponse<String> signed = post(a, signRequest("GET", s3.endpoint() + "/lake/" + metadataKey), null);
        assertThat(signed.statusCode()).isEqualTo(200);
        JsonNode answer = JSON.readTree(signed.body());
        assertThat(answer.get("headers").toString()).contains("Authorization").contains("AWS4-HMAC-SHA256");
        assertThat(signed.headers().firstValue("Cache-Control")).contains("private");
        HttpRequest.Builder replay =
                HttpRequest.newBuilder(URI.create(answer.get("uri").asText()));
        Iterator<Map.Entry<String, JsonNode>> headers = answer.get("headers").fields();
        while (headers.hasNext()) {
            Map.Entry<String, JsonNode> header = headers.next();
            if (!header.getKey().equalsIgnoreCase("host")) {
                for (JsonNode value : header.getValue()) {
                    replay.header(header.getKey(), value.asText());
                }
            }
        }
        HttpResponse<String> fromStore = http.send(replay.GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(fromStore.statusCode()).isEqualTo(200);
        assertThat(fromStore.body()).contains("\"format-version\"");

        // Another table's key, a .. escape, another bucket, a bucket-wide listing: 403 ForbiddenException.
        assertForbidden(
                post(a, signRequest("GET", bucket + "b/metadata/x.json"), null), "outside the table's location");
        assertForbidden(post(a, signRequest("PUT", bucket + "a/../b/data/x.parquet"), null), ". or .. segment");
        assertForbidden(post(a, signRequest("GET", bucket + "a/%2E%2E/b/x"), null), ". or .. segment");
        assertForbidden(
                post(a, signRequest("GET", s3.endpoint() + "/other/warehouse/scope/a/x"), null), "another bucket");
        assertForbidden(
                post(a, signRequest("GET", s3.endpoint() + "/lake?list-type=2&prefix=warehouse/"), null),
                "listing is not under");
        // The same bucket and key on another store (where the catalog's keys might also be valid).
        assertForbidden(
                post(a, signRequest("GET", "http://s3.example.com/lake/warehouse/scope/a/x"), null), "another host");
        assertForbidden(post(a, signRequest("PATCH", bucket + "a/data/x"), null), "method PATCH");
        // A sibling whose name starts with the table's: outside.
        assertForbidden(post(a, signRequest("GET", bucket + "ab/data/x"), null), "outside the table's location");
        // The S3 signer's default path names no table.
        assertForbidden(post("/v1/aws/s3/sign", signRequest("GET", bucket + "a/data/x"), null), "names no table");

        // Bad input: 4xx with Iceberg's error body, the server still up.
        assertThat(post(a, "", null).statusCode()).isEqualTo(400);
        assertThat(post(a, "{not json", null).statusCode()).isEqualTo(400);
        assertThat(post(a, "{\"method\":1}", null).statusCode()).isEqualTo(400);
        HttpResponse<String> unknown =
                post("/v1/lake/namespaces/scope/tables/nope/sign", signRequest("GET", bucket + "nope/x"), null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("NoSuchTableException");
        assertThat(get("/v1/config?warehouse=lake", null).statusCode()).isEqualTo(200);
    }

    @Test
    void theKeysAppearNowhere() throws Exception {
        // After everything else in this class has run (and on its own): no log line, no body, no metric.
        aClientWithNoKeysWritesAndReadsThroughTheSigner2();
        HttpResponse<String> metrics = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        bodies.add(metrics.body());
        List<String> everything = new ArrayList<>(bodies);
        synchronized (logs.lines) {
            everything.addAll(logs.lines);
        }
        assertThat(everything).isNotEmpty();
        // SigV4 names the access key id in the Authorization header it signs (Credential=<id>/<scope>): a signed
        // request's answer holds it by design, as every request the client then sends to the store does. The secret
        // key is never in it, and the id is in nothing else.
        assertThat(everything.stream()
                        .filter(text -> !text.startsWith("{\"uri\":"))
                        .filter(text -> text.contains(S3ProxyServer.ACCESS_KEY))
                        .toList())
                .isEmpty();
        assertThat(everything).noneMatch(text -> text.contains(S3ProxyServer.SECRET_KEY));
        assertThat(everything).anyMatch(text -> text.startsWith("{\"uri\":"));
    }

    private void aClientWithNoKeysWritesAndReadsThroughTheSigner2() throws Exception {
        try (RESTCatalog catalog = client()) {
            Namespace ns = Namespace.of("secrets");
            catalog.createNamespace(ns);
            Table table = catalog.createTable(TableIdentifier.of(ns, "t"), SCHEMA);
            table.newAppend().appendFile(file(table, "a")).commit();
        }
        bodies.add(post(
                        "/v1/lake/namespaces/secrets/tables/t/sign",
                        signRequest("GET", s3.endpoint() + "/lake/warehouse/secrets/t/metadata/x"),
                        null)
                .body());
        bodies.add(post(
                        "/v1/lake/namespaces/secrets/tables/t/sign",
                        signRequest("GET", s3.endpoint() + "/lake/warehouse/other/x"),
                        null)
                .body());
    }

    private static void assertForbidden(HttpResponse<String> response, String why) {
        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(response.body()).contains("ForbiddenException").contains(why);
    }

    private static String signRequest(String method, String uri) {
        ObjectNode request = JSON.createObjectNode();
        request.put("region", "us-east-1");
        request.put("method", method);
        request.put("uri", uri);
        request.putObject("headers").putArray("x-amz-content-sha256").add("UNSIGNED-PAYLOAD");
        request.putObject("properties");
        request.put("provider", "s3");
        return request.toString();
    }

    private static String schemaJson() {
        return org.apache.iceberg.SchemaParser.toJson(SCHEMA);
    }

    private HttpResponse<String> post(String path, String body, String delegation) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (delegation != null) {
            request.header("X-Iceberg-Access-Delegation", delegation);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        bodies.add(response.body());
        return response;
    }

    private HttpResponse<String> get(String path, String delegation) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (delegation != null) {
            request.header("X-Iceberg-Access-Delegation", delegation);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        bodies.add(response.body());
        return response;
    }
}
