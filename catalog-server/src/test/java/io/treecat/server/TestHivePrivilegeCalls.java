package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive's privilege and role calls on a real auth-on server (docs/security.md, "Hive's privilege and role calls"): a
 * role and a grant made over Thrift gate an Iceberg REST load of a built-in principal and show in the native grants
 * and who-can routes (what {@code treecat grants list} and {@code treecat who-can} read); a grant made natively shows
 * in {@code list_privileges}. The HMS port does not authenticate yet, so its calls run as {@code anonymous}, named an
 * admin here ({@code auth.admin-principals}), as the page says to do only in tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestHivePrivilegeCalls {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
    private static final ObjectMapper MAPPER = new ObjectMapper();

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
                        .encodeToString(
                                "treecat-hive-privileges-test-key-0123456789".getBytes(StandardCharsets.UTF_8)));
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
                ConfigOverride.config("auth.admin-principals", "admin,anonymous"),
                ConfigOverride.config("auth.token-signing-key-file", keyFile.toString()));
        try (RESTCatalog admin = client("admin")) {
            admin.createNamespace(Namespace.of("sales"));
            admin.createTable(ORDERS, SCHEMA);
        }
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aGrantMadeByHiveGatesAnIcebergLoadAndShowsInTheGrantsAndWhoCan() throws Exception {
        try (RESTCatalog reader = client("reader")) {
            assertThatThrownBy(() -> reader.loadTable(ORDERS)).isInstanceOf(NoSuchTableException.class);
        }
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            assertThat(hive.create_role(new Role("analysts", 0, null))).isTrue();
            assertThat(hive.grant_role(
                            "analysts", "reader", PrincipalType.USER, "anonymous", PrincipalType.USER, false))
                    .isTrue();
            assertThat(hive.grant_privileges(selectOnOrders("analysts", PrincipalType.ROLE)))
                    .isTrue();

            try (RESTCatalog reader = client("reader")) {
                assertThat(reader.loadTable(ORDERS).schema().asStruct()).isEqualTo(SCHEMA.asStruct());
            }
            String admin = token("admin");
            JsonNode listed = json(send(admin, "GET", "/treecat/v1/grants?on=/warehouse/sales/orders"));
            assertThat(listed.toString())
                    .contains("\"role\":\"analysts\"")
                    .contains("TABLE_READ_DATA")
                    .contains("/warehouse/sales/orders");
            String whoCan = send(admin, "GET", "/treecat/v1/who-can?path=/warehouse/sales/orders")
                    .body();
            assertThat(whoCan).contains("\"principal\":\"reader\"").contains("\"role\":\"analysts\"");

            // A grant made natively shows through Hive's call, under Hive's names.
            TreeCatTestServer.Reply granted = server.send(
                    "POST",
                    "/treecat/v1/grants",
                    "{\"principal\": \"reader\", \"privilege\": \"TABLE_WRITE\", \"on\": \"/warehouse/sales/orders\"}",
                    "Authorization",
                    "Bearer " + admin);
            assertThat(granted.status()).as(granted.body()).isEqualTo(201);
            assertThat(hive.list_privileges("reader", PrincipalType.USER, orders()))
                    .extracting(privilege -> privilege.getGrantInfo().getPrivilege())
                    .containsExactly("INSERT", "UPDATE", "DELETE");

            // Revoked over Thrift: the next load answers as for a missing table.
            assertThat(hive.revoke_privileges(selectOnOrders("analysts", PrincipalType.ROLE)))
                    .isTrue();
            assertThat(hive.revoke_privileges(bag("reader", PrincipalType.USER, "INSERT")))
                    .isTrue();
            try (RESTCatalog reader = client("reader")) {
                assertThatThrownBy(() -> reader.loadTable(ORDERS)).isInstanceOf(NoSuchTableException.class);
            }
        } finally {
            socket.close();
        }
    }

    private static HiveObjectRef orders() {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.TABLE, "sales", "orders", null, null);
        object.setCatName("hive");
        return object;
    }

    private static PrivilegeBag selectOnOrders(String principal, PrincipalType type) {
        return bag(principal, type, "SELECT");
    }

    private static PrivilegeBag bag(String principal, PrincipalType type, String privilege) {
        PrivilegeBag bag = new PrivilegeBag();
        bag.addToPrivileges(new HiveObjectPrivilege(
                orders(),
                principal,
                type,
                new PrivilegeGrantInfo(privilege, 0, "anonymous", PrincipalType.USER, false),
                "hive"));
        return bag;
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

    private TreeCatTestServer.Reply send(String token, String method, String path) {
        return server.send(method, path, null, "Authorization", "Bearer " + token);
    }

    private static JsonNode json(TreeCatTestServer.Reply reply) throws Exception {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return MAPPER.readTree(reply.body());
    }
}
