package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Vended credentials end to end, against moto's server (S3 and STS, IAM checks on: a request needs a key IAM knows) and
 * the real TreeCat server. Clients hold no key of the store: Iceberg's own {@code RESTCatalog} and PyIceberg ask for
 * {@code vended-credentials} and get STS {@code AssumeRole} credentials scoped to the table, which they refresh through
 * the table's credentials route. The store, STS and the client's catalog calls pass through {@link TcpRelay}s, so the
 * test sees which key each S3 request was signed with, the session policy each {@code AssumeRole} carried, and each
 * refresh.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VendedCredentialsIT {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final String DELEGATION = "X-Iceberg-Access-Delegation";
    private static final Pattern KEY_ID = Pattern.compile("Credential=([A-Z0-9]+)/");

    @TempDir
    static Path directory;

    private MotoServer moto;
    private TcpRelay store;
    private TcpRelay sts;
    private TcpRelay catalogCalls;
    private TreeCatTestServer server;
    private final ListAppender logs = new ListAppender();
    /** Every secret a response handed out: the test looks for each in logs, errors and metrics. */
    private final Set<String> vendedSecrets = Collections.synchronizedSet(new LinkedHashSet<>());

    /** Every log event, with its causes. */
    private static final class ListAppender extends ch.qos.logback.core.AppenderBase<ILoggingEvent> {
        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void append(ILoggingEvent event) {
            String cause =
                    event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy());
            lines.add(event.getFormattedMessage() + cause);
        }
    }

    @BeforeAll
    void start() throws Exception {
        moto = new MotoServer(directory, "lake");
        store = new TcpRelay(moto.port());
        sts = new TcpRelay(moto.port());
        Path secretFile = directory.resolve("lake-s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + moto.accessKeyId() + "\nsecret-access-key=" + moto.secretAccessKey() + "\n");
        List<ConfigOverride> overrides = new ArrayList<>();
        overrides.add(TreeCatTestServer.logLevel("INFO"));
        catalog(overrides, "lake", "s3://lake/warehouse", secretFile, moto.roleArn(), sts.endpoint());
        // Told clients their credentials expire after 10 s (900 s less a 890 s margin): they refresh mid-job.
        catalog(overrides, "short", "s3://lake/short", secretFile, moto.roleArn(), sts.endpoint());
        overrides.add(ConfigOverride.config("warehouse.catalogs.short.credentials.vended-duration-seconds", "900"));
        overrides.add(ConfigOverride.config("warehouse.catalogs.short.credentials.refresh-margin-seconds", "890"));
        // Static keys and no role: nothing to vend.
        catalog(overrides, "norole", "s3://lake/norole", secretFile, null, null);
        // STS where nothing listens.
        catalog(overrides, "down", "s3://lake/down", secretFile, moto.roleArn(), "http://127.0.0.1:9");
        server = new TreeCatTestServer(directory.resolve("server"), overrides.toArray(ConfigOverride[]::new));
        catalogCalls = new TcpRelay(server.port());
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    private void catalog(
            List<ConfigOverride> overrides,
            String name,
            String location,
            Path secretFile,
            String roleArn,
            String stsEndpoint) {
        String prefix = "warehouse.catalogs." + name + ".";
        overrides.add(ConfigOverride.config(prefix + "location", location));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.endpoint", store.endpoint()));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"));
        overrides.add(ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"));
        overrides.add(ConfigOverride.config(prefix + "properties.s3\\.retry\\.num-retries", "0"));
        overrides.add(ConfigOverride.config(prefix + "credentials.source", "static"));
        overrides.add(ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
        if (roleArn != null) {
            overrides.add(ConfigOverride.config(prefix + "credentials.role-arn", roleArn));
            overrides.add(ConfigOverride.config(prefix + "credentials.sts-endpoint", stsEndpoint));
        }
    }

    @AfterAll
    void stop() throws Exception {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        for (AutoCloseable closeable : new AutoCloseable[] {catalogCalls, server, sts, store, moto}) {
            if (closeable != null) {
                closeable.close();
            }
        }
    }

    /** Iceberg's REST client with no key of the store, asking for vended credentials, through the catalog relay. */
    private RESTCatalog client(String warehouse) {
        Map<String, String> properties = new HashMap<>();
        properties.put("uri", catalogCalls.endpoint());
        properties.put("warehouse", warehouse);
        properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("header." + DELEGATION, "vended-credentials");
        properties.put("http-client.type", "apache");
        RESTCatalog client = new RESTCatalog();
        client.initialize("treecat-vended", properties);
        return client;
    }

    private static DataFile file(Table table, String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(5)
                .withRecordCount(1)
                .build();
    }

    /** Writes a small object under the table through the client's own FileIO (its vended credentials). */
    private static void write(Table table, String name) throws Exception {
        OutputFile out = table.io().newOutputFile(table.location() + "/data/" + name + ".parquet");
        try (OutputStream stream = out.createOrOverwrite()) {
            stream.write("hello".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The key ids S3 requests were signed with since {@code from} (a position in the store relay's record). */
    private Set<String> keyIds(int from) {
        Matcher matcher = KEY_ID.matcher(store.sent().substring(from));
        Set<String> ids = new LinkedHashSet<>();
        while (matcher.find()) {
            ids.add(matcher.group(1));
        }
        return ids;
    }

    private TreeCatTestServer.Reply send(String method, String path, String body, String delegation) {
        TreeCatTestServer.Reply reply = delegation == null
                ? server.send(method, path, body, new String[0])
                : server.send(method, path, body, DELEGATION, delegation);
        remember(reply);
        return reply;
    }

    private void remember(TreeCatTestServer.Reply reply) {
        if (reply.status() != 200 || !reply.body().contains("s3.secret-access-key")) {
            return;
        }
        JsonNode credentials = reply.json().get("storage-credentials");
        for (JsonNode credential : credentials) {
            vendedSecrets.add(
                    credential.get("config").get("s3.secret-access-key").asText());
            vendedSecrets.add(credential.get("config").get("s3.session-token").asText());
        }
    }

    private static String schemaJson() {
        return org.apache.iceberg.SchemaParser.toJson(SCHEMA);
    }

    @Test
    void aClientWithNoKeysCreatesAppendsReadsAndLoads() throws Exception {
        int from = store.sent().length();
        try (RESTCatalog catalog = client("lake")) {
            Namespace ns = Namespace.of("vend");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "events");
            Table table = catalog.createTable(id, SCHEMA);
            assertThat(table.location()).isEqualTo("s3://lake/warehouse/vend/events");
            write(table, "a");
            table.newAppend().appendFile(file(table, "a")).commit();
            table.newAppend().appendFile(file(table, "b")).commit();

            Table loaded = catalog.loadTable(id);
            // The manifest list and manifests, written and now read by the client with its vended credentials.
            assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).hasSize(1);
            assertThat(loaded.snapshots()).hasSize(2);
            try (InputStream in = loaded.io()
                    .newInputFile(loaded.location() + "/data/a.parquet")
                    .newStream()) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .isEqualTo("hello");
            }
        }
        // The client's requests were signed with keys STS issued, never the catalog's own.
        Set<String> ids = keyIds(from);
        ids.remove(moto.accessKeyId());
        assertThat(ids).isNotEmpty();

        // The load response: storage-credentials for the table's location, the store's settings, the refresh route.
        TreeCatTestServer.Reply load =
                send("GET", "/v1/lake/namespaces/vend/tables/events", null, "vended-credentials");
        assertThat(load.status()).isEqualTo(200);
        assertThat(load.header("Cache-Control")).isEqualTo("no-store");
        JsonNode credential = load.json().get("storage-credentials").get(0);
        assertThat(credential.get("prefix").asText()).isEqualTo("s3://lake/warehouse/vend/events");
        JsonNode vended = credential.get("config");
        assertThat(vended.get("s3.access-key-id").asText()).isNotEqualTo(moto.accessKeyId());
        assertThat(vended.get("s3.session-token").asText()).isNotEmpty();
        assertThat(vended.get("s3.session-token-expires-at-ms").asLong())
                .isGreaterThan(System.currentTimeMillis() + 50 * 60 * 1000L);
        JsonNode config = load.json().get("config");
        assertThat(config.get("s3.endpoint").asText()).isEqualTo(store.endpoint());
        assertThat(config.get("s3.path-style-access").asText()).isEqualTo("true");
        assertThat(config.get("client.region").asText()).isEqualTo("us-east-1");
        assertThat(config.get("client.refresh-credentials-endpoint").asText())
                .isEqualTo("v1/lake/namespaces/vend/tables/events/credentials");
        assertThat(config.get("client.refresh-credentials-enabled").asText()).isEqualTo("true");
        // The same three keys in config too: engines that read only the config (Trino 476) need all three there.
        for (String key : List.of("s3.access-key-id", "s3.secret-access-key", "s3.session-token")) {
            assertThat(config.get(key).asText())
                    .as(key)
                    .isEqualTo(vended.get(key).asText());
        }
        assertThat(load.body()).doesNotContain(moto.secretAccessKey());

        // The credentials route answers the same (cached: a busy table does not call STS per load).
        TreeCatTestServer.Reply refreshed =
                send("GET", "/v1/lake/namespaces/vend/tables/events/credentials", null, null);
        assertThat(refreshed.status()).isEqualTo(200);
        assertThat(refreshed
                        .json()
                        .get("storage-credentials")
                        .get(0)
                        .get("config")
                        .get("s3.access-key-id"))
                .isEqualTo(vended.get("s3.access-key-id"));
        // Without the header: no credentials.
        assertThat(send("GET", "/v1/lake/namespaces/vend/tables/events", null, null)
                        .body())
                .doesNotContain("s3.access-key-id", "storage-credentials\":[{");
        assertThat(server.get("/v1/config?warehouse=lake").body())
                .contains("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials");
    }

    @Test
    void eachAssumeRoleCarriesTheTablesSessionPolicy() throws Exception {
        send("POST", "/v1/lake/namespaces", "{\"namespace\":[\"scoped\"]}", null);
        int from = sts.sent().length();
        for (String name : List.of("a", "b")) {
            TreeCatTestServer.Reply created = send(
                    "POST",
                    "/v1/lake/namespaces/scoped/tables",
                    "{\"name\":\"" + name + "\",\"schema\":" + schemaJson() + "}",
                    "vended-credentials");
            assertThat(created.status()).isEqualTo(200);
        }
        List<String> policies = new ArrayList<>();
        Matcher policy = Pattern.compile("Policy=([^&\\s]+)").matcher(sts.sent().substring(from));
        while (policy.find()) {
            policies.add(URLDecoder.decode(policy.group(1), StandardCharsets.UTF_8));
        }
        // One AssumeRole per table, each allowing only that table's objects and listing.
        assertThat(policies).hasSize(2);
        assertThat(policies.get(0))
                .contains("arn:aws:s3:::lake/warehouse/scoped/a/*", "\"warehouse/scoped/a/*\"")
                .doesNotContain("scoped/b");
        assertThat(policies.get(1))
                .contains("arn:aws:s3:::lake/warehouse/scoped/b/*")
                .doesNotContain("scoped/a");
        assertThat(sts.sent().substring(from)).contains("RoleSessionName=treecat-lake-scoped.a");
    }

    @Test
    void aClientWhoseCredentialsExpireMidJobRefreshesAndCarriesOn() throws Exception {
        try (RESTCatalog catalog = client("short")) {
            Namespace ns = Namespace.of("refresh");
            catalog.createNamespace(ns);
            Table table = catalog.createTable(TableIdentifier.of(ns, "t"), SCHEMA);
            int calls = catalogCalls.sent().length();
            int from = store.sent().length();
            write(table, "first");
            table.newAppend().appendFile(file(table, "first")).commit();
            Set<String> before = keyIds(from);
            before.remove(moto.accessKeyId());
            assertThat(before).isNotEmpty();
            // The credentials the client was told last 10 s; the server hands the same ones out for half of that.
            // Time itself is what is waited for (no condition to poll): past the server's 5 s reuse window.
            Thread.sleep(6_000);
            int later = store.sent().length();
            write(table, "second");
            table.newAppend().appendFile(file(table, "second")).commit();
            Set<String> after = keyIds(later);
            after.remove(moto.accessKeyId());
            // The client called the table's credentials route, got new keys, and its next writes used them.
            assertThat(catalogCalls.sent().substring(calls))
                    .contains("GET /v1/short/namespaces/refresh/tables/t/credentials");
            assertThat(after).isNotEmpty().doesNotContainAnyElementsOf(before);
            assertThat(catalog.loadTable(TableIdentifier.of(ns, "t")).snapshots())
                    .hasSize(2);
        }
    }

    @Test
    void aCatalogThatCannotVendSaysWhyAndCommitsNothing() throws Exception {
        send("POST", "/v1/norole/namespaces", "{\"namespace\":[\"n\"]}", null);
        TreeCatTestServer.Reply refused = send(
                "POST",
                "/v1/norole/namespaces/n/tables",
                "{\"name\":\"t\",\"schema\":" + schemaJson() + "}",
                "vended-credentials");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.error().get("message").asText())
                .contains("cannot vend credentials", "credentials.role-arn", "catalog=norole");
        assertThat(refused.body()).doesNotContain(moto.accessKeyId(), moto.secretAccessKey());
        assertThat(server.get("/v1/norole/namespaces/n/tables/t").status()).isEqualTo(404);
        // Without vending the catalog serves as before; its credentials route refuses the same way.
        assertThat(send(
                                "POST",
                                "/v1/norole/namespaces/n/tables",
                                "{\"name\":\"t\",\"schema\":" + schemaJson() + "}",
                                null)
                        .status())
                .isEqualTo(200);
        TreeCatTestServer.Reply route = send("GET", "/v1/norole/namespaces/n/tables/t/credentials", null, null);
        assertThat(route.status()).isEqualTo(400);
        assertThat(route.error().get("message").asText()).contains("credentials.role-arn");
        // remote-signing too: the catalog falls back to it.
        TreeCatTestServer.Reply both =
                send("GET", "/v1/norole/namespaces/n/tables/t", null, "vended-credentials, remote-signing");
        assertThat(both.status()).isEqualTo(200);
        assertThat(both.json().get("config").get("s3.remote-signing-enabled").asText())
                .isEqualTo("true");
        try (RESTCatalog catalog = client("norole")) {
            assertThatThrownBy(() -> catalog.loadTable(TableIdentifier.of("n", "t")))
                    .isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("credentials.role-arn");
        }
    }

    @Test
    void stsFailingIs503AndACreateCommitsNothing() throws Exception {
        send("POST", "/v1/down/namespaces", "{\"namespace\":[\"n\"]}", null);
        TreeCatTestServer.Reply failed = send(
                "POST",
                "/v1/down/namespaces/n/tables",
                "{\"name\":\"t\",\"schema\":" + schemaJson() + "}",
                "vended-credentials");
        assertThat(failed.status()).isEqualTo(503);
        assertThat(failed.error().get("type").asText()).isEqualTo("ServiceUnavailableException");
        assertThat(failed.error().get("message").asText()).contains("credential service (STS) failed", "catalog=down");
        assertThat(failed.body()).doesNotContain(moto.secretAccessKey());
        assertThat(server.get("/v1/down/namespaces/n/tables/t").status()).isEqualTo(404);
        try (RESTCatalog catalog = client("down")) {
            assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of("n", "t2"), SCHEMA))
                    .isInstanceOf(ServiceUnavailableException.class);
        }
    }

    @Test
    void badInputOnTheNewRouteIsAClearErrorAndTheServerStaysUp() {
        send("POST", "/v1/lake/namespaces", "{\"namespace\":[\"bad\"]}", null);
        send("POST", "/v1/lake/namespaces/bad/tables", "{\"name\":\"t\",\"schema\":" + schemaJson() + "}", null);
        TreeCatTestServer.Reply unknown = send("GET", "/v1/lake/namespaces/bad/tables/nope/credentials", null, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error().get("type").asText()).isEqualTo("NoSuchTableException");
        TreeCatTestServer.Reply header = send("GET", "/v1/lake/namespaces/bad/tables/t", null, "vended-credential");
        assertThat(header.status()).isEqualTo(400);
        assertThat(header.error().get("message").asText())
                .contains("Unsupported access delegation", "vended-credential");
        // A table in a file: catalog: nothing to vend on its route; its loads ignore the header.
        send("POST", "/v1/warehouse/namespaces", "{\"namespace\":[\"local\"]}", null);
        send("POST", "/v1/warehouse/namespaces/local/tables", "{\"name\":\"t\",\"schema\":" + schemaJson() + "}", null);
        TreeCatTestServer.Reply local = send("GET", "/v1/warehouse/namespaces/local/tables/t/credentials", null, null);
        assertThat(local.status()).isEqualTo(400);
        assertThat(local.error().get("message").asText()).contains("only tables in a catalog on S3");
        assertThat(send("GET", "/v1/warehouse/namespaces/local/tables/t", null, "vended-credentials")
                        .status())
                .isEqualTo(200);
        assertThat(server.get("/v1/config?warehouse=lake").status()).isEqualTo(200);
    }

    @Test
    void pyicebergWithVendedCredentialsWritesAndReadsBack() throws Exception {
        Path python = PythonProcesses.python(directory);
        PythonProcesses.Run run = PythonProcesses.run(
                List.of(
                        python.toString(),
                        PythonProcesses.script("pyiceberg_vended.py").toString(),
                        catalogCalls.endpoint(),
                        "lake"),
                directory,
                300);
        assertThat(run.exitCode())
                .as("pyiceberg_vended.py failed:%n%s%n%s", run.out(), run.err())
                .isZero();
        assertThat(run.out()).contains("PYICEBERG VENDED OK");
    }

    @Test
    void theSecretsAppearOnlyInTheBodiesOfTheirAnswers() throws Exception {
        aClientWithNoKeysCreatesAppendsReadsAndLoads2();
        List<String> everything = new ArrayList<>();
        synchronized (logs.lines) {
            everything.addAll(logs.lines);
        }
        everything.add(server.admin("/metrics").body());
        everything.add(server.admin("/metrics/prometheus").body());
        assertThat(everything).isNotEmpty();
        assertThat(vendedSecrets).isNotEmpty();
        List<String> secrets = new ArrayList<>(vendedSecrets);
        secrets.add(moto.secretAccessKey());
        for (String text : everything) {
            for (String secret : secrets) {
                assertThat(text).doesNotContain(secret);
            }
        }
    }

    private void aClientWithNoKeysCreatesAppendsReadsAndLoads2() {
        send("POST", "/v1/lake/namespaces", "{\"namespace\":[\"grep\"]}", null);
        send(
                "POST",
                "/v1/lake/namespaces/grep/tables",
                "{\"name\":\"t\",\"schema\":" + schemaJson() + "}",
                "vended-credentials");
        send("GET", "/v1/lake/namespaces/grep/tables/t", null, "vended-credentials");
        send("GET", "/v1/lake/namespaces/grep/tables/t/credentials", null, null);
        send("GET", "/v1/norole/namespaces/n/tables/t/credentials", null, null);
        send(
                "POST",
                "/v1/down/namespaces/n/tables",
                "{\"name\":\"s\",\"schema\":" + schemaJson() + "}",
                "vended-credentials");
    }
}
