package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.treecat.core.service.WriteSetJson;
import io.treecat.server.TreeCatTestServer.Reply;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON mirror over real HTTP: every endpoint, its error bodies, and the server surviving bad input. */
class TestNativeApi {
    private static final String US_FILES = "/[obj_id='retail']/[obj_id='sales']/[obj_id='region=US']/*/*";

    @TempDir
    static Path directory;

    private static TreeCatTestServer server;
    private static long sampleVid;

    @BeforeAll
    static void start() throws Exception {
        server = new TreeCatTestServer(directory, ConfigOverride.config("http.max-request-size", "64KiB"));
        Reply loaded = server.post("/treecat/v1/commit", WriteSetJson.format(SampleCatalog.writes()));
        assertThat(loaded.status()).isEqualTo(200);
        assertThat(loaded.json().get("changes")).hasSize(89);
        sampleVid = loaded.json().get("vid").asLong();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String query(String query, String more) {
        return "/treecat/v1/query?q=" + encode(query) + more;
    }

    @Test
    void pagesThroughAQueryWithTokensAtOneVersion() {
        List<String> paths = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            Reply page = server.get(
                    query(US_FILES, "&limit=7&results=leaves" + (token == null ? "" : "&pageToken=" + encode(token))));
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.contentType()).startsWith("application/json");
            JsonNode json = page.json();
            assertThat(json.get("vid").asLong()).isGreaterThanOrEqualTo(sampleVid);
            json.get("rows").forEach(row -> paths.add(row.get("path").asText()));
            token = json.get("nextPageToken").isNull()
                    ? null
                    : json.get("nextPageToken").asText();
            pages++;
        } while (token != null);
        assertThat(pages).isEqualTo(5);
        assertThat(paths).hasSize(30).doesNotHaveDuplicates().isSorted();
        assertThat(paths.get(0)).isEqualTo("/retail/sales/region=US/date=2024-12-28/part-00031.parquet");
    }

    @Test
    void projectsValuesAsEmbeddedJson() {
        Reply reply = server.get(query(
                "/[obj_id='retail']/[obj_id='sales']/[obj_id='region=EU']/[part_val='2024-12-28']/*",
                "&fields=stats.price.min,record_count"));
        assertThat(reply.status()).isEqualTo(200);
        JsonNode rows = reply.json().get("rows");
        assertThat(rows).hasSize(3);
        JsonNode first = rows.get(0);
        assertThat(first.get("path").asText()).isEqualTo("/retail/sales/region=EU/date=2024-12-28/part-00001.parquet");
        assertThat(first.get("kind").asText()).isEqualTo("leaf");
        assertThat(first.get("version").asLong()).isEqualTo(sampleVid);
        assertThat(first.get("value").toString())
                .isEqualTo("{\"stats\":{\"price\":{\"min\":7}},\"record_count\":1001}");
    }

    @Test
    void explainsAPlan() {
        Reply reply = server.get("/treecat/v1/explain?q=" + encode("/[obj_id='retail']/*"));
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.json().get("query").asText()).isEqualTo("/[obj_id='retail']/*");
        assertThat(reply.json().get("plan").asText()).contains("retail");
    }

    @Test
    void readsOneObjectOr404WithTheErrorBody() {
        Reply found = server.get("/treecat/v1/objects?path=" + encode("/retail/sales"));
        assertThat(found.status()).isEqualTo(200);
        assertThat(found.json().get("kind").asText()).isEqualTo("inner");
        assertThat(found.json().get("value").get("obj_type").asText()).isEqualTo("table");

        Reply missing = server.get("/treecat/v1/objects?path=" + encode("/retail/nothing"));
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.error().get("message").asText()).isEqualTo("Object not found");
        assertThat(missing.error().get("type").asText()).isEqualTo("OBJECT_NOT_FOUND");
        assertThat(missing.error().get("code").asInt()).isEqualTo(404);
        assertThat(missing.error().get("context").get("path").asText()).isEqualTo("/retail/nothing");
    }

    @Test
    void beginsQueriesAndCommitsATransaction() {
        server.post(
                "/treecat/v1/commit", "{\"writes\": [{\"op\": \"add\", \"path\": \"/txn\", \"value\": {\"n\": 1}}]}");
        Reply began = server.post("/treecat/v1/transactions", "{\"mode\": \"read-write\"}");
        assertThat(began.status()).isEqualTo(201);
        String id = began.json().get("id").asText();
        assertThat(began.json().get("mode").asText()).isEqualTo("read-write");

        Reply read = server.get("/treecat/v1/transactions/" + id + "/query?q=" + encode("/[obj_id='txn']"));
        assertThat(read.json().get("rows").get(0).get("value").get("n").asInt()).isEqualTo(1);
        Reply object = server.get("/treecat/v1/transactions/" + id + "/objects?path=" + encode("/txn"));
        assertThat(object.json().get("vid").asLong())
                .isEqualTo(began.json().get("readVid").asLong());

        Reply committed = server.post(
                "/treecat/v1/transactions/" + id + "/commit",
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/txn\", \"value\": {\"n\": 2}}]}");
        assertThat(committed.status()).isEqualTo(200);
        assertThat(committed.json().get("changes").toString())
                .isEqualTo("[{\"path\":\"/txn\",\"change\":\"updated\"}]");
        assertThat(server.get("/treecat/v1/objects?path=%2Ftxn")
                        .json()
                        .get("value")
                        .get("n")
                        .asInt())
                .isEqualTo(2);

        Reply again = server.post(
                "/treecat/v1/transactions/" + id + "/commit",
                "{\"writes\": [{\"op\": \"remove\", \"path\": \"/txn\"}]}");
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.error().get("type").asText()).isEqualTo("TRANSACTION_NOT_FOUND");
    }

    @Test
    void conflictIs409WithThePathAndPredicate() {
        String partition = "/retail/sales/region=US/date=2025-01-03";
        String id = server.post("/treecat/v1/transactions", "").json().get("id").asText();
        String reads =
                "/[obj_id='retail']/[obj_id='sales']/[obj_id='region=US']/[obj_id='date=2025-01-03']/[stats.price.min > 8]";
        assertThat(server.get("/treecat/v1/transactions/" + id + "/query?q=" + encode(reads))
                        .status())
                .isEqualTo(200);
        Reply writer = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"" + partition
                        + "/late.parquet\", \"kind\": \"leaf\", \"value\": {\"stats\": {\"price\": {\"min\": 50}}}}]}");
        assertThat(writer.status()).isEqualTo(200);

        Reply conflict = server.post(
                "/treecat/v1/transactions/" + id + "/commit",
                "{\"writes\": [{\"op\": \"merge\", \"path\": \"/retail/sales\", \"delta\": {\"plans\": {\"op\": \"+\", \"val\": 1}}}]}");
        assertThat(conflict.status()).isEqualTo(409);
        JsonNode error = conflict.error();
        assertThat(error.get("type").asText()).isEqualTo("COMMIT_CONFLICT");
        assertThat(error.get("code").asInt()).isEqualTo(409);
        assertThat(error.get("message").asText())
                .startsWith("Commit conflict: " + partition + "/late.parquet changed after version ");
        assertThat(error.get("context").get("path").asText()).isEqualTo(partition);
        assertThat(error.get("context").get("conflictingPath").asText()).isEqualTo(partition + "/late.parquet");
        assertThat(error.get("context").get("predicate").asText()).contains("stats.price.min");
    }

    @Test
    void abortEndsATransaction() {
        String id = server.post("/treecat/v1/transactions", "{\"mode\": \"read-only\"}")
                .json()
                .get("id")
                .asText();
        assertThat(server.delete("/treecat/v1/transactions/" + id).status()).isEqualTo(204);
        Reply gone = server.get("/treecat/v1/transactions/" + id + "/query?q=" + encode("/*"));
        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.error().get("type").asText()).isEqualTo("TRANSACTION_NOT_FOUND");
    }

    @Test
    void snapshotsCloneAndTimeTravel() {
        server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/shop\", \"value\": {\"v\": 1}},"
                        + " {\"op\": \"add\", \"path\": \"/shop/orders\", \"value\": {\"rows\": 10}}]}");
        Reply snapshot = server.post("/treecat/v1/snapshots", "{\"name\": \"shop-v1\"}");
        assertThat(snapshot.status()).isEqualTo(201);
        long snapshotVid = snapshot.json().get("vid").asLong();
        server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/shop/orders\", \"value\": {\"rows\": 20}}]}");

        assertThat(server.get("/treecat/v1/snapshots").json().get("snapshots").toString())
                .contains("{\"name\":\"shop-v1\",\"vid\":" + snapshotVid + "}");
        assertThat(server.get("/treecat/v1/objects?path=%2Fshop%2Forders&snapshot=shop-v1")
                        .json()
                        .get("value")
                        .get("rows")
                        .asInt())
                .isEqualTo(10);
        assertThat(server.get("/treecat/v1/objects?path=%2Fshop%2Forders")
                        .json()
                        .get("value")
                        .get("rows")
                        .asInt())
                .isEqualTo(20);
        assertThat(server.get("/treecat/v1/objects?path=%2Fshop%2Forders&vid=" + snapshotVid)
                        .json()
                        .get("value")
                        .get("rows")
                        .asInt())
                .isEqualTo(10);

        Reply cloned = server.post(
                "/treecat/v1/clone", "{\"source\": \"/shop\", \"target\": \"/shop_dev\", \"snapshot\": \"shop-v1\"}");
        assertThat(cloned.status()).isEqualTo(200);
        long cloneVid = cloned.json().get("vid").asLong();
        assertThat(server.get("/treecat/v1/objects?path=%2Fshop_dev%2Forders")
                        .json()
                        .get("value")
                        .get("rows")
                        .asInt())
                .isEqualTo(10);
        Reply beforeClone = server.get("/treecat/v1/objects?path=%2Fshop_dev%2Forders&vid=" + (cloneVid - 1));
        assertThat(beforeClone.status()).isEqualTo(404);

        Reply duplicate = server.post("/treecat/v1/snapshots", "{\"name\": \"shop-v1\"}");
        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(duplicate.error().get("type").asText()).isEqualTo("SNAPSHOT_ALREADY_EXISTS");
        assertThat(server.delete("/treecat/v1/snapshots/shop-v1").status()).isEqualTo(204);
        Reply dropped = server.get("/treecat/v1/objects?path=%2Fshop&snapshot=shop-v1");
        assertThat(dropped.status()).isEqualTo(404);
        assertThat(dropped.error().get("type").asText()).isEqualTo("SNAPSHOT_NOT_FOUND");
    }

    @Test
    void bulkLoadsJsonLinesInChunks() {
        StringBuilder lines = new StringBuilder(
                "{\"path\": \"/loaded\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"namespace\"}}\n");
        for (int i = 0; i < 4; i++) {
            lines.append("{\"path\": \"/loaded/f")
                    .append(i)
                    .append("\", \"kind\": \"leaf\", \"value\": {\"size\": ")
                    .append(i)
                    .append("}}\n");
        }
        byte[] body = lines.toString().getBytes(StandardCharsets.UTF_8);
        Reply loaded = server.postStreamed("/treecat/v1/load?chunkSize=2", () -> new ByteArrayInputStream(body));
        assertThat(loaded.status()).isEqualTo(200);
        assertThat(loaded.json().get("records").asLong()).isEqualTo(5);
        assertThat(loaded.json().get("commits").asLong()).isEqualTo(3);
        assertThat(server.get(query("/[obj_id='loaded']/*", "")).json().get("rows"))
                .hasSize(4);

        Reply bad = server.post(
                "/treecat/v1/load", "{\"path\": \"/loaded/g\", \"kind\": \"leaf\"}\n{\"path\": \"nope\"}\n");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.error().get("type").asText()).isEqualTo("INVALID_LOAD_RECORD");
        assertThat(bad.error().get("context").get("line").asText()).isEqualTo("2");
    }

    @Test
    void badInputIsAJsonErrorAndTheServerKeepsServing() {
        Reply syntax = server.get(query("/[obj_id=]", ""));
        assertThat(syntax.status()).isEqualTo(400);
        assertThat(syntax.error().get("type").asText()).isEqualTo("QUERY_SYNTAX_ERROR");
        assertThat(syntax.error().get("context").get("position").asText()).isEqualTo("10");
        assertThat(syntax.error().get("context").get("line").asText()).isEqualTo("1");

        Reply garbageWriteSet = server.post("/treecat/v1/commit", "{\"writes\": [");
        assertThat(garbageWriteSet.status()).isEqualTo(400);
        assertThat(garbageWriteSet.contentType()).startsWith("application/json");
        assertThat(garbageWriteSet.error().get("type").asText()).isEqualTo("INVALID_WRITE_SET");

        Reply garbageBody = server.post("/treecat/v1/transactions", "}{ not json");
        assertThat(garbageBody.status()).isEqualTo(400);
        assertThat(garbageBody.error().get("type").asText()).isEqualTo("INVALID_REQUEST");
        assertThat(garbageBody.error().get("message").asText())
                .isEqualTo("Request body is not valid JSON for this operation");

        Reply misspelt = server.post("/treecat/v1/snapshots", "{\"nmae\": \"x\"}");
        assertThat(misspelt.status()).isEqualTo(400);
        assertThat(misspelt.error().get("context").get("detail").asText()).contains("Unrecognized field \"nmae\"");

        Reply badVid = server.get(query("/*", "&vid=latest"));
        assertThat(badVid.status()).isEqualTo(400);
        assertThat(badVid.error().get("context").get("parameter").asText()).isEqualTo("vid");

        String big = "{\"writes\": [], \"pad\": \"" + "x".repeat(70 * 1024) + "\"}";
        Reply tooLarge = server.post("/treecat/v1/commit", big);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.error().get("type").asText()).isEqualTo("REQUEST_TOO_LARGE");
        assertThat(tooLarge.error().get("context").get("limitBytes").asText()).isEqualTo(String.valueOf(64 * 1024));
        Reply tooLargeStreamed = server.postStreamed(
                "/treecat/v1/commit", () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)));
        assertThat(tooLargeStreamed.status()).isEqualTo(413);
        assertThat(tooLargeStreamed.error().get("message").asText()).isEqualTo("Request body is larger than the limit");

        Reply unknown = server.get("/treecat/v1/nothing-here");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error().get("type").asText()).isEqualTo("NOT_FOUND");
        assertThat(unknown.error().get("message").asText()).isEqualTo("No such resource");

        Reply wrongMethod = server.delete("/treecat/v1/query");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.error().get("type").asText()).isEqualTo("METHOD_NOT_ALLOWED");

        Reply stillServing = server.get("/treecat/v1/objects?path=%2Fretail");
        assertThat(stillServing.status()).isEqualTo(200);
    }

    @Test
    void healthChecksAreHealthy() {
        Reply health = server.admin("/healthcheck");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().get("rocksdb").get("healthy").asBoolean()).isTrue();
        assertThat(health.json().get("rocksdb").get("message").asText()).isEqualTo("RocksDB answers reads");
        assertThat(health.json().get("listener-rest").get("healthy").asBoolean())
                .isTrue();
    }

    @Test
    void metricsAreExportedInPrometheusText() {
        double commitsBefore = sample(server.admin("/metrics/prometheus").body(), "treecat_commits_count");
        double queriesBefore = sample(server.admin("/metrics/prometheus").body(), "treecat_queries_count");
        for (int i = 0; i < 3; i++) {
            assertThat(server.post(
                                    "/treecat/v1/commit",
                                    "{\"writes\": [{\"op\": \"add\", \"path\": \"/metric" + i + "\", \"value\": {}}]}")
                            .status())
                    .isEqualTo(200);
        }
        server.get(query("/[obj_id='retail']/*", ""));
        server.post("/treecat/v1/commit", "{\"writes\": [{\"op\": \"add\", \"path\": \"/metric0\", \"value\": {}}]}");

        Reply prometheus = server.admin("/metrics/prometheus");
        assertThat(prometheus.status()).isEqualTo(200);
        assertThat(prometheus.contentType()).startsWith("text/plain; version=0.0.4");
        assertThat(sample(prometheus.body(), "treecat_commits_count") - commitsBefore)
                .isEqualTo(3.0);
        assertThat(sample(prometheus.body(), "treecat_queries_count") - queriesBefore)
                .isGreaterThanOrEqualTo(1.0);
        assertThat(sample(prometheus.body(), "treecat_commits_failed_OBJECT_ALREADY_EXISTS_total"))
                .isGreaterThanOrEqualTo(1.0);
        assertThat(prometheus.body()).contains("treecat_queries_rows_total");
    }

    /** The value of the first sample line of {@code metric} (no labels). */
    private static double sample(String text, String metric) {
        return text.lines()
                .filter(line -> line.startsWith(metric + " "))
                .findFirst()
                .map(line ->
                        Double.parseDouble(line.substring(metric.length() + 1).trim()))
                .orElseThrow(() -> new AssertionError("no sample " + metric + " in\n" + text));
    }
}
