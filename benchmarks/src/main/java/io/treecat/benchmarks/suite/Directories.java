package io.treecat.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Copies and deletions of the experiments' stores. */
public final class Directories {
    private Directories() {}

    /** Copies {@code source} (a closed store, say) to {@code target}, which must not exist. */
    public static void copy(Path source, Path target) throws IOException {
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path each : walk.toList()) {
                Path copy = target.resolve(source.relativize(each).toString());
                if (Files.isDirectory(each)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(each, copy);
                }
            }
        }
    }

    /** Deletes {@code path} and everything under it, if it exists. */
    public static void delete(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path each : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(each);
            }
        }
    }
}
