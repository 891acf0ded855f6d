package io.treecat.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a refused request must leave as it was: the newest committed vid of the store (no commit
 * happened) and every file under the warehouse (no directory or metadata file was left behind).
 */
record StoreState(long newestVid, List<String> warehouseFiles) {
    static StoreState of(TreeCatTestServer server, Path warehouse) {
        TreeCatTestServer.Reply query = server.get("/treecat/v1/query?q=%2F*&limit=1");
        if (query.status() != 200) {
            throw new IllegalStateException("The server does not answer: " + query.status() + " " + query.body());
        }
        return new StoreState(query.json().get("vid").asLong(), files(warehouse));
    }

    private static List<String> files(Path warehouse) {
        if (!Files.exists(warehouse)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(warehouse)) {
            return paths.map(path -> warehouse.relativize(path).toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
