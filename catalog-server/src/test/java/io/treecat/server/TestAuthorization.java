package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequestParser;
import org.apache.iceberg.types.Types;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grants on a real server with {@code auth.enabled} (docs/security.md, "Authorization"): built-in principals get their
 * tokens from {@code /v1/oauth/tokens} through Iceberg's own {@code RESTCatalog}; the admin named in {@code
 * auth.admin-principals} makes a role, assigns it and grants it reads through the native API; the reader loads, lists
 * and plans and gets 403 on commit, drop and create; a principal without grants sees nothing and gets the answer of a
 * missing table; a grant and a revoke count from the next request; the grants at an old vid stay readable.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestAuthorization {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
    private static final TableIdentifier PAY = TableIdentifier.of("hr", "pay");

    @TempDir
    static Path directory;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private TreeCatTestServer server;
    private final Map<String, String> credentials = new HashMap<>();

    @BeforeAll
    void start() throws Exception {
        Path keyFile = directory.resolve("signing.key");
        Files.writeString(
                keyFile,
                Base64.getEncoder()
                        .encodeToString("treecat-authz-test-signing-key-0123456789".getBytes(StandardCharsets.UTF_8)));
        try (TreeCatTestServer open = new TreeCatTestServer(directory)) {
            for (String name : List.of("admin", "reader", "stranger", "loader")) {
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
        try (RESTCatalog admin = client("admin")) {
            admin.createNamespace(Namespace.of("sales"));
            admin.createNamespace(Namespace.of("hr"));
            admin.createTable(ORDERS, SCHEMA);
            admin.createTable(PAY, SCHEMA);
        }
        String admin = token("admin");
        assertThat(send(admin, "POST", "/treecat/v1/roles", "{\"name\": \"analysts\"}")
                        .status())
                .isEqualTo(201);
        assertThat(send(admin, "PUT", "/treecat/v1/roles/analysts/members/reader", null)
                        .status())
                .isEqualTo(204);
        TreeCatTestServer.Reply granted = send(
                admin,
                "POST",
                "/treecat/v1/grants",
                "{\"role\": \"analysts\", \"privilege\": \"TABLE_READ_DATA\", \"on\": \"/warehouse/sales\"}");
        assertThat(granted.status()).as(granted.body()).isEqualTo(201);
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
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

    @Test
    void theNativeApiOnEitherPortIsForHoldersOfAllOnTheRootOnlyExceptItsFilteredReads() throws Exception {
        // Its reads are filtered row by row (TestNativeQueryFiltering); everything else reads or writes raw objects.
        String reader = token("reader");
        TreeCatTestServer.Reply query = send(reader, "GET", "/treecat/v1/query?q=%2F*", null);
        assertThat(query.status()).as(query.body()).isEqualTo(200);
        assertThat(query.body()).contains("/warehouse").doesNotContain("/.system");
        // Closed by the resource matched, not the path's spelling.
        assertThat(send(reader, "GET", "/treecat/v1/commits", null).status()).isEqualTo(403);
        assertThat(send(reader, "GET", "/treecat/v1/changes", null).status()).isEqualTo(403);
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(reader)) {
            assertThat(client.get(ObjectPath.of("warehouse"), ReadPoint.LATEST)).isPresent();
            assertThatThrownBy(() -> client.listSnapshots()).isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                assertThat(e.statusCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                assertThat(e.getMessage()).contains("ALL");
            });
            assertThatThrownBy(() -> client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("forged"), ObjectKind.INNER, BsonDocument.parse("{}")))))
                    .isInstanceOfSatisfying(
                            TreeCatClientException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        }
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget()).withBearerToken(token("admin"))) {
            assertThat(client.get(ObjectPath.of("warehouse"), ReadPoint.LATEST)).isPresent();
            assertThat(client.get(ObjectPath.of("forged"), ReadPoint.LATEST)).isEmpty();
        }
        assertThat(send(token("admin"), "GET", "/treecat/v1/commits", null).status())
                .isEqualTo(200);
    }

    @Test
    void aReaderLoadsListsAndPlansAndIsForbiddenToCommitDropOrCreate() throws Exception {
        try (RESTCatalog reader = client("reader")) {
            Table orders = reader.loadTable(ORDERS);
            assertThat(reader.listNamespaces()).containsExactly(Namespace.of("sales"));
            assertThat(reader.listTables(Namespace.of("sales"))).containsExactly(ORDERS);
            TreeCatTestServer.Reply plan =
                    send(token("reader"), "POST", "/v1/warehouse/namespaces/sales/tables/orders/plan", "{}");
            assertThat(plan.status()).as(plan.body()).isEqualTo(200);

            assertThatThrownBy(() ->
                            orders.updateProperties().set("owner", "reader").commit())
                    .isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining("Permission denied")
                    .hasMessageContaining("privilege=TABLE_WRITE")
                    .hasMessageContaining("object=/warehouse/sales/orders");
            assertThatThrownBy(() -> reader.dropTable(ORDERS))
                    .isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining("privilege=TABLE_DROP");
            assertThatThrownBy(() -> reader.createTable(TableIdentifier.of("sales", "new"), SCHEMA))
                    .isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining("privilege=TABLE_CREATE")
                    .hasMessageContaining("object=/warehouse/sales");
            // HR is not the reader's: it is as if it did not exist.
            assertThatThrownBy(() -> reader.loadTable(PAY))
                    .isInstanceOf(NoSuchTableException.class)
                    .hasMessage("Table does not exist: hr.pay");
        }
        try (RESTCatalog admin = client("admin")) {
            assertThat(admin.loadTable(ORDERS).properties()).doesNotContainKey("owner");
            assertThat(admin.tableExists(ORDERS)).isTrue();
        }
    }

    @Test
    void writingTablesIsNotCreatingThemWhetherTheCreateIsStagedOrCommitted() throws Exception {
        // The loader may write every table of etl (TABLE_WRITE), not create one (TABLE_CREATE). Trino's CREATE
        // TABLE, Spark's CTAS and createTransaction() create by staging, then committing a change that asserts the
        // table does not exist: both steps are creates, checked on the namespace.
        try (RESTCatalog admin = client("admin")) {
            admin.createNamespace(Namespace.of("etl"));
        }
        TreeCatTestServer.Reply granted = send(
                token("admin"),
                "POST",
                "/treecat/v1/grants",
                "{\"principal\": \"loader\", \"privilege\": \"TABLE_WRITE\", \"on\": \"/warehouse/etl\"}");
        assertThat(granted.status()).as(granted.body()).isEqualTo(201);
        TableIdentifier staged = TableIdentifier.of("etl", "staged");
        try (RESTCatalog loader = client("loader")) {
            assertThatThrownBy(() -> loader.buildTable(staged, SCHEMA)
                            .createTransaction()
                            .commitTransaction())
                    .isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining("privilege=TABLE_CREATE")
                    .hasMessageContaining("object=/warehouse/etl");
        }
        // The commit alone, as a client that skipped the staging would send it.
        String commit = UpdateTableRequestParser.toJson(UpdateTableRequest.create(
                staged,
                List.of(new UpdateRequirement.AssertTableDoesNotExist()),
                List.of(
                        new MetadataUpdate.AssignUUID(UUID.randomUUID().toString()),
                        new MetadataUpdate.UpgradeFormatVersion(2),
                        new MetadataUpdate.AddSchema(SCHEMA),
                        new MetadataUpdate.SetCurrentSchema(-1),
                        new MetadataUpdate.AddPartitionSpec(PartitionSpec.unpartitioned()),
                        new MetadataUpdate.SetDefaultPartitionSpec(-1),
                        new MetadataUpdate.AddSortOrder(SortOrder.unsorted()),
                        new MetadataUpdate.SetDefaultSortOrder(-1))));
        TreeCatTestServer.Reply committed =
                send(token("loader"), "POST", "/v1/warehouse/namespaces/etl/tables/staged", commit);
        assertThat(committed.status()).as(committed.body()).isEqualTo(403);
        assertThat(committed.body()).contains("TABLE_CREATE").contains("/warehouse/etl");
        try (RESTCatalog admin = client("admin")) {
            assertThat(admin.tableExists(staged)).isFalse();
            // Writing an existing table is the loader's.
            admin.createTable(TableIdentifier.of("etl", "events"), SCHEMA);
        }
        try (RESTCatalog loader = client("loader")) {
            loader.loadTable(TableIdentifier.of("etl", "events"))
                    .updateProperties()
                    .set("owner", "loader")
                    .commit();
            assertThat(loader.loadTable(TableIdentifier.of("etl", "events")).properties())
                    .containsEntry("owner", "loader");
        }
    }

    @Test
    void aPrincipalWithoutGrantsSeesNothingAndGetsTheAnswerOfAMissingTable() throws Exception {
        try (RESTCatalog stranger = client("stranger");
                RESTCatalog admin = client("admin")) {
            assertThat(stranger.listNamespaces()).isEmpty();
            assertThatThrownBy(() -> stranger.listTables(Namespace.of("sales")))
                    .isInstanceOf(NoSuchNamespaceException.class)
                    .hasMessage("Namespace does not exist: sales");
            // The same answer for a table that exists and one that does not: nothing tells them apart.
            TableIdentifier missing = TableIdentifier.of("sales", "missing");
            assertThatThrownBy(() -> stranger.loadTable(ORDERS))
                    .isInstanceOf(NoSuchTableException.class)
                    .hasMessage("Table does not exist: sales.orders");
            assertThatThrownBy(() -> admin.loadTable(missing))
                    .isInstanceOf(NoSuchTableException.class)
                    .hasMessage("Table does not exist: sales.missing");
            assertThatThrownBy(() -> stranger.loadTable(missing))
                    .isInstanceOf(NoSuchTableException.class)
                    .hasMessage("Table does not exist: sales.missing");
            assertThat(stranger.tableExists(ORDERS)).isFalse();
        }
        String stranger = token("stranger");
        TreeCatTestServer.Reply raw = send(stranger, "GET", "/v1/warehouse/namespaces/sales/tables/orders", null);
        TreeCatTestServer.Reply missing = send(stranger, "GET", "/v1/warehouse/namespaces/sales/tables/missing", null);
        assertThat(raw.status()).isEqualTo(404);
        assertThat(raw.body()).isEqualTo(missing.body().replace("sales.missing", "sales.orders"));
    }

    @Test
    void aGrantAndARevokeCountFromTheNextRequestAndOldGrantsStayReadable() throws Exception {
        String admin = token("admin");
        String grant =
                "{\"principal\": \"stranger\", \"privilege\": \"TABLE_READ_METADATA\", \"on\": \"/warehouse/hr/pay\"}";
        try (RESTCatalog stranger = client("stranger")) {
            assertThat(send(admin, "POST", "/treecat/v1/grants", grant).status())
                    .isEqualTo(201);
            assertThat(stranger.loadTable(PAY).name()).endsWith("hr.pay");
            assertThat(stranger.listNamespaces()).containsExactly(Namespace.of("hr"));
            long granted = send(admin, "GET", "/treecat/v1/commits?limit=1&order=newest", null)
                    .json()
                    .get("commits")
                    .get(0)
                    .get("vid")
                    .asLong();

            assertThat(send(admin, "POST", "/treecat/v1/grants/revoke", grant).status())
                    .isEqualTo(204);
            assertThatThrownBy(() -> stranger.loadTable(PAY)).isInstanceOf(NoSuchTableException.class);

            JsonNode then = send(admin, "GET", "/treecat/v1/grants?on=%2Fwarehouse%2Fhr&vid=" + granted, null)
                    .json();
            assertThat(then.get("grants").findValuesAsText("principal")).containsExactly("stranger");
            JsonNode now = send(admin, "GET", "/treecat/v1/grants?on=%2Fwarehouse%2Fhr", null)
                    .json();
            assertThat(now.get("grants")).isEmpty();
        }
    }

    @Test
    void managementNeedsManageGrantsAndWhoCanNamesEveryHolder() throws Exception {
        String reader = token("reader");
        TreeCatTestServer.Reply refused = send(
                reader,
                "POST",
                "/treecat/v1/grants",
                "{\"principal\": \"reader\", \"privilege\": \"ALL\", \"on\": \"/warehouse\"}");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.error().get("type").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(send(reader, "POST", "/treecat/v1/roles", "{\"name\": \"mine\"}")
                        .status())
                .isEqualTo(403);
        // The native data routes other than the filtered reads: only a holder of ALL on the root.
        assertThat(send(reader, "GET", "/treecat/v1/commits", null).status()).isEqualTo(403);
        assertThat(send(reader, "GET", "/treecat/v1/principals", null).status()).isEqualTo(403);

        JsonNode whoCan = send(token("admin"), "GET", "/treecat/v1/who-can?path=%2Fwarehouse%2Fsales%2Forders", null)
                .json();
        assertThat(whoCan.get("holders").toString())
                .contains("{\"principal\":\"admin\",\"privilege\":\"ALL\",\"on\":\"/\"}")
                .contains("{\"principal\":\"reader\",\"privilege\":\"TABLE_READ_DATA\",\"on\":\"/warehouse/sales\","
                        + "\"role\":\"analysts\"}");
        assertThat(send(token("admin"), "GET", "/treecat/v1/query?q=%2F*", null).status())
                .isEqualTo(200);
    }

    @Test
    void theCliManagesRolesAndGrantsAndSaysWhoCan() throws Exception {
        Path adminFile = directory.resolve("admin.credential");
        Files.writeString(adminFile, credentials.get("admin"));
        Path readerFile = directory.resolve("reader.credential");
        Files.writeString(readerFile, credentials.get("reader"));
        String http = "http://127.0.0.1:" + server.port();

        assertThat(cli(0, "roles", "--http", http, "--credential-file", adminFile.toString(), "create", "auditors"))
                .contains("\"created\": \"auditors\"");
        cli(0, "roles", "--http", http, "--credential-file", adminFile.toString(), "assign", "auditors", "ghost");
        assertThat(cli(
                        0,
                        "grants",
                        "--http",
                        http,
                        "--credential-file",
                        adminFile.toString(),
                        "grant",
                        "TABLE_READ_METADATA",
                        "/warehouse/hr",
                        "--role",
                        "auditors"))
                .contains("\"granted\"");
        assertThat(cli(0, "who-can", "--http", http, "--credential-file", adminFile.toString(), "/warehouse/hr/pay"))
                .contains("{\"principal\": \"ghost\", \"privilege\": \"TABLE_READ_METADATA\", \"on\": "
                        + "\"/warehouse/hr\", \"via\": \"role auditors\"}")
                .contains("\"principal\": \"admin\", \"privilege\": \"ALL\"");
        assertThat(cli(0, "grants", "--http", http, "--credential-file", adminFile.toString(), "list", "/warehouse/hr"))
                .contains("\"grantee\": \"role auditors\"");
        assertThat(cli(
                        1,
                        "grants",
                        "--http",
                        http,
                        "--credential-file",
                        readerFile.toString(),
                        "grant",
                        "ALL",
                        "/warehouse",
                        "--principal",
                        "reader"))
                .contains("treecat: HTTP 403 PERMISSION_DENIED: Permission denied")
                .contains("MANAGE_GRANTS");
        assertThat(cli(1, "roles", "--http", http, "--credential-file", adminFile.toString(), "assign", "nope", "x"))
                .contains("HTTP 404 ROLE_NOT_FOUND: No role with this name");
        cli(0, "roles", "--http", http, "--credential-file", adminFile.toString(), "drop", "auditors");
        assertThat(cli(0, "who-can", "--http", http, "--credential-file", adminFile.toString(), "/warehouse/hr/pay"))
                .doesNotContain("ghost");
    }

    @Test
    void aHiveChangeOverPlainSaslIsInTheAuditTrailUnderItsPrincipal() throws Exception {
        // The audit trail is the commit log (docs/security.md, "Audit"): a Hive client's change is recorded with the
        // principal its SASL login proved, the operation, the paths and the vid, like a REST or native change.
        HiveMetaStoreClient hive = hive("admin", "");
        try {
            Database audited = new Database();
            audited.setName("audited_by_hive");
            hive.createDatabase(audited);
        } finally {
            hive.close();
        }
        TreeCatTestServer.Reply newest =
                send(token("admin"), "GET", "/treecat/v1/commits?limit=5&order=newest&principal=admin", null);
        assertThat(newest.status()).as(newest.body()).isEqualTo(200);
        JsonNode created = null;
        for (JsonNode commit : newest.json().get("commits")) {
            if (commit.path("changes").toString().contains("audited_by_hive")) {
                created = commit;
                break;
            }
        }
        assertThat(created).as(newest.body()).isNotNull();
        assertThat(created.get("principal").asText()).isEqualTo("admin");
        assertThat(created.get("interface").asText()).isEqualTo("hms");
        assertThat(created.get("operation").asText()).isNotBlank();
        assertThat(created.get("vid").asLong()).isPositive();
        assertThat(created.get("changes").toString()).contains("/warehouse/audited_by_hive");
    }

    @Test
    void hiveClientsAreAnonymousAndGetNothingWithAuthOn() throws Exception {
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client thrift = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            assertThatThrownBy(thrift::get_all_databases).isInstanceOf(MetaException.class);
            assertThatThrownBy(() -> thrift.get_table_req(new GetTableRequest("sales", "orders")))
                    .isInstanceOf(NoSuchObjectException.class)
                    .hasMessageContaining("sales");
            Database evil = new Database();
            evil.setName("evil");
            assertThatThrownBy(() -> thrift.create_database(evil)).isInstanceOf(TException.class);
            // The connection and the server are still up, and nothing was written.
            assertThatThrownBy(thrift::get_all_databases).isInstanceOf(MetaException.class);
        } finally {
            socket.close();
        }
        try (RESTCatalog admin = client("admin")) {
            assertThat(admin.listNamespaces()).doesNotContain(Namespace.of("evil"));
        }
    }

    /** Hive 4's own client over SASL PLAIN, the secret in a JCEKS store made with Hadoop's own API, as users do. */
    private HiveMetaStoreClient hive(String principal, String secretSuffix) throws Exception {
        String[] credential = credentials.get(principal).split(":", 2);
        Path file = Files.createTempFile(directory, principal, ".jceks");
        Files.delete(file);
        String store = "jceks://file" + file.toAbsolutePath();
        Configuration storeConf = new Configuration(false);
        storeConf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, store);
        CredentialProvider provider =
                CredentialProviderFactory.getProviders(storeConf).get(0);
        provider.createCredentialEntry(credential[0], (credential[1] + secretSuffix).toCharArray());
        provider.flush();
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", "thrift://127.0.0.1:" + server.hmsPort());
        conf.set("metastore.connect.retries", "1");
        conf.set("metastore.client.connect.retry.delay", "0s");
        conf.set("metastore.client.auth.mode", "PLAIN");
        conf.set("metastore.client.plain.username", credential[0]);
        conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, store);
        conf.set("hadoop.security.credential.clear-text-fallback", "false");
        return new HiveMetaStoreClient(conf);
    }

    @Test
    void hiveClientsOverPlainSaslGetTheirPrincipalsGrants() throws Exception {
        try (HiveMetaStoreClient reader = hive("reader", "")) {
            assertThat(reader.getAllDatabases()).containsExactly("sales");
            assertThat(reader.getAllTables("sales")).containsExactly("orders");
            org.apache.hadoop.hive.metastore.api.Table orders = reader.getTable("sales", "orders");
            assertThat(orders.getTableName()).isEqualTo("orders");
            assertThat(reader.getTableObjectsByName("sales", List.of("orders", "missing")))
                    .extracting(org.apache.hadoop.hive.metastore.api.Table::getTableName)
                    .containsExactly("orders");
            // hr is not the reader's: the same answer as a table that does not exist.
            String missing = catchMessage(() -> reader.getTable("hr", "nope"));
            assertThat(catchMessage(() -> reader.getTable("hr", "pay"))).isEqualTo(missing.replace("nope", "pay"));

            org.apache.hadoop.hive.metastore.api.Table copy = orders.deepCopy();
            copy.setTableName("copy");
            assertThatThrownBy(() -> reader.createTable(copy))
                    .isInstanceOf(MetaException.class)
                    .hasMessageContaining("privilege=TABLE_CREATE")
                    .hasMessageContaining("object=/warehouse/sales/copy}");
            assertThatThrownBy(() -> reader.dropTable("sales", "orders"))
                    .isInstanceOf(MetaException.class)
                    .hasMessageContaining("privilege=TABLE_DROP");
            org.apache.hadoop.hive.metastore.api.Table altered = orders.deepCopy();
            altered.getParameters().put("owner-note", "x");
            assertThatThrownBy(() -> reader.alter_table("sales", "orders", altered))
                    .isInstanceOf(MetaException.class)
                    .hasMessageContaining("privilege=TABLE_WRITE");
        }
        try (HiveMetaStoreClient stranger = hive("stranger", "")) {
            assertThat(stranger.getAllDatabases()).isEmpty();
            // A database it may not see answers as a missing one does, whether it exists or not.
            assertThat(catchMessage(() -> stranger.getTableObjectsByName("sales", List.of("orders"))))
                    .isEqualTo(catchMessage(() -> stranger.getTableObjectsByName("nodb", List.of("orders")))
                            .replace("nodb", "sales"));
        }
        assertThatThrownBy(() -> hive("reader", "x"))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Authentication failed: unknown client id or wrong secret")
                .hasMessageNotContaining(credentials.get("reader").split(":", 2)[1]);
        try (RESTCatalog admin = client("admin")) {
            assertThat(admin.listTables(Namespace.of("sales"))).containsExactly(ORDERS);
            assertThat(admin.loadTable(ORDERS).properties()).doesNotContainKey("owner-note");
        }
    }

    @Test
    void hiveOverHttpTakesTheRestTokenAndRefusesAMissingOrTamperedOne() throws Exception {
        String url = "http://127.0.0.1:" + server.port() + "/metastore";
        String token = token("reader");
        THttpClient http = new THttpClient(url);
        http.setCustomHeader("Authorization", "Bearer " + token);
        ThriftHiveMetastore.Client reader = new ThriftHiveMetastore.Client(new TBinaryProtocol(http));
        assertThat(reader.get_all_databases()).containsExactly("sales");
        assertThat(reader.get_all_tables("sales")).containsExactly("orders");
        Database evil = new Database();
        evil.setName("evil");
        assertThatThrownBy(() -> reader.create_database(evil)).isInstanceOf(MetaException.class);

        // A token with one claim character changed, and none at all: 401 before any call runs.
        String[] parts = token.split("\\.");
        String tampered = parts[0] + "." + parts[1].substring(0, parts[1].length() - 2)
                + (parts[1].endsWith("A") ? "B" : "A") + parts[1].charAt(parts[1].length() - 1) + "." + parts[2];
        for (String header : new String[] {"Bearer " + tampered, null}) {
            THttpClient refused = new THttpClient(url);
            if (header != null) {
                refused.setCustomHeader("Authorization", header);
            }
            ThriftHiveMetastore.Client client = new ThriftHiveMetastore.Client(new TBinaryProtocol(refused));
            assertThatThrownBy(() -> client.create_database(evil))
                    .isInstanceOf(TTransportException.class)
                    .hasMessageContaining("401");
        }

        // Hive's own client, which reads the token from HMS_JWT only: in a child JVM.
        assertThat(hiveJwtClient(token)).contains("databases=[sales]").contains("tables=[orders]");
        assertThat(hiveJwtClient(tampered)).contains("failed=").doesNotContain("databases=");
        try (RESTCatalog admin = client("admin")) {
            assertThat(admin.listNamespaces()).doesNotContain(Namespace.of("evil"));
        }
    }

    /** Runs HiveJwtClientMain with {@code HMS_JWT} set to {@code token}; answers what it printed. */
    private String hiveJwtClient(String token) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                HiveJwtClientMain.class.getName(),
                String.valueOf(server.port()),
                "sales");
        builder.environment().put("HMS_JWT", token);
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return output;
    }

    private static String catchMessage(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(thrown).isNotNull();
        return thrown.getClass().getSimpleName() + ": " + thrown.getMessage();
    }

    /** Runs the command line in-process; answers what it printed (standard output, then error). */
    private static String cli(int expectedExit, String... arguments) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        // The command prints to System.out, as every remote command does.
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            exit = new TreeCatApplication().runCommandLine(arguments, out, err);
        } finally {
            System.setOut(saved);
        }
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isEqualTo(expectedExit);
        return text;
    }
}
