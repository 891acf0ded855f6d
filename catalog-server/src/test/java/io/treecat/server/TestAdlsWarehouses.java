package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A catalog whose warehouse is on ADLS ({@code abfss://}), through the real server and Iceberg's own REST client,
 * against Azurite on loopback, with the account's shared key from a secret file.
 */
// By name, so the secrets check (zz…) runs after the failures it looks through.
@TestMethodOrder(MethodOrderer.MethodName.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestAdlsWarehouses {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final String HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    /** A well-formed account key that is not the account's: 64 random bytes, as Azure's keys are. */
    private static final String WRONG_KEY = wrongKey();

    @TempDir
    static Path directory;

    private AzuriteServer azurite;
    private TreeCatTestServer server;
    private String sas;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<String> bodies = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        azurite = AzuriteServer.start();
        azurite.createContainer("lake");
        Path secretFile = directory.resolve("lake-adls.properties");
        Files.writeString(secretFile, "account-key=" + AzuriteServer.ACCOUNT_KEY + "\n");
        List<ConfigOverride> overrides = new ArrayList<>();
        overrides.addAll(catalog("alake", "abfss://lake@" + HOST + "/warehouse", azurite.endpoint(), secretFile));
        // A store that refuses the catalog's key: Azurite answers 403 at once, which the Azure client does not retry.
        // (A store that cannot be reached costs about 90 s of the client's retries before the 503, and Iceberg has no
        // property for them: docs/object-storage.md.)
        Path wrongKeyFile = directory.resolve("lake-adls-wrong.properties");
        Files.writeString(wrongKeyFile, "account-key=" + WRONG_KEY + "\n");
        overrides.addAll(catalog("adown", "abfss://lake@" + HOST + "/down", azurite.endpoint(), wrongKeyFile));
        // A SAS token for the container, from a secret file, instead of the account key.
        sas = azurite.containerSas("lake");
        Path sasFile = directory.resolve("lake-adls-sas.properties");
        Files.writeString(sasFile, "sas-token=" + sas + "\n");
        overrides.addAll(catalog("asas", "abfss://lake@" + HOST + "/sas", azurite.endpoint(), sasFile));
        overrides.add(TreeCatTestServer.logLevel("INFO"));
        server = new TreeCatTestServer(directory, overrides.toArray(ConfigOverride[]::new));
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    private static List<ConfigOverride> catalog(String name, String location, String endpoint, Path secretFile) {
        String prefix = "warehouse.catalogs." + name + ".";
        return List.of(
                ConfigOverride.config(prefix + "location", location),
                ConfigOverride.config(
                        prefix + "properties.adls\\.connection-string\\." + HOST.replace(".", "\\."), endpoint),
                ConfigOverride.config(prefix + "credentials.source", "static"),
                ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()));
    }

    @AfterAll
    void stop() throws Exception {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        if (server != null) {
            server.close();
        }
        if (azurite != null) {
            azurite.close();
        }
    }

    private RESTCatalog client(String warehouse) {
        Map<String, String> properties = new HashMap<>();
        properties.put("uri", "http://127.0.0.1:" + server.port());
        properties.put("warehouse", warehouse);
        properties.put("io-impl", "org.apache.iceberg.azure.adlsv2.ADLSFileIO");
        properties.put("adls.connection-string." + HOST, azurite.endpoint());
        properties.put("adls.auth.shared-key.account.name", AzuriteServer.ACCOUNT);
        properties.put("adls.auth.shared-key.account.key", AzuriteServer.ACCOUNT_KEY);
        RESTCatalog client = new RESTCatalog();
        client.initialize("treecat-" + warehouse, properties);
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
    void tablesLiveInTheContainerThroughTheServersAdlsFileIO() throws Exception {
        try (RESTCatalog catalog = client("alake")) {
            Namespace ns = Namespace.of("sales");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "orders");
            Table table = catalog.createTable(id, SCHEMA);
            assertThat(table.location()).isEqualTo("abfss://lake@" + HOST + "/warehouse/sales/orders");
            table.newAppend().appendFile(file(table, "a")).commit();
            table.newAppend().appendFile(file(table, "b")).commit();

            Table loaded = catalog.loadTable(id);
            assertThat(loaded.snapshots()).hasSize(2);
            assertThat(((HasTableOperations) loaded).operations().current().metadataFileLocation())
                    .contains("/warehouse/sales/orders/metadata/00002-");
            assertThat(azurite.keys("lake").stream()
                            .filter(key -> key.startsWith("warehouse/sales/orders/metadata/")
                                    && key.endsWith(".metadata.json")))
                    .hasSize(3);
            assertThat(catalog.dropTable(id, false)).isTrue();
        }
    }

    @Test
    void aSasTokenFromTheSecretFileServesTheCatalog() throws Exception {
        try (RESTCatalog catalog = client("asas")) {
            Namespace ns = Namespace.of("ns");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "t");
            Table table = catalog.createTable(id, SCHEMA);
            table.newAppend().appendFile(file(table, "a")).commit();
            assertThat(catalog.loadTable(id).snapshots()).hasSize(1);
        }
        assertThat(azurite.keys("lake").stream()
                        .filter(key -> key.startsWith("sas/ns/t/metadata/") && key.endsWith(".metadata.json")))
                .hasSize(2);
    }

    @Test
    void aStoreThatRefusesTheKeyIs503AndCommitsNothing() throws Exception {
        server.post("/v1/adown/namespaces", "{\"namespace\": [\"ns\"]}");
        long vid = newestVid();
        TreeCatTestServer.Reply raw = server.post(
                "/v1/adown/namespaces/ns/tables",
                "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1,"
                        + " \"name\": \"id\", \"required\": true, \"type\": \"long\"}]}}");
        bodies.add(raw.body());
        assertThat(raw.status()).isEqualTo(503);
        assertThat(raw.error().get("type").asText()).isEqualTo("ServiceUnavailableException");
        assertThat(raw.error().get("message").asText())
                .startsWith("The catalog's object store failed")
                .contains("catalog=adown");
        assertThat(newestVid()).isEqualTo(vid);
        assertThat(server.get("/v1/adown/namespaces/ns/tables/t").status()).isEqualTo(404);
    }

    @Test
    void aDropWithPurgeDeletesTheTablesObjectsFromTheContainer() throws Exception {
        try (RESTCatalog catalog = client("alake")) {
            Namespace ns = Namespace.of("purged");
            catalog.createNamespace(ns);
            TableIdentifier id = TableIdentifier.of(ns, "clicks");
            Table table = catalog.createTable(id, SCHEMA);
            try (var out = table.io()
                    .newOutputFile(table.location() + "/data/a.parquet")
                    .create()) {
                out.write(new byte[100]);
            }
            table.newAppend().appendFile(file(table, "a")).commit();
            String prefix = "warehouse/purged/clicks/";
            assertThat(azurite.keys("lake").stream().filter(key -> key.startsWith(prefix)))
                    .hasSizeGreaterThanOrEqualTo(5);

            assertThat(catalog.dropTable(id, true)).isTrue();

            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (azurite.keys("lake").stream().anyMatch(key -> key.startsWith(prefix))
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(azurite.keys("lake")).noneMatch(key -> key.startsWith(prefix));
        }
    }

    private String cli(int expectedExit, String... arguments) throws Exception {
        String[] withServer = new String[arguments.length + 2];
        withServer[0] = arguments[0];
        withServer[1] = "--server";
        withServer[2] = server.grpcTarget();
        System.arraycopy(arguments, 1, withServer, 3, arguments.length - 1);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = new TreeCatApplication().runCommandLine(withServer, out, err);
        String text = out.toString(java.nio.charset.StandardCharsets.UTF_8)
                + err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(exit).as(text).isEqualTo(expectedExit);
        return text;
    }

    @Test
    void aCatalogAddedWithTheCliIsServedOnTheContainer() throws Exception {
        cli(
                0,
                "catalog",
                "add",
                "aruntime",
                "--warehouse",
                "abfss://lake@" + HOST + "/runtime",
                "--property",
                "adls.connection-string." + HOST + "=" + azurite.endpoint(),
                "--credentials",
                "static",
                "--secret-file",
                directory.resolve("lake-adls.properties").toString());
        try (RESTCatalog catalog = client("aruntime")) {
            catalog.createNamespace(Namespace.of("ns"));
            Table table = catalog.createTable(TableIdentifier.of("ns", "t"), SCHEMA);
            assertThat(table.location()).isEqualTo("abfss://lake@" + HOST + "/runtime/ns/t");
        }
        assertThat(azurite.keys("lake")).anyMatch(key -> key.startsWith("runtime/ns/t/metadata/00000-"));
        assertThat(server.get("/treecat/v1/objects?path=%2Faruntime").body())
                .contains("\"secret-file\"")
                .doesNotContain(AzuriteServer.ACCOUNT_KEY);

        // The key by environment variable: only its name is stored (the variable is read where the FileIO is built).
        cli(
                0,
                "catalog",
                "add",
                "aenv",
                "--warehouse",
                "abfss://lake@" + HOST + "/env",
                "--credentials",
                "static",
                "--account-key-env",
                "LAKE_ADLS_ACCOUNT_KEY");
        assertThat(server.get("/treecat/v1/objects?path=%2Faenv").body())
                .contains("\"account-key-env\": \"LAKE_ADLS_ACCOUNT_KEY\"");
    }

    /** The account key in no log line (with causes), error body, metrics or config response. */
    @Test
    void zzTheAccountKeyAppearsInNoLogLineErrorBodyOrMetric() throws Exception {
        bodies.add(server.admin("/metrics").body());
        bodies.add(server.admin("/metrics/prometheus").body());
        bodies.add(server.get("/v1/config?warehouse=alake").body());
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent event : logs.list) {
            lines.add(event.getFormattedMessage());
            for (ch.qos.logback.classic.spi.IThrowableProxy t = event.getThrowableProxy();
                    t != null;
                    t = t.getCause()) {
                lines.add(t.getClassName() + ": " + t.getMessage());
            }
        }
        assertThat(lines).as("the server logged").isNotEmpty();
        lines.addAll(bodies);
        for (String text : lines) {
            assertThat(text).doesNotContain(AzuriteServer.ACCOUNT_KEY);
            // The refused key too: the 403 it earned is in the logs and a body.
            assertThat(text).doesNotContain(WRONG_KEY);
            // The SAS's signature is its secret part.
            assertThat(text).doesNotContain(sasSignature());
        }
    }

    private static String wrongKey() {
        byte[] key = new byte[64];
        new java.security.SecureRandom().nextBytes(key);
        return java.util.Base64.getEncoder().encodeToString(key);
    }

    private String sasSignature() {
        for (String part : sas.split("&")) {
            if (part.startsWith("sig=")) {
                return part.substring("sig=".length());
            }
        }
        throw new IllegalStateException("A SAS without a signature");
    }

    private long newestVid() {
        return server.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }
}
