package io.treecat.benchmarks;

import io.treecat.core.load.BulkLoader;
import io.treecat.core.service.CatalogService;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The data the benchmarks share, built once and cached under {@code benchmarks/target/bench-data}
 * (or {@code -Dtreecat.bench.data=DIR}): the TPC-DS JSON lines, and the catalog loaded from them.
 * Each is trusted only when its marker file exists; the marker is written last, so an interrupted
 * build is redone from scratch by the next run.
 *
 * <p>The cached catalog is loaded through {@link BulkLoader} (chunks of {@value #CHUNK_SIZE}) and
 * then fully compacted, so every read benchmark sees the same settled LSM tree, whatever order the
 * benchmarks run in and however long the background compactions of the load would have taken.
 */
public final class BenchmarkData {
    public static final int CHUNK_SIZE = 10_000;
    private static final String JSON_LINES = "tpcds-1m.jsonl";
    private static final String CATALOG = "tpcds-1m";
    private static final String COMPLETE = ".complete";

    private BenchmarkData() {}

    /** Builds the cached data ahead of a benchmark run, so no benchmark's setup pays for it. */
    public static void main(String[] args) {
        log("catalog ready in %s", catalog());
    }

    public static Path root() {
        Path root = Path.of(System.getProperty("treecat.bench.data", "benchmarks/target/bench-data"))
                .toAbsolutePath();
        try {
            return Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the benchmark data directory " + root, e);
        }
    }

    /** The catalog as JSON lines, written on first use. */
    public static synchronized Path jsonLines() {
        Path file = root().resolve(JSON_LINES);
        Path marker = root().resolve(JSON_LINES + COMPLETE);
        if (Files.exists(marker) && Files.exists(file)) {
            return file;
        }
        long started = System.nanoTime();
        Path partial = root().resolve(JSON_LINES + ".partial");
        try (BufferedWriter out = Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
            TpcdsCatalog.writeJsonLines(out);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + partial, e);
        }
        try {
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(marker, "objects=" + TpcdsCatalog.objectCount() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot finish " + file, e);
        }
        log("wrote %s (%,d objects) in %.1f s", file, TpcdsCatalog.objectCount(), (System.nanoTime() - started) / 1e9);
        return file;
    }

    /** The directory of the loaded, compacted 1M-leaf catalog, built on first use. */
    public static synchronized Path catalog() {
        Path directory = root().resolve(CATALOG);
        Path marker = root().resolve(CATALOG + COMPLETE);
        if (Files.exists(marker) && Files.isDirectory(directory)) {
            return directory;
        }
        Path input = jsonLines();
        deleteRecursively(directory);
        BulkLoader.LoadResult result;
        try (CatalogService service = CatalogService.open(directory);
                BufferedReader reader = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
            result = service.bulkLoad(reader, CHUNK_SIZE, BulkLoader.Progress.NONE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + input, e);
        }
        log(
                "loaded %,d objects in %,d commits at %,.0f objects/s",
                result.records(), result.commits(), result.recordsPerSecond());
        long compactStarted = System.nanoTime();
        RawRocks.compact(directory);
        log("compacted in %.1f s", (System.nanoTime() - compactStarted) / 1e9);
        try {
            Files.writeString(
                    marker,
                    String.format(
                            Locale.ROOT,
                            "objects=%d%ncommits=%d%nchunk=%d%nobjectsPerSecond=%.0f%n",
                            result.records(),
                            result.commits(),
                            CHUNK_SIZE,
                            result.recordsPerSecond()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + marker, e);
        }
        return directory;
    }

    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + directory, e);
        }
    }

    static void log(String format, Object... args) {
        System.out.println("[bench-data] " + String.format(Locale.ROOT, format, args));
    }
}
