package io.treecat.benchmarks;

import io.treecat.core.load.BulkLoader;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Loads the whole TPC-DS catalog ({@link TpcdsCatalog#objectCount()} objects, 1,000,000 of them
 * leaves) into an empty directory. One operation is one full load, so objects/s = objects ÷ the
 * time per operation.
 *
 * <ul>
 *   <li>{@link #bulkLoader}: the real import path, JSON lines through {@link BulkLoader}, every
 *       chunk one synced atomic commit. This is "the bulk-load rate".
 *   <li>{@link #commitWriteSets}: the same objects generated on the fly (generation is timed too)
 *       and committed through {@link CatalogService#commit} in write sets of the same size: the
 *       load without JSON parsing.
 * </ul>
 *
 * <p>Each iteration loads into a fresh directory under the benchmark data root, deleted afterwards.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class BulkLoadBenchmark {
    @Param({"10000"})
    int chunkSize;

    private Path jsonLines;
    private Path directory;
    private long started;

    @Setup(Level.Trial)
    public void input() {
        jsonLines = BenchmarkData.jsonLines();
    }

    @Setup(Level.Iteration)
    public void emptyDirectory() throws IOException {
        directory = Files.createTempDirectory(BenchmarkData.root(), "load-");
        started = System.nanoTime();
    }

    @TearDown(Level.Iteration)
    public void deleteDirectory() {
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "%n%,d objects in %.2f s: %,.0f objects/s (chunks of %,d)%n",
                TpcdsCatalog.objectCount(),
                seconds,
                TpcdsCatalog.objectCount() / seconds,
                chunkSize);
        BenchmarkData.deleteRecursively(directory);
    }

    @Benchmark
    public BulkLoader.LoadResult bulkLoader() {
        try (CatalogService service = CatalogService.open(directory);
                BufferedReader reader = Files.newBufferedReader(jsonLines, StandardCharsets.UTF_8)) {
            BulkLoader.LoadResult result = service.bulkLoad(reader, chunkSize, BulkLoader.Progress.NONE);
            return expect(result.records(), result);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Benchmark
    public long commitWriteSets() {
        long[] objects = new long[1];
        try (CatalogService service = CatalogService.open(directory)) {
            List<WriteOp> chunk = new ArrayList<>(chunkSize);
            TpcdsCatalog.generate((path, kind, value) -> {
                chunk.add(new WriteOp.Add(path, kind, value));
                if (chunk.size() == chunkSize) {
                    service.commit(new WriteSet(chunk));
                    objects[0] += chunk.size();
                    chunk.clear();
                }
            });
            if (!chunk.isEmpty()) {
                service.commit(new WriteSet(chunk));
                objects[0] += chunk.size();
            }
        }
        return expect(objects[0], objects[0]);
    }

    private static <T> T expect(long objects, T result) {
        if (objects != TpcdsCatalog.objectCount()) {
            throw new IllegalStateException("Loaded " + objects + " objects, expected " + TpcdsCatalog.objectCount());
        }
        return result;
    }
}
