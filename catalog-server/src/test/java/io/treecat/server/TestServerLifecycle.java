package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog opens with the server and closes with it: data survives a restart on the same directory. */
class TestServerLifecycle {
    @TempDir
    Path directory;

    @Test
    void keepsDataAcrossARestart() throws Exception {
        long vid;
        try (TreeCatTestServer server = new TreeCatTestServer(directory)) {
            Reply committed = server.post(
                    "/treecat/v1/commit",
                    "{\"writes\": [{\"op\": \"add\", \"path\": \"/kept\", \"value\": {\"n\": 7}}]}");
            assertThat(committed.status()).isEqualTo(200);
            vid = committed.json().get("vid").asLong();
            assertThat(server.post("/treecat/v1/snapshots", "{\"name\": \"first\"}")
                            .status())
                    .isEqualTo(201);
        }
        assertThat(Files.isDirectory(directory.resolve("warehouse"))).isTrue();

        try (TreeCatTestServer server = new TreeCatTestServer(directory)) {
            Reply read = server.get("/treecat/v1/objects?path=%2Fkept&snapshot=first");
            assertThat(read.status()).isEqualTo(200);
            assertThat(read.json().get("vid").asLong()).isEqualTo(vid);
            assertThat(read.json().get("value").get("n").asInt()).isEqualTo(7);
            Reply next = server.post(
                    "/treecat/v1/commit",
                    "{\"writes\": [{\"op\": \"update\", \"path\": \"/kept\", \"value\": {\"n\": 8}}]}");
            assertThat(next.json().get("vid").asLong()).isEqualTo(vid + 1);
        }
    }
}
