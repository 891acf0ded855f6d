package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.treecat.server.TreeCatTestServer.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile names and locations (issue 24, items 1 and 4, and the name parts of 5) against the real
 * server over real HTTP, raw sockets and the HMS Thrift port. Every refusal is checked for its status
 * and message, for a body that names no server path, for a tree that did not change (same newest vid,
 * no object) and for a file tree that did not change either, inside or outside the warehouse. Names a
 * path cannot hold but Iceberg allows are kept, and land in one escaped directory of the warehouse.
 */
class TestHostileNames {
    private static final String SCHEMA =
            "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"}]}";
    private static final String VIEW_VERSION = "{\"version-id\":1,\"schema-id\":0,\"timestamp-ms\":1,\"summary\":{},"
            + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}],"
            + "\"default-namespace\":[\"ns\"]}";

    @TempDir
    static Path directory;

    private static TreeCatTestServer server;
    private static Path warehouse;

    @BeforeAll
    static void start() throws Exception {
        server = new TreeCatTestServer(directory);
        warehouse = directory.resolve("warehouse").toAbsolutePath().normalize();
        assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\":[\"ns\"]}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    // ---- item 1: names and locations that escaped the warehouse

    @Test
    void aRawRestPrefixOfDotDotNeverReachesTheFileSystem() throws IOException {
        for (String prefix : List.of("..", ".")) {
            Reply reply =
                    refusedUntouched(() -> raw("POST", "/v1/" + prefix + "/namespaces", "{\"namespace\":[\"pfx\"]}"));
            assertError(
                    reply,
                    400,
                    "BadRequestException",
                    "Invalid catalog name: it is '.' or '..', or has such a part between slashes {kind=catalog, name="
                            + prefix + "}");
            assertThat(objectExists("/" + prefix.replace("/", "\\/"))).isFalse();
        }
        assertThat(directory.resolve("pfx")).doesNotExist();
    }

    @Test
    void aNamespaceThatWouldClimbOutOfTheWarehouseIsRefused() throws Exception {
        for (String name : List.of("../../up2", "..", "ok/../..", "a\\..")) {
            Reply reply = refusedUntouched(() -> createNamespace(name));
            assertError(
                    reply,
                    400,
                    "BadRequestException",
                    "Invalid namespace name: it is '.' or '..', or has such a part between slashes");
            // Nested below an existing namespace too: every level is a path segment.
            refusedUntouched(() -> server.post(
                    "/v1/warehouse/namespaces",
                    "{\"namespace\":[\"ns\"," + TreeCatTestServer.JSON.valueToTree(name) + "]}"));
        }
        assertThat(directory.resolve("up2")).doesNotExist();

        // Iceberg's own client gets its BadRequestException.
        try (RESTCatalog iceberg = server.icebergClient()) {
            assertThatThrownBy(() -> iceberg.createNamespace(Namespace.of("../../up2")))
                    .isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("Invalid namespace name: it is '.' or '..'");
        }
    }

    @Test
    void aTableLocationWithDotDotIsRefusedAndLeavesNoDirectory() throws IOException {
        String inside = "file:" + warehouse;
        for (String location : List.of(
                inside + "/warehouse/ns/../../../escaped",
                "file:" + warehouse + "/warehouse/ns/t/../../../../escaped",
                inside + "/warehouse/ns/a%2F..%2F..%2F..%2F..%2Fescaped",
                "file:" + directory + "/./escaped")) {
            Reply reply = refusedUntouched(() -> server.post(
                    "/v1/warehouse/namespaces/ns/tables",
                    "{\"name\":\"t\",\"location\":\"" + location + "\",\"schema\":" + SCHEMA + "}"));
            assertError(
                    reply,
                    400,
                    "BadRequestException",
                    "Invalid location: it has a '.' or '..' path segment {field=location}");
            // A staged create is checked the same way.
            refusedUntouched(() -> server.post(
                    "/v1/warehouse/namespaces/ns/tables",
                    "{\"name\":\"t\",\"stage-create\":true,\"location\":\"" + location + "\",\"schema\":" + SCHEMA
                            + "}"));
        }
        Reply metadataPath = refusedUntouched(() -> server.post(
                "/v1/warehouse/namespaces/ns/tables",
                "{\"name\":\"t\",\"schema\":" + SCHEMA + ",\"properties\":{\"write.metadata.path\":\"" + inside
                        + "/../m\"}}"));
        assertError(
                metadataPath,
                400,
                "BadRequestException",
                "Invalid location: it has a '.' or '..' path segment {field=write.metadata.path}");
        assertThat(server.get("/v1/warehouse/namespaces/ns/tables/t").status()).isEqualTo(404);
        assertThat(directory.resolve("escaped")).doesNotExist();
    }

    @Test
    void viewsFollowTheSameRules() throws IOException {
        Reply name = refusedUntouched(() -> createView("..", null));
        assertError(
                name,
                400,
                "BadRequestException",
                "Invalid view name: it is '.' or '..', or has such a part between slashes");
        Reply dotted = refusedUntouched(() -> createView("../v", null));
        assertError(
                dotted,
                400,
                "BadRequestException",
                "Invalid view name: it is '.' or '..', or has such a part between slashes");
        Reply location = refusedUntouched(() -> createView("v", "file:" + warehouse + "/warehouse/ns/../../../v"));
        assertError(
                location,
                400,
                "BadRequestException",
                "Invalid location: it has a '.' or '..' path segment {field=location}");
    }

    @Test
    void hiveDatabasesNamedDotDotOrWithASlashAreRefused() throws Exception {
        List<Path> before = files();
        long vid = newestVid();
        try (Hms hms = new Hms()) {
            for (String name : List.of("..", "x/y", "a.b")) {
                Database db = new Database();
                db.setName(name);
                db.setParameters(new HashMap<>());
                assertThatThrownBy(() -> hms.client.create_database(db))
                        .as(name)
                        .isInstanceOf(InvalidObjectException.class)
                        .hasMessage(name + " is not a valid database name");
            }
            assertThat(hms.client.get_all_databases()).doesNotContain("..", "x/y", "a.b", "x");

            // A Hive table named '..' (or with such a location) is refused by the lake's own rule.
            assertThatThrownBy(() -> hms.client.create_table(hiveTable("ns", "..", null)))
                    .isInstanceOf(InvalidObjectException.class)
                    .hasMessage("Invalid table name: it is '.' or '..', or has such a part between slashes");
            assertThatThrownBy(() -> hms.client.create_table(
                            hiveTable("ns", "t", "file:" + warehouse + "/warehouse/ns/../../../hive_escape")))
                    .isInstanceOf(InvalidObjectException.class)
                    .hasMessage("Invalid location: it has a '.' or '..' path segment");
            Database outside = new Database();
            outside.setName("outside");
            outside.setLocationUri("file:" + warehouse + "/../db_escape");
            outside.setParameters(new HashMap<>());
            assertThatThrownBy(() -> hms.client.create_database(outside))
                    .isInstanceOf(InvalidObjectException.class)
                    .hasMessage("Invalid location: it has a '.' or '..' path segment");
            assertThat(hms.client.get_all_databases()).doesNotContain("outside");
            assertThat(hms.client.get_all_tables("ns")).doesNotContain("..", "t");
        }
        assertThat(newestVid()).isEqualTo(vid);
        assertThat(files()).isEqualTo(before);
    }

    // ---- item 4: failed requests that changed the store

    @Test
    void aNameLongerThan255BytesIsRefusedBeforeAnythingIsCreated() throws IOException {
        String name = "a".repeat(300);
        Reply reply = refusedUntouched(() -> createNamespace(name));
        assertError(reply, 400, "BadRequestException", "Invalid namespace name: it is longer than 255 bytes of UTF-8");
        assertThat(reply.error().get("message").asText()).contains("bytes=300", "maxBytes=255");
        assertThat(server.get("/v1/warehouse/namespaces/" + name).status()).isEqualTo(404);

        Reply table = refusedUntouched(() -> server.post(
                "/v1/warehouse/namespaces/ns/tables",
                "{\"name\":\"" + "é".repeat(128) + "\",\"schema\":" + SCHEMA + "}"));
        assertError(table, 400, "BadRequestException", "Invalid table name: it is longer than 255 bytes of UTF-8");
        // 255 bytes is a name.
        assertThat(createNamespace("b".repeat(255)).status()).isEqualTo(200);
        assertThat(warehouse.resolve("warehouse").resolve("b".repeat(255))).isDirectory();
    }

    @Test
    void loneSurrogatesAreRefusedNeverStoredAsQuestionMarks() throws IOException {
        for (String escaped : List.of("s\\ud800", "s\\udc00", "\\udc00\\ud800")) {
            Reply reply = refusedUntouched(
                    () -> server.post("/v1/warehouse/namespaces", "{\"namespace\":[\"" + escaped + "\"]}"));
            assertError(
                    reply,
                    400,
                    "BadRequestException",
                    "Invalid namespace name: it is not well-formed Unicode (it has a lone surrogate)");
        }
        // Nothing collided on "s?": that name is free, and a real "s?" is its own namespace.
        assertThat(server.get("/v1/warehouse/namespaces/s%3F").status()).isEqualTo(404);
        assertThat(createNamespace("s?").status()).isEqualTo(200);
        assertThat(server.delete("/v1/warehouse/namespaces/s%3F").status()).isEqualTo(204);

        // The native API refuses them as paths (they have no UTF-8 form).
        Reply nativeWrite = refusedUntouched(() -> server.post(
                "/treecat/v1/commit", "{\"writes\":[{\"op\":\"add\",\"path\":\"/free\\ud800\",\"value\":{}}]}"));
        assertThat(nativeWrite.status()).isEqualTo(400);
        assertThat(nativeWrite.error().get("message").asText())
                .contains("is not well-formed Unicode (it has a lone surrogate)");
    }

    // ---- item 5, the name parts: coercion instead of refusal

    @Test
    void aControlCharacterInANameIsRefusedSoEveryNameCanBeLoadedAndDropped() throws IOException {
        for (String escaped : List.of("c\\u001fd", "c\\u007fd", "tab\\there", "line\\nbreak")) {
            Reply reply = refusedUntouched(
                    () -> server.post("/v1/warehouse/namespaces", "{\"namespace\":[\"" + escaped + "\"]}"));
            assertError(reply, 400, "BadRequestException", "Invalid namespace name: it holds a control character");
        }
        // Iceberg's own request parser refuses a NUL in a namespace level already.
        assertError(
                refusedUntouched(() -> server.post("/v1/warehouse/namespaces", "{\"namespace\":[\"c\\u0000d\"]}")),
                400,
                "BadRequestException",
                "Malformed request: Cannot create a namespace with the null-byte character");
        Reply table = refusedUntouched(() -> server.post(
                "/v1/warehouse/namespaces/ns/tables", "{\"name\":\"t\\u001f1\",\"schema\":" + SCHEMA + "}"));
        assertError(table, 400, "BadRequestException", "Invalid table name: it holds a control character");
        // Through the native API, a lake object under a catalog follows the same rule (the commit's validator).
        Reply nativeWrite = refusedUntouched(
                () -> server.post(
                        "/treecat/v1/commit",
                        "{\"writes\":[{\"op\":\"add\",\"path\":\"/warehouse/c\\u001fd\",\"value\":{\"obj_type\":\"namespace\",\"properties\":{}}}]}"));
        assertThat(nativeWrite.status()).isEqualTo(400);
        assertThat(nativeWrite.error().get("type").asText()).isEqualTo("INVALID_NAME");
        assertThat(nativeWrite.error().get("message").asText())
                .isEqualTo("Invalid namespace name: it holds a control character");
    }

    @Test
    void aNullNamespaceLevelIsRefusedNotCreatedAsTheTextNull() throws IOException {
        for (String levels : List.of("[null]", "[\"ns\", null]", "[1]")) {
            Reply reply =
                    refusedUntouched(() -> server.post("/v1/warehouse/namespaces", "{\"namespace\":" + levels + "}"));
            assertError(reply, 400, "BadRequestException", "Malformed request: namespace levels must be strings, not ");
        }
        assertThat(server.get("/v1/warehouse/namespaces/null").status()).isEqualTo(404);
    }

    // ---- what is kept

    @Test
    void namesIcebergAllowsAreKeptAndEscapedInOneDirectoryOfTheWarehouse() throws Exception {
        try (RESTCatalog iceberg = server.icebergClient()) {
            Namespace slashed = Namespace.of("x/y");
            iceberg.createNamespace(slashed);
            iceberg.createNamespace(Namespace.of("x/y", "50%"));
            TableIdentifier table = TableIdentifier.of(Namespace.of("x/y", "50%"), "t\\1");
            iceberg.createTable(
                    table, new org.apache.iceberg.Schema(Types.NestedField.required(1, "id", Types.LongType.get())));

            String root = "file:" + warehouse + "/warehouse";
            assertThat(iceberg.loadNamespaceMetadata(slashed)).containsEntry("location", root + "/x%2Fy");
            assertThat(iceberg.loadTable(table).location()).isEqualTo(root + "/x%2Fy/50%25/t%5C1");
            assertThat(warehouse.resolve("warehouse/x%2Fy/50%25/t%5C1/metadata"))
                    .isDirectory();
            assertThat(warehouse.resolve("warehouse/x")).doesNotExist();

            assertThat(iceberg.dropTable(table)).isTrue();
            assertThat(iceberg.dropNamespace(Namespace.of("x/y", "50%"))).isTrue();
            assertThat(iceberg.dropNamespace(slashed)).isTrue();
        }
    }

    // ---- the switches

    @Test
    void withExternalLocationsRefusedAndShorterNamesTheServerKeepsEverythingInside(@TempDir Path other)
            throws Exception {
        try (TreeCatTestServer strict = new TreeCatTestServer(
                other,
                ConfigOverride.config("warehouse.allow-external-locations", "false"),
                ConfigOverride.config("lake.max-name-bytes", "16"))) {
            assertThat(strict.post("/v1/warehouse/namespaces", "{\"namespace\":[\"s\"]}")
                            .status())
                    .isEqualTo(200);
            Reply longName = strict.post("/v1/warehouse/namespaces", "{\"namespace\":[\"" + "n".repeat(17) + "\"]}");
            assertError(
                    longName,
                    400,
                    "BadRequestException",
                    "Invalid namespace name: it is longer than 16 bytes of UTF-8");

            String elsewhere = "file:" + other.toAbsolutePath().normalize() + "/elsewhere";
            Reply table = strict.post(
                    "/v1/warehouse/namespaces/s/tables",
                    "{\"name\":\"t\",\"location\":\"" + elsewhere + "\",\"schema\":" + SCHEMA + "}");
            assertError(
                    table,
                    400,
                    "BadRequestException",
                    "Invalid location: it is outside the catalog's warehouse, and this server keeps every location"
                            + " inside it (warehouse.allow-external-locations)");
            assertThat(table.body()).doesNotContain(other.toString());
            Reply namespace = strict.post(
                    "/v1/warehouse/namespaces",
                    "{\"namespace\":[\"o\"],\"properties\":{\"location\":\"" + elsewhere + "\"}}");
            assertError(
                    namespace, 400, "BadRequestException", "Invalid location: it is outside the catalog's warehouse");
            assertThat(other.resolve("elsewhere")).doesNotExist();
            assertThat(strict.get("/v1/warehouse/namespaces/o").status()).isEqualTo(404);

            // Inside, as before; and the HMS port holds the same rule (at commit, for what it stages itself).
            assertThat(strict.post("/v1/warehouse/namespaces/s/tables", "{\"name\":\"t\",\"schema\":" + SCHEMA + "}")
                            .status())
                    .isEqualTo(200);
            TSocket socket = new TSocket("127.0.0.1", strict.hmsPort());
            socket.open();
            try {
                ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
                Database db = new Database();
                db.setName("hive_out");
                db.setLocationUri(elsewhere);
                db.setParameters(new HashMap<>());
                assertThatThrownBy(() -> hive.create_database(db))
                        .isInstanceOf(InvalidObjectException.class)
                        .hasMessageStartingWith("Invalid location: it is outside the catalog's warehouse");
                assertThat(hive.get_all_databases()).contains("s").doesNotContain("hive_out");
            } finally {
                socket.close();
            }
            assertThat(other.resolve("elsewhere")).doesNotExist();
        }
    }

    // ---- helpers

    private static Reply createNamespace(String name) {
        return server.post(
                "/v1/warehouse/namespaces", "{\"namespace\":[" + TreeCatTestServer.JSON.valueToTree(name) + "]}");
    }

    private static Reply createView(String name, String location) {
        return server.post(
                "/v1/warehouse/namespaces/ns/views",
                "{\"name\":" + TreeCatTestServer.JSON.valueToTree(name)
                        + (location == null ? "" : ",\"location\":\"" + location + "\"")
                        + ",\"schema\":" + SCHEMA + ",\"view-version\":" + VIEW_VERSION + ",\"properties\":{}}");
    }

    /**
     * Runs a request that must be refused and answers its reply, after checking that it changed neither
     * the tree (the newest vid) nor the files anywhere under the test's directory but the store's, and
     * that its body names no server path.
     */
    private static Reply refusedUntouched(Supplier<Reply> request) throws IOException {
        long vid = newestVid();
        List<Path> before = files();
        Reply reply = request.get();
        assertThat(reply.status()).as(reply.body()).isBetween(400, 499);
        assertThat(reply.body()).doesNotContain(directory.toString()).doesNotContain(warehouse.toString());
        assertThat(newestVid()).isEqualTo(vid);
        assertThat(files()).isEqualTo(before);
        assertThat(server.admin("/healthcheck").status()).isEqualTo(200);
        return reply;
    }

    private static void assertError(Reply reply, int status, String type, String messageStart) {
        assertThat(reply.status()).isEqualTo(status);
        JsonNode error = reply.error();
        assertThat(error.get("type").asText()).isEqualTo(type);
        assertThat(error.get("code").asInt()).isEqualTo(status);
        assertThat(error.get("message").asText()).startsWith(messageStart);
    }

    private static long newestVid() {
        return server.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }

    private static boolean objectExists(String path) {
        return server.get("/treecat/v1/objects?path=" + TreeCatTestServer.encode(path))
                        .status()
                == 200;
    }

    /**
     * Every file and directory under the test's directory but the store's own: the warehouse is
     * {@code <directory>/warehouse}, so whatever climbs out of it (by up to two levels) lands here too.
     */
    private static List<Path> files() throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(path -> !path.startsWith(directory.resolve("data")))
                    .sorted()
                    .toList();
        }
    }

    /** A raw HTTP/1.1 request on a socket: Java's client normalizes '..' out of a path before sending it. */
    private static Reply raw(String method, String path, String body) {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            byte[] content = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + content.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            String response = bytes.toString(StandardCharsets.UTF_8);
            int split = response.indexOf("\r\n\r\n");
            int status = Integer.parseInt(
                    response.substring(0, split).split("\r\n")[0].split(" ")[1]);
            String bodyText = response.substring(split + 4);
            return new Reply(status, "application/json", bodyText, Map.of());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Table hiveTable(String db, String name, String location) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.setSerdeInfo(
                new SerDeInfo("s", "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", new HashMap<>()));
        sd.setParameters(new HashMap<>());
        sd.setLocation(location);
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setSd(sd);
        table.setPartitionKeys(List.of());
        table.setParameters(new HashMap<>());
        table.setTableType("EXTERNAL_TABLE");
        return table;
    }

    /** A Thrift client of the server's HMS port. */
    private static final class Hms implements AutoCloseable {
        private final TSocket socket;
        final ThriftHiveMetastore.Client client;

        Hms() throws Exception {
            socket = new TSocket("127.0.0.1", server.hmsPort());
            socket.open();
            client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
        }

        @Override
        public void close() {
            socket.close();
        }
    }
}
