package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit log over HTTP on a real server: the native JSON mirror ({@code GET /treecat/v1/commits},
 * {@code asOfTime}) and Iceberg's own REST client on a {@code <catalog>@time=} prefix.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestHistoryOverHttp {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RESTCatalog client(String warehouse) {
        return server.icebergClient("treecat", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse));
    }

    private long currentVid(String catalog) {
        Reply reply = server.get("/treecat/v1/objects?path=" + encode("/" + catalog));
        assertThat(reply.status()).isEqualTo(200);
        return reply.json().get("vid").asLong();
    }

    private JsonNode commit(long vid) {
        Reply reply = server.get("/treecat/v1/commits?since=" + vid + "&until=" + vid);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().get("commits")).hasSize(1);
        return reply.json().get("commits").get(0);
    }

    /** Waits until the server clock (this machine's) is past {@code time}, so later commits are later. */
    private static void waitPast(Instant time) {
        while (!Instant.now().isAfter(time.plusMillis(1))) {
            Thread.onSpinWait();
        }
    }

    @Test
    void anIcebergReadAtATimeSeesTheTableAsItWasAndRefusesWrites() throws Exception {
        Namespace shop = Namespace.of("shop");
        TableIdentifier orders = TableIdentifier.of(shop, "orders");
        try (RESTCatalog live = client("timed")) {
            live.createNamespace(shop);
            Table table = live.createTable(orders, SCHEMA);
            table.newAppend().appendFile(file(table, "f1")).commit();
            long oldSnapshot = live.loadTable(orders).currentSnapshot().snapshotId();
            JsonNode then = commit(currentVid("timed"));
            assertThat(then.get("interface").asText()).isEqualTo("rest");
            assertThat(then.get("operation").asText()).isEqualTo("commitTable");
            assertThat(then.has("principal")).isFalse();
            String time = then.get("commitTime").asText();
            waitPast(Instant.parse(time));

            Table later = live.loadTable(orders);
            later.newAppend().appendFile(file(later, "f2")).commit();
            live.createTable(TableIdentifier.of(shop, "returns"), SCHEMA);

            String prefix = "timed@time=" + time;
            try (RESTCatalog past = client(prefix)) {
                assertThat(past.listTables(shop)).containsExactly(orders);
                Table old = past.loadTable(orders);
                assertThat(old.currentSnapshot().snapshotId()).isEqualTo(oldSnapshot);
                assertThat(old.snapshots()).hasSize(1);
                assertThatThrownBy(() ->
                                old.newAppend().appendFile(file(old, "f3")).commit())
                        .isInstanceOf(ForbiddenException.class)
                        .hasMessageContaining("read-only");
                assertThatThrownBy(() -> past.createNamespace(Namespace.of("x")))
                        .isInstanceOf(ForbiddenException.class);
            }
            assertThat(live.loadTable(orders).snapshots()).hasSize(2);
        }
    }

    @Test
    void timesBeforeHistoryAndMalformedTimesGetClearErrors() {
        try (RESTCatalog live = client("timed_errors")) {
            live.createNamespace(Namespace.of("ns"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Reply first = server.get("/treecat/v1/commits?limit=1");
        String oldest = first.json().get("commits").get(0).get("commitTime").asText();
        Reply before = server.get("/v1/" + encode("timed_errors@time=2000-01-01T00:00:00Z") + "/namespaces");
        assertThat(before.status()).isEqualTo(404);
        assertThat(before.error().get("message").asText())
                .contains("Time 2000-01-01T00:00:00Z is before the oldest recorded commit, at " + oldest);
        Reply malformed = server.get("/v1/" + encode("timed_errors@time=yesterday") + "/namespaces");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.error().get("message").asText())
                .contains("Invalid REST prefix 'timed_errors@time=yesterday': the time must be RFC 3339");

        Reply nativeBefore = server.get("/treecat/v1/objects?path=%2F&asOfTime=2000-01-01T00:00:00Z");
        assertThat(nativeBefore.status()).isEqualTo(404);
        assertThat(nativeBefore.error().get("type").asText()).isEqualTo("TIME_BEFORE_HISTORY");
        Reply nativeMalformed = server.get("/treecat/v1/objects?path=%2F&asOfTime=noon");
        assertThat(nativeMalformed.status()).isEqualTo(400);
        assertThat(nativeMalformed.body()).contains("asOfTime is not an RFC 3339 time");
        Reply both = server.get("/treecat/v1/objects?path=%2F&asOfTime=2030-01-01T00:00:00Z&vid=1");
        assertThat(both.status()).isEqualTo(400);
        Reply badOrder = server.get("/treecat/v1/commits?order=sideways");
        assertThat(badOrder.status()).isEqualTo(400);
        Reply badToken = server.get("/treecat/v1/commits?pageToken=nope");
        assertThat(badToken.status()).isEqualTo(400);
        assertThat(badToken.error().get("type").asText()).isEqualTo("INVALID_CONTINUATION");
    }

    @Test
    void theJsonMirrorPagesCommitsBySubtreeAndReadsAsOfATime() {
        String writes = "{\"writes\": [{\"op\": \"add\", \"path\": \"/notes\", \"value\": {\"n\": 1}}]}";
        assertThat(server.post("/treecat/v1/commit", writes).status()).isEqualTo(200);
        long v1 = currentVid("notes");
        String t1 = commit(v1).get("commitTime").asText();
        waitPast(Instant.parse(t1));
        for (int i = 0; i < 3; i++) {
            String update =
                    "{\"writes\": [{\"op\": \"update\", \"path\": \"/notes\", \"value\": {\"n\": " + (i + 2) + "}}]}";
            assertThat(server.post("/treecat/v1/commit", update).status()).isEqualTo(200);
        }

        Reply asOf = server.get("/treecat/v1/objects?path=%2Fnotes&asOfTime=" + encode(t1));
        assertThat(asOf.status()).as(asOf.body()).isEqualTo(200);
        assertThat(asOf.json().get("vid").asLong()).isEqualTo(v1);
        assertThat(asOf.json().get("value").get("n").asInt()).isEqualTo(1);
        Reply query = server.get("/treecat/v1/query?q=" + encode("/[obj_id='notes']") + "&asOfTime=" + encode(t1));
        assertThat(query.json().get("vid").asLong()).isEqualTo(v1);

        List<Long> vids = new ArrayList<>();
        List<String> changes = new ArrayList<>();
        String token = null;
        do {
            Reply page = server.get("/treecat/v1/commits?path=" + encode("/notes") + "&order=newest&limit=2"
                    + (token == null ? "" : "&pageToken=" + encode(token)));
            assertThat(page.status()).as(page.body()).isEqualTo(200);
            for (JsonNode entry : page.json().get("commits")) {
                vids.add(entry.get("vid").asLong());
                changes.add(entry.get("changes").get(0).get("change").asText());
                assertThat(entry.get("interface").asText() + "."
                                + entry.get("operation").asText())
                        .isEqualTo("native.commit");
            }
            token = page.json().has("nextPageToken")
                    ? page.json().get("nextPageToken").asText()
                    : null;
        } while (token != null);
        assertThat(vids).containsExactly(v1 + 3, v1 + 2, v1 + 1, v1);
        assertThat(changes).containsExactly("updated", "updated", "updated", "added");
    }

    private static org.apache.iceberg.DataFile file(Table table, String name) {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(10)
                .build();
    }
}
