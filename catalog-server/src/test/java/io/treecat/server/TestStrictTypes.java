package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A value of the wrong JSON type is refused with 400, never converted (docs/robustness.md, "Strict
 * types"): on the native API's bodies and parameters and on the Iceberg requests, whether Jackson
 * binds them or Iceberg's own parsers read them. Each refusal names what was wrong, leaves the store
 * as it was, and the server serves the next request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestStrictTypes {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    private static final String TABLE = "/v1/warehouse/namespaces/strict/tables/t";

    @TempDir
    static Path directory;

    private TreeCatTestServer server;
    private StoreState before;
    private String metadataLocation;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
        try (RESTCatalog catalog = server.icebergClient()) {
            catalog.createNamespace(Namespace.of("strict"));
            catalog.createTable(TableIdentifier.of("strict", "empty"), SCHEMA);
            Table table = catalog.createTable(
                    TableIdentifier.of("strict", "t"),
                    SCHEMA,
                    PartitionSpec.builderFor(SCHEMA).identity("name").build());
            DataFile file = DataFiles.builder(table.spec())
                    .withPath(table.location() + "/data/name=a/f.parquet")
                    .withPartitionPath("name=a")
                    .withFileSizeInBytes(100)
                    .withRecordCount(10)
                    .build();
            table.newAppend().appendFile(file).commit();
        }
        // A snapshot so a refused snapshot create shows.
        assertThat(server.post("/treecat/v1/snapshots", "{\"name\": \"base\"}").status())
                .isEqualTo(201);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @BeforeEach
    void remember() {
        before = StoreState.of(server, directory.resolve("warehouse"));
        metadataLocation = server.get(TABLE).json().get("metadata-location").asText();
    }

    private void assertUnchangedAndServing() {
        assertThat(StoreState.of(server, directory.resolve("warehouse"))).isEqualTo(before);
        assertThat(server.get(TABLE).json().get("metadata-location").asText()).isEqualTo(metadataLocation);
        assertThat(server.get("/treecat/v1/snapshots").json().get("snapshots")).hasSize(1);
        assertThat(server.get("/v1/config").status()).isEqualTo(200);
    }

    private static void assertNativeError(TreeCatTestServer.Reply reply, String type, String message) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/json");
        JsonNode error = reply.error();
        assertThat(error.get("type").asText()).as(reply.body()).isEqualTo(type);
        assertThat(error.get("message").asText()).as(reply.body()).isEqualTo(message);
        assertThat(error.get("code").asInt()).isEqualTo(400);
    }

    private static void assertIcebergError(TreeCatTestServer.Reply reply, String message) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/json");
        assertThat(reply.error().get("type").asText()).as(reply.body()).isEqualTo("BadRequestException");
        assertThat(reply.error().get("message").asText()).as(reply.body()).contains(message);
    }

    // ---- native API

    /** Transaction and snapshot bodies: Jackson binds them, and refuses every conversion (docs/native-api.md promises 400). */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/treecat/v1/transactions | {\"vid\": 1.5} | Cannot coerce Floating-point value (1.5)",
                "/treecat/v1/transactions | {\"vid\": \"1\"} | Cannot coerce String value",
                "/treecat/v1/transactions | {\"vid\": true} | Cannot deserialize value of type `java.lang.Long` from Boolean",
                "/treecat/v1/transactions | {\"vid\": 1e0} | Cannot coerce Floating-point value",
                "/treecat/v1/transactions | {\"mode\": 1} | Cannot coerce Integer value (1)",
                "/treecat/v1/transactions | {\"mode\": true} | Cannot coerce Boolean value (true)",
                "/treecat/v1/transactions | {\"mode\": \"read-only\", \"mode\": \"read-write\"} | Duplicate field 'mode'",
                "/treecat/v1/transactions | {\"mode\": \"read-only\"} {} | Trailing token",
                "/treecat/v1/transactions | [\"read-only\"] | Cannot deserialize value",
                "/treecat/v1/snapshots | {\"name\": true} | Cannot coerce Boolean value (true)",
                "/treecat/v1/snapshots | {\"name\": 7} | Cannot coerce Integer value (7)",
                "/treecat/v1/snapshots | {\"name\": \"s\", \"vid\": 1.5} | Cannot coerce Floating-point value (1.5)",
                "/treecat/v1/clone | {\"source\": \"/strict\", \"target\": \"/copy\", \"vid\": 1.5} | Cannot coerce Floating-point value (1.5)",
                "/treecat/v1/clone | {\"source\": 1, \"target\": \"/copy\"} | Cannot coerce Integer value (1)",
            })
    void nativeBodiesOfTheWrongTypeAre400(String path, String body, String detail) {
        TreeCatTestServer.Reply reply = server.post(path, body);

        assertNativeError(reply, "INVALID_REQUEST", "Request body is not valid JSON for this operation");
        assertThat(reply.error().get("context").get("detail").asText())
                .as(reply.body())
                .startsWith(detail);
        assertUnchangedAndServing();
    }

    @Test
    void aTransactionAtVidOneAndAHalfDoesNotReadAtVidOne() {
        // The case: "vid": 1.5 read at vid 1.
        TreeCatTestServer.Reply reply =
                server.post("/treecat/v1/transactions", "{\"mode\": \"read-only\", \"vid\": 1.5}");

        assertNativeError(reply, "INVALID_REQUEST", "Request body is not valid JSON for this operation");
        assertThat(reply.error().get("context").get("line").asText()).isEqualTo("1");
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"writes\": [{\"op\": \"clone\", \"source\": \"/strict\", \"path\": \"/copy\", \"vid\": 1.5}]} | Invalid write 0: \"vid\" must be an integer",
                "{\"writes\": [{\"op\": \"clone\", \"source\": \"/strict\", \"path\": \"/copy\", \"vid\": \"1\"}]} | Invalid write 0: \"vid\" must be an integer",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/x\", \"kind\": 1, \"value\": {}}]} | Invalid write 0: \"kind\" must be \"inner\" or \"leaf\"",
                "{\"writes\": [{\"op\": \"add\", \"path\": 1, \"value\": {}}]} | Invalid write 0: \"path\" must be a string",
                "{\"writes\": [{\"op\": true, \"path\": \"/x\"}]} | Invalid write 0: \"op\" must be a string",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/x\", \"value\": 1}]} | Invalid write 0: \"value\" must be an object",
                "{\"writes\": {\"op\": \"remove\", \"path\": \"/strict\"}} | The write set needs a \"writes\" array",
            })
    void writeSetsOfTheWrongTypeAre400(String body, String message) {
        TreeCatTestServer.Reply reply = server.post("/treecat/v1/commit", body);

        assertNativeError(reply, "INVALID_WRITE_SET", message);
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"writes\": [{\"op\": \"remove\", \"path\": \"/strict\", \"path\": \"/other\"}]}",
                "{\"writes\": [{\"op\": \"remove\", \"path\": \"/strict\"}]} {\"writes\": []}",
                "{writes: [{op: 'remove', path: '/strict'}]}",
            })
    void writeSetsThatAreNotStrictJsonAre400(String body) {
        TreeCatTestServer.Reply reply = server.post("/treecat/v1/commit", body);

        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.error().get("type").asText()).isEqualTo("INVALID_WRITE_SET");
        assertThat(reply.error().get("message").asText()).startsWith("The write set is not a JSON object: ");
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @ValueSource(strings = {"vid=1.5", "vid=1e0", "limit=1.5", "limit=true"})
    void queryParametersOfTheWrongTypeAre400(String parameter) {
        TreeCatTestServer.Reply reply = server.get("/treecat/v1/query?q=%2F*&" + parameter);

        assertNativeError(reply, "INVALID_REQUEST", "Parameter is not an integer");
        assertUnchangedAndServing();
    }

    // ---- Iceberg REST

    /** The case: a commit body of "x" or -1 answered 200 (Iceberg's parser read it as no updates). */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "\"x\" | Malformed request: the body must be a JSON object, not string",
                "-1 | Malformed request: the body must be a JSON object, not number",
                "[] | Malformed request: the body must be a JSON object, not array",
                "true | Malformed request: the body must be a JSON object, not boolean",
                "null | Missing request body",
                "{\"requirements\": [], \"updates\": []} 1 | Malformed request: Trailing token",
                "{\"updates\": {\"action\": \"set-properties\"}} | Malformed request: Cannot parse metadata updates from non-array",
                "{\"updates\": [{\"action\": \"set-properties\", \"updates\": {\"a\": 1}}]} | Malformed request: Cannot parse to a string value: a: 1",
                "{\"identifier\": {\"namespace\": [null], \"name\": \"t\"}, \"updates\": []} | Malformed request: namespace levels must be strings, not null",
                "{\"updates\": [], \"updates\": []} | Malformed request: Duplicate field 'updates'",
            })
    void icebergCommitsOfTheWrongTypeAre400(String body, String message) {
        TreeCatTestServer.Reply reply = server.post(TABLE, body);

        assertIcebergError(reply, message);
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"namespace\": [null]} | Malformed request: namespace levels must be strings, not null",
                "{\"namespace\": [1]} | Malformed request: namespace levels must be strings, not number",
                "{\"namespace\": [\"n\", [\"m\"]]} | Malformed request: namespace levels must be strings, not array",
                "{\"namespace\": [\"n\"], \"properties\": {\"a\": 1}} | Malformed request: Cannot coerce Integer value (1) to `java.lang.String`",
                "{\"namespace\": [\"n\"], \"properties\": {\"a\": true}} | Malformed request: Cannot coerce Boolean value (true) to `java.lang.String`",
                "{\"namespace\": [\"n\"], \"namespace\": [\"m\"]} | Malformed request: Duplicate field 'namespace'",
                "\"n\" | Malformed request: the body must be a JSON object, not string",
            })
    void namespaceCreatesOfTheWrongTypeAre400(String body, String message) {
        TreeCatTestServer.Reply reply = server.post("/v1/warehouse/namespaces", body);

        assertIcebergError(reply, message);
        assertThat(server.get("/v1/warehouse/namespaces")
                        .json()
                        .get("namespaces")
                        .toString())
                .isEqualTo("[[\"strict\"]]");
        assertUnchangedAndServing();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/v1/warehouse/namespaces/strict/tables | {\"name\": 1, \"schema\": {\"type\": \"struct\", \"fields\": []}} | Malformed request: Cannot coerce Integer value (1)",
                "/v1/warehouse/namespaces/strict/tables | {\"name\": \"u\", \"stage-create\": \"true\", \"schema\": {\"type\": \"struct\", \"fields\": []}} | Malformed request: Cannot coerce String value (\"true\") to `java.lang.Boolean`",
                "/v1/warehouse/namespaces/strict/tables | {\"name\": \"u\", \"stage-create\": 1, \"schema\": {\"type\": \"struct\", \"fields\": []}} | Malformed request: Cannot coerce Integer value (1) to `java.lang.Boolean`",
                "/v1/warehouse/namespaces/strict/properties | {\"removals\": [1]} | Malformed request: Cannot coerce Integer value (1) to `java.lang.String`",
                "/v1/warehouse/namespaces/strict/properties | {\"updates\": {\"a\": 1.5}} | Malformed request: Cannot coerce Float value (1.5) to `java.lang.String`",
                "/v1/warehouse/tables/rename | {\"source\": {\"namespace\": [\"strict\"], \"name\": \"t\"}, \"destination\": {\"namespace\": [1], \"name\": \"t\"}} | Malformed request: namespace levels must be strings, not number",
                "/v1/warehouse/tables/rename | {\"source\": {\"namespace\": [\"strict\"], \"name\": \"t\"}, \"destination\": {\"namespace\": [\"strict\"], \"name\": 2}} | Malformed request: Cannot parse to a string value: name: 2",
            })
    void otherIcebergRequestsOfTheWrongTypeAre400(String path, String body, String message) {
        TreeCatTestServer.Reply reply = server.post(path, body);

        assertIcebergError(reply, message);
        assertThat(server.get("/v1/warehouse/namespaces/strict")
                        .json()
                        .get("properties")
                        .has("a"))
                .isFalse();
        assertUnchangedAndServing();
    }

    /** The case: a malformed transform in a /plan filter answered 5xx. */
    @ParameterizedTest
    @ValueSource(strings = {"truncate[-1]", "truncate[0]", "bucket[-3]", "bucket[0]", "truncate[x]", "nosuch"})
    void aMalformedTransformInAPlanFilterIs400(String transform) {
        String body = "{\"filter\": {\"type\": \"eq\", \"term\": {\"type\": \"transform\", \"transform\": \""
                + transform + "\", \"term\": \"name\"}, \"value\": \"a\"}}";

        TreeCatTestServer.Reply reply = server.post(TABLE + "/plan", body);

        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        // Iceberg refuses a width or count it can parse while parsing; one it cannot parse when binding.
        assertThat(reply.error().get("message").asText())
                .as(reply.body())
                .matches("Invalid filter: Cannot bind unsupported transform: \\Q" + transform + "\\E"
                        + "|Malformed request: Invalid (truncate width|number of buckets): 0 \\(must be > 0\\)");
        // An empty table is refused alike, though there is nothing to plan.
        assertThat(server.post("/v1/warehouse/namespaces/strict/tables/empty/plan", body)
                        .status())
                .isEqualTo(400);
        assertUnchangedAndServing();
    }

    @Test
    void aWellTypedPlanStillPlans() {
        String body =
                "{\"filter\": {\"type\": \"eq\", \"term\": {\"type\": \"transform\", \"transform\": \"truncate[1]\","
                        + " \"term\": \"name\"}, \"value\": \"a\"}}";

        TreeCatTestServer.Reply reply = server.post(TABLE + "/plan", body);

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().get("file-scan-tasks")).hasSize(1);
    }
}
