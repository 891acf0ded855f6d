package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client whose request committed but whose answer was lost with the server retries after the restart with the same
 * Idempotency-Key: it gets the first answer, and nothing runs a second time (the vid stays). The key's record is in
 * the request's own commit, so a request that failed leaves none and its retry runs.
 */
class TestIdempotencyAcrossRestart {
    private static final String KEY = "Idempotency-Key";
    private static final String SCHEMA = "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": "
            + "[{\"id\": 1, \"name\": \"id\", \"required\": true, \"type\": \"long\"}]}";
    private static final String SET_PROPERTY =
            "{\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", \"updates\": {\"k\": \"v\"}}]}";

    @TempDir
    Path directory;

    /**
     * A server on {@link #directory} whose idle connections close after a second: a stop waits for open connections,
     * and one left idle after a keyed request that failed (seen before this class, on the in-memory keys too) held the
     * stop for the default 30 s idle timeout, past Jetty's graceful-stop limit.
     */
    private TreeCatTestServer server() throws Exception {
        return new TreeCatTestServer(
                directory, ConfigOverride.config("server.applicationConnectors[0].idleTimeout", "1 second"));
    }

    private static long vid(TreeCatTestServer server) {
        Reply read = server.get("/treecat/v1/objects?path=%2Fwarehouse");
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        return read.json().get("vid").asLong();
    }

    private static void assertError(Reply reply, int status, String type) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        assertThat(reply.json().get("error").get("type").asText()).isEqualTo(type);
    }

    @Test
    void committedRequestsAreAnsweredAgainAfterARestart() throws Exception {
        String namespace = "{\"namespace\": [\"db\"], \"properties\": {\"owner\": \"alice\"}}";
        String table = "{\"name\": \"t\", \"schema\": " + SCHEMA + "}";
        String properties = "{\"removals\": [\"owner\", \"nope\"], \"updates\": {\"team\": \"lake\"}}";
        String keyNamespace = UUID.randomUUID().toString();
        String keyTable = UUID.randomUUID().toString();
        String keyCommit = UUID.randomUUID().toString();
        String keyProperties = UUID.randomUUID().toString();
        String keyTransaction = UUID.randomUUID().toString();
        String keyRename = UUID.randomUUID().toString();
        String keyDrop = UUID.randomUUID().toString();
        String transaction = "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"t\"}, "
                + "\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", \"updates\": {\"x\": \"1\"}}]}]}";
        String rename = "{\"source\": {\"namespace\": [\"db\"], \"name\": \"t\"}, "
                + "\"destination\": {\"namespace\": [\"db\"], \"name\": \"t2\"}}";
        Reply createdNamespace;
        Reply createdTable;
        Reply committed;
        Reply updatedProperties;
        long vid;
        try (TreeCatTestServer server = server()) {
            createdNamespace = server.send("POST", "/v1/warehouse/namespaces", namespace, KEY, keyNamespace);
            assertThat(createdNamespace.status()).as(createdNamespace.body()).isEqualTo(200);
            createdTable = server.send("POST", "/v1/warehouse/namespaces/db/tables", table, KEY, keyTable);
            assertThat(createdTable.status()).as(createdTable.body()).isEqualTo(200);
            committed = server.send("POST", "/v1/warehouse/namespaces/db/tables/t", SET_PROPERTY, KEY, keyCommit);
            assertThat(committed.status()).as(committed.body()).isEqualTo(200);
            updatedProperties =
                    server.send("POST", "/v1/warehouse/namespaces/db/properties", properties, KEY, keyProperties);
            assertThat(updatedProperties.status()).as(updatedProperties.body()).isEqualTo(200);
            assertThat(server.send("POST", "/v1/warehouse/transactions/commit", transaction, KEY, keyTransaction)
                            .status())
                    .isEqualTo(204);
            assertThat(server.send("POST", "/v1/warehouse/tables/rename", rename, KEY, keyRename)
                            .status())
                    .isEqualTo(204);
            assertThat(server.send("DELETE", "/v1/warehouse/namespaces/db/tables/t2", null, KEY, keyDrop)
                            .status())
                    .isEqualTo(204);
        }

        try (TreeCatTestServer server = server()) {
            // Read after the start: a clean stop may commit bookkeeping of its own (the Hive event log's checkpoint).
            vid = vid(server);
            // Each repeat is answered as the first run was, though the table was renamed and dropped since.
            Reply namespaceAgain = server.send("POST", "/v1/warehouse/namespaces", namespace, KEY, keyNamespace);
            assertThat(namespaceAgain.status()).isEqualTo(200);
            assertThat(namespaceAgain.json()).isEqualTo(createdNamespace.json());
            Reply tableAgain = server.send("POST", "/v1/warehouse/namespaces/db/tables", table, KEY, keyTable);
            assertThat(tableAgain.status()).as(tableAgain.body()).isEqualTo(200);
            assertThat(tableAgain.json()).isEqualTo(createdTable.json());
            assertThat(tableAgain.header("ETag")).isEqualTo(createdTable.header("ETag"));
            Reply commitAgain =
                    server.send("POST", "/v1/warehouse/namespaces/db/tables/t", SET_PROPERTY, KEY, keyCommit);
            assertThat(commitAgain.status()).as(commitAgain.body()).isEqualTo(200);
            assertThat(commitAgain.json()).isEqualTo(committed.json());
            assertThat(commitAgain.header("ETag")).isEqualTo(committed.header("ETag"));
            Reply propertiesAgain =
                    server.send("POST", "/v1/warehouse/namespaces/db/properties", properties, KEY, keyProperties);
            assertThat(propertiesAgain.status()).isEqualTo(200);
            assertThat(propertiesAgain.json()).isEqualTo(updatedProperties.json());
            assertThat(propertiesAgain.json().get("removed").toString()).isEqualTo("[\"owner\"]");
            assertThat(propertiesAgain.json().get("missing").toString()).isEqualTo("[\"nope\"]");
            assertThat(server.send("POST", "/v1/warehouse/transactions/commit", transaction, KEY, keyTransaction)
                            .status())
                    .isEqualTo(204);
            assertThat(server.send("POST", "/v1/warehouse/tables/rename", rename, KEY, keyRename)
                            .status())
                    .isEqualTo(204);
            assertThat(server.send("DELETE", "/v1/warehouse/namespaces/db/tables/t2", null, KEY, keyDrop)
                            .status())
                    .isEqualTo(204);
            // Nothing ran a second time.
            assertThat(vid(server)).isEqualTo(vid);
            assertError(server.get("/v1/warehouse/namespaces/db/tables/t"), 404, "NoSuchTableException");

            // The same key with another request is still the client's mistake, and changes nothing.
            assertError(
                    server.send("POST", "/v1/warehouse/namespaces", "{\"namespace\": [\"other\"]}", KEY, keyNamespace),
                    422,
                    "UnprocessableEntityException");
            assertError(
                    server.send("DELETE", "/v1/warehouse/namespaces/db/tables/t", null, KEY, keyCommit),
                    422,
                    "UnprocessableEntityException");
            assertThat(vid(server)).isEqualTo(vid);
        }
    }

    @Test
    void aFailedRequestLeavesNoKeyAndItsRetryRuns() throws Exception {
        String key = UUID.randomUUID().toString();
        String nested = "{\"namespace\": [\"parent\", \"child\"]}";
        try (TreeCatTestServer server = server()) {
            assertError(
                    server.send("POST", "/v1/warehouse/namespaces", nested, KEY, key), 404, "NoSuchNamespaceException");
            assertThat(server.get("/treecat/v1/objects?path=%2F.idempotency_keys%2F" + key)
                            .status())
                    .isEqualTo(404);
        }
        try (TreeCatTestServer server = server()) {
            assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"parent\"]}")
                            .status())
                    .isEqualTo(200);
            long before = vid(server);
            // The 404 was kept in memory only: after the restart the retry runs, and now succeeds.
            Reply retried = server.send("POST", "/v1/warehouse/namespaces", nested, KEY, key);
            assertThat(retried.status()).as(retried.body()).isEqualTo(200);
            assertThat(vid(server)).isEqualTo(before + 1);
            Reply record = server.get("/treecat/v1/objects?path=%2F.idempotency_keys%2F" + key);
            assertThat(record.status()).as(record.body()).isEqualTo(200);
            assertThat(record.json().get("value").get("obj_type").asText()).isEqualTo("idempotency_key");
        }
    }

    @Test
    void viewsAndRegistrationsAreAnsweredAgainAfterARestart() throws Exception {
        String view = "{\"name\": \"v\", \"schema\": " + SCHEMA + ", \"view-version\": {\"version-id\": 1, "
                + "\"timestamp-ms\": 1700000000000, \"schema-id\": 0, \"summary\": {}, \"default-namespace\": [\"db\"], "
                + "\"representations\": [{\"type\": \"sql\", \"sql\": \"select 1\", \"dialect\": \"spark\"}]}, "
                + "\"properties\": {}}";
        String replace = "{\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", "
                + "\"updates\": {\"owner\": \"ann\"}}]}";
        String keyView = UUID.randomUUID().toString();
        String keyReplace = UUID.randomUUID().toString();
        String keyRegister = UUID.randomUUID().toString();
        String register;
        Reply createdView;
        Reply replaced;
        Reply registered;
        long vid;
        try (TreeCatTestServer server = server()) {
            assertThat(server.post("/v1/warehouse/namespaces", "{\"namespace\": [\"db\"]}")
                            .status())
                    .isEqualTo(200);
            Reply table =
                    server.post("/v1/warehouse/namespaces/db/tables", "{\"name\": \"t\", \"schema\": " + SCHEMA + "}");
            assertThat(table.status()).as(table.body()).isEqualTo(200);
            register = "{\"name\": \"r\", \"metadata-location\": \""
                    + table.json().get("metadata-location").asText() + "\"}";
            createdView = server.send("POST", "/v1/warehouse/namespaces/db/views", view, KEY, keyView);
            assertThat(createdView.status()).as(createdView.body()).isEqualTo(200);
            replaced = server.send("POST", "/v1/warehouse/namespaces/db/views/v", replace, KEY, keyReplace);
            assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
            registered = server.send("POST", "/v1/warehouse/namespaces/db/register", register, KEY, keyRegister);
            assertThat(registered.status()).as(registered.body()).isEqualTo(200);
        }
        try (TreeCatTestServer server = server()) {
            vid = vid(server);
            Reply viewAgain = server.send("POST", "/v1/warehouse/namespaces/db/views", view, KEY, keyView);
            assertThat(viewAgain.status()).as(viewAgain.body()).isEqualTo(200);
            // The first version's answer, though the view was replaced since.
            assertThat(viewAgain.json()).isEqualTo(createdView.json());
            Reply replaceAgain = server.send("POST", "/v1/warehouse/namespaces/db/views/v", replace, KEY, keyReplace);
            assertThat(replaceAgain.json()).isEqualTo(replaced.json());
            Reply registerAgain =
                    server.send("POST", "/v1/warehouse/namespaces/db/register", register, KEY, keyRegister);
            assertThat(registerAgain.status()).as(registerAgain.body()).isEqualTo(200);
            assertThat(registerAgain.json()).isEqualTo(registered.json());
            assertThat(vid(server)).isEqualTo(vid);
        }
    }
}
