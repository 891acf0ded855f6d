package io.treecat.benchmarks.iceberg;

import com.google.common.util.concurrent.MoreExecutors;
import io.treecat.benchmarks.ServerProcess;
import io.treecat.benchmarks.suite.Directories;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Commits to a table with a long history, against the packaged server: what a commit costs the server once a table
 * holds thousands of snapshots (a streaming writer's table after a few days), and how much the store keeps for it.
 *
 * <p>For each server jar ({@code -Dtreecat.server.jar}, and {@code -Dbaseline.server.jar} when given, each in its own
 * JVM and directory, one after the other): one Java {@code RESTCatalog} builds a table of {@code snapshots} one-file
 * merge appends in client-side transactions of 250 (one commit request each), then makes {@code rounds} rounds of
 * {@code commits} single one-file merge appends, one at a time. Printed per round: the commit's p50 as the client
 * sees it (the whole {@code commit()}, its manifest writes included), the server's CPU per commit ({@code /proc}, the
 * whole JVM, so garbage collection and the JIT count), and at the end the size of the server's data directory.
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/treecat-benchmarks.jar [-Dbaseline.server.jar=…] \
 *     io.treecat.benchmarks.iceberg.LongHistoryCommits [snapshots=3000] [commits=300] [rounds=2]
 * </pre>
 */
public final class LongHistoryCommits {
    private static final TableIdentifier TABLE = TableIdentifier.of(Namespace.of("bench"), "history");
    private static final ExecutorService DIRECT = MoreExecutors.newDirectExecutorService();

    private LongHistoryCommits() {}

    public static void main(String[] args) throws Exception {
        int snapshots = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int commits = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        Map<String, Path> jars = new LinkedHashMap<>();
        jars.put("server", ServerProcess.treecatJar());
        String baseline = System.getProperty("baseline.server.jar");
        if (baseline != null) {
            jars.put("baseline", Path.of(baseline));
        }
        System.out.printf(
                Locale.ROOT,
                "| server | snapshots | round | commits | commit p50 ms | server CPU ms / commit | store MB |%n"
                        + "|---|---|---|---|---|---|---|%n");
        for (Map.Entry<String, Path> jar : jars.entrySet()) {
            Path directory = Files.createTempDirectory("long-history-");
            try (ServerProcess server = ServerProcess.startTreeCat(
                    jar.getValue(), directory, ServerProcess.serverJvmOptions("-Xmx2g"), ServerProcess.freePort(), 0)) {
                run(jar.getKey(), server, directory, snapshots, commits, rounds);
            } finally {
                Directories.delete(directory);
            }
        }
    }

    private static void run(String name, ServerProcess server, Path directory, int snapshots, int commits, int rounds)
            throws IOException {
        try (RESTCatalog catalog = new RESTCatalog()) {
            Map<String, String> properties = new HashMap<>();
            properties.put(CatalogProperties.URI, "http://127.0.0.1:" + server.port());
            properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
            catalog.initialize("bench", properties);
            catalog.createNamespace(TABLE.namespace());
            Table table = catalog.createTable(TABLE, InsertsExperiment.SCHEMA, InsertsExperiment.SPEC);
            for (int made = 0; made < snapshots; made += 250) {
                Transaction transaction = table.newTransaction();
                for (int i = 0; i < Math.min(250, snapshots - made); i++) {
                    transaction
                            .newAppend()
                            .appendFile(InsertsExperiment.file(table))
                            .scanManifestsWith(DIRECT)
                            .commit();
                }
                transaction.commitTransaction();
            }
            for (int round = 1; round <= rounds; round++) {
                long[] nanos = new long[commits];
                long cpu = server.cpuNanos();
                for (int i = 0; i < commits; i++) {
                    long start = System.nanoTime();
                    table.newAppend()
                            .appendFile(InsertsExperiment.file(table))
                            .scanManifestsWith(DIRECT)
                            .commit();
                    nanos[i] = System.nanoTime() - start;
                }
                long serverCpu = server.cpuNanos() - cpu;
                Arrays.sort(nanos);
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %d | %d | %d | %.1f | %.1f | %s |%n",
                        name,
                        snapshots + (round - 1) * commits,
                        round,
                        commits,
                        nanos[commits / 2] / 1e6,
                        serverCpu / 1e6 / commits,
                        round == rounds
                                ? String.format(Locale.ROOT, "%.0f", size(directory.resolve("data")) / 1e6)
                                : "");
            }
        }
    }

    private static long size(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(file -> {
                        try {
                            return Files.size(file);
                        } catch (IOException e) {
                            // A file RocksDB removed meanwhile.
                            return 0;
                        }
                    })
                    .sum();
        }
    }
}
