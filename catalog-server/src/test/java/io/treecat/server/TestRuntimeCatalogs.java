package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog with its own warehouse added while the server runs: with {@code treecat catalog add} (the CLI over gRPC),
 * served at once on the Iceberg REST API with its store (S3Proxy on loopback), its settings on the catalog object
 * with credentials only by reference. A key given as a property, or a scheme no store has, is refused by every
 * writer: the CLI before it sends anything, gRPC with INVALID_ARGUMENT, the JSON API with 400.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestRuntimeCatalogs {
    @TempDir
    static Path directory;

    private S3ProxyServer s3;
    private TreeCatTestServer server;
    private Path secretFile;

    @BeforeAll
    void start() throws Exception {
        s3 = new S3ProxyServer();
        s3.createBucket("lake");
        secretFile = directory.resolve("s3.properties");
        Files.writeString(
                secretFile,
                "access-key-id=" + S3ProxyServer.ACCESS_KEY + "\nsecret-access-key=" + S3ProxyServer.SECRET_KEY + "\n");
        server = new TreeCatTestServer(directory);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    private record Run(int exit, String err) {}

    private Run cli(String... arguments) throws Exception {
        // The command's own options come before its action (argparse4j's subparsers), as for "snapshot".
        String[] withServer = new String[arguments.length + 2];
        withServer[0] = arguments[0];
        withServer[1] = "--server";
        withServer[2] = server.grpcTarget();
        System.arraycopy(arguments, 1, withServer, 3, arguments.length - 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new TreeCatApplication().runCommandLine(withServer, out, err);
        return new Run(exit, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCatalogAddedWithTheCliIsServedOnItsStore() throws Exception {
        Run added = cli(
                "catalog",
                "add",
                "runtime",
                "--warehouse",
                "s3://lake/runtime",
                "--property",
                "s3.endpoint=" + s3.endpoint(),
                "--property",
                "s3.path-style-access=true",
                "--property",
                "client.region=us-east-1",
                "--credentials",
                "static",
                "--secret-file",
                secretFile.toString());
        assertThat(added.exit()).as(added.err()).isZero();

        Map<String, String> properties = new HashMap<>();
        properties.put("uri", "http://127.0.0.1:" + server.port());
        properties.put("warehouse", "runtime");
        properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("s3.endpoint", s3.endpoint());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", S3ProxyServer.ACCESS_KEY);
        properties.put("s3.secret-access-key", S3ProxyServer.SECRET_KEY);
        properties.put("client.region", "us-east-1");
        try (RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("runtime", properties);
            catalog.createNamespace(Namespace.of("ns"));
            Table table = catalog.createTable(
                    TableIdentifier.of("ns", "t"),
                    new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
            assertThat(table.location()).isEqualTo("s3://lake/runtime/ns/t");
        }
        assertThat(s3.keys("lake")).anyMatch(key -> key.startsWith("runtime/ns/t/metadata/00000-"));

        // The catalog object holds where the keys are, never the keys.
        String stored = server.get("/treecat/v1/objects?path=%2Fruntime").body();
        assertThat(stored)
                .contains("\"location\": \"s3://lake/runtime\"")
                .contains("\"secret-file\"")
                .doesNotContain(S3ProxyServer.ACCESS_KEY)
                .doesNotContain(S3ProxyServer.SECRET_KEY);
    }

    @Test
    void aKeyGivenAsAPropertyIsRefusedBeforeItLeavesTheCli() throws Exception {
        Run refused = cli(
                "catalog",
                "add",
                "leaky",
                "--warehouse",
                "s3://lake/leaky",
                "--property",
                "s3.endpoint=" + s3.endpoint(),
                "--property",
                "s3.secret-access-key=" + S3ProxyServer.SECRET_KEY);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err())
                .startsWith("treecat: INVALID_STORAGE_SETTINGS: A storage property holds a credential")
                .contains("key=properties.s3.secret-access-key")
                .doesNotContain(S3ProxyServer.SECRET_KEY);
        assertThat(server.get("/treecat/v1/objects?path=%2Fleaky").status()).isEqualTo(404);
    }

    @Test
    void everyWriterIsRefusedAnUnknownSchemeOrAnInlineKey() throws Exception {
        BsonDocument unknown = BsonDocument.parse(
                "{obj_type: 'catalog', location: 'foo://bucket/x', storage: {properties: {}, credentials: {}}}");
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            assertThatThrownBy(() -> client.commit(
                            WriteSet.of(new WriteOp.Add(ObjectPath.of("odd"), ObjectKind.INNER, unknown))))
                    .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                        assertThat(e.errorCode()).contains("UNSUPPORTED_LOCATION_SCHEME");
                    })
                    .hasMessageContaining("Unsupported location scheme: foo");
        }
        TreeCatTestServer.Reply inline = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/inline\", \"value\": {\"obj_type\": \"catalog\","
                        + " \"location\": \"s3://lake/inline\", \"storage\": {\"properties\": {\"s3.endpoint\":"
                        + " \"http://127.0.0.1:1\", \"s3.access-key-id\": \"" + S3ProxyServer.ACCESS_KEY + "\"}}}}]}");
        assertThat(inline.status()).isEqualTo(400);
        assertThat(inline.error().get("type").asText()).isEqualTo("INVALID_STORAGE_SETTINGS");
        assertThat(inline.body()).doesNotContain(S3ProxyServer.ACCESS_KEY);
        assertThat(server.get("/treecat/v1/objects?path=%2Finline").status()).isEqualTo(404);
    }
}
