package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code X-TreeCat-Min-Vid} and {@code X-TreeCat-Vid} on a real server (docs/replication.md): every
 * answer names the node's newest vid; a request asking for a vid the node has published is served at
 * once, one asking for a later vid is refused with 503 after the configured wait, naming both, and a
 * malformed header is 400. On a group the same header makes a replica wait for a commit made elsewhere
 * (ReplicationIT covers the group).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestMinVidHeader {
    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(directory, ConfigOverride.config("replication.min-vid-wait", "200ms"));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private long commit(String path) {
        TreeCatTestServer.Reply reply = server.send(
                "POST",
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"" + path + "\", \"value\": {}}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().get("vid").asLong();
    }

    @Test
    void everyAnswerNamesTheNodesVidAndAPublishedMinVidIsServedAtOnce() {
        long vid = commit("/min_vid_a");
        TreeCatTestServer.Reply read =
                server.send("GET", "/treecat/v1/query?q=/*", null, "X-TreeCat-Min-Vid", Long.toString(vid));
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(Long.parseLong(read.header("X-TreeCat-Vid"))).isGreaterThanOrEqualTo(vid);
        // Iceberg routes too.
        TreeCatTestServer.Reply config = server.send("GET", "/v1/config", null, "X-TreeCat-Min-Vid", "0");
        assertThat(config.status()).isEqualTo(200);
        assertThat(config.header("X-TreeCat-Vid")).isNotNull();
    }

    @Test
    void aVidTheNodeHasNotReachedIsRefusedAfterTheWaitNamingBoth() {
        long vid = commit("/min_vid_b");
        long ahead = vid + 1_000_000;
        TreeCatTestServer.Reply refused =
                server.send("GET", "/treecat/v1/query?q=/*", null, "X-TreeCat-Min-Vid", Long.toString(ahead));
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.body())
                .contains("VID_NOT_REACHED")
                .contains("X-TreeCat-Min-Vid")
                .contains(Long.toString(ahead));
        // A write asking for it is refused before it runs: nothing committed.
        TreeCatTestServer.Reply write = server.send(
                "POST",
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/min_vid_never\", \"value\": {}}]}",
                "X-TreeCat-Min-Vid",
                Long.toString(ahead));
        assertThat(write.status()).isEqualTo(503);
        assertThat(server.send("GET", "/treecat/v1/query?q=/%5Bobj_id='min_vid_never'%5D", null, new String[0])
                        .json()
                        .get("rows"))
                .isEmpty();
    }

    @Test
    void aMalformedMinVidIsABadRequest() {
        for (String value : new String[] {"x", "-1", "1.5", "99999999999999999999"}) {
            TreeCatTestServer.Reply reply =
                    server.send("GET", "/treecat/v1/query?q=/*", null, "X-TreeCat-Min-Vid", value);
            assertThat(reply.status()).as(value).isEqualTo(400);
            assertThat(reply.body()).contains("X-TreeCat-Min-Vid");
        }
    }
}
