package io.treecat.spark;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's planning time for an Iceberg table of N files over 365 days, planned from the tree
 * ({@link TreeCatCatalog} with {@code planning=server}: {@code POST …/plan} and its plan tasks over HTTP) and
 * from the manifests (Iceberg's {@code SparkCatalog} on the same server, client-side planning), and with
 * {@code planning=auto}. Real Spark (local[2]) in this JVM, the packaged server as a process on loopback.
 *
 * <p>Measured: from {@code spark.sql(query)} to the scan's input partitions (Spark's analysis, the table load,
 * the optimizer, the scan's planning and task grouping), for {@code day = <one day>} and for no filter (the
 * whole table); 2 warm-up and 5 measured runs of each, catalogs in turn (a different one first each round),
 * median. The table holds metadata
 * only (100 appends of N/100 files, each file with bounds for 4 columns, as {@code ScanPlanningBenchmark}
 * writes them): nothing is read.
 *
 * <p>Usage (docs/benchmarks-history.md): {@code SparkPlanningBenchmark <files> [<files>…]} with
 * {@code -Dtreecat.server.jar=…}; results as one table on stdout.
 */
public final class SparkPlanningBenchmark {
    private static final LocalDate FIRST_DAY = LocalDate.of(2025, 1, 1);
    private static final int WARMUP = 2;
    private static final int RUNS = 5;
    private static final List<String> CATALOGS = List.of("manifests", "tree", "auto");

    private SparkPlanningBenchmark() {}

    public static void main(String[] args) throws Exception {
        int[] sizes = args.length == 0
                ? new int[] {100_000}
                : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.println("| files | filter | files planned | Spark over the manifests (ms) | Spark over the tree (ms)"
                + " | Spark, planning=auto (ms) |");
        System.out.println("|---|---|---|---|---|---|");
        for (int size : sizes) {
            run(size);
        }
    }

    private static void run(int files) throws Exception {
        Path directory = Files.createTempDirectory("treecat-spark-plan-bench");
        TreeCatServerProcess server = TreeCatServerProcess.start(
                directory,
                "",
                Map.of("TREECAT_ROCKSDB_BLOCK_CACHE_SIZE", "512MiB", "TREECAT_ROCKSDB_WRITE_BUFFER_SIZE", "64MiB"),
                // A benchmark's server: a heap for 100,000s of files in flight, and the full JIT; plus any options of
                // -Dbenchmark.server-options (e.g. -Ddw.server.gzip.enabled=false).
                serverOptions());
        SparkSession spark = null;
        try {
            SparkSession.Builder builder = SparkSessions.local("treecat-spark-planning-benchmark", directory)
                    .config("spark.sql.catalog.manifests", "org.apache.iceberg.spark.SparkCatalog")
                    .config("spark.sql.catalog.manifests.type", "rest")
                    .config("spark.sql.catalog.manifests.scan-planning-mode", "client");
            builder.config("spark.sql.catalog.tree", TreeCatCatalog.class.getName())
                    .config("spark.sql.catalog.tree.planning", "server");
            builder.config("spark.sql.catalog.auto", TreeCatCatalog.class.getName());
            for (String catalog : CATALOGS) {
                builder.config("spark.sql.catalog." + catalog + ".uri", server.restUri())
                        .config("spark.sql.catalog." + catalog + ".cache-enabled", "false");
            }
            spark = builder.getOrCreate();
            spark.sql("CREATE NAMESPACE manifests.bench");
            spark.sql("CREATE TABLE manifests.bench.events (id BIGINT, day DATE, category STRING, price DOUBLE) "
                    + "USING iceberg PARTITIONED BY (day, bucket(16, id)) TBLPROPERTIES ('format-version' = '2')");
            Table table = Spark3Util.loadIcebergTable(spark, "manifests.bench.events");
            long start = System.nanoTime();
            fill(table, files);
            System.err.printf("loaded %,d files in %.1f s%n", files, (System.nanoTime() - start) / 1e9);

            String oneDay = "SELECT id FROM %s.bench.events WHERE day = DATE '" + FIRST_DAY.plusDays(180) + "'";
            String wholeTable = "SELECT id FROM %s.bench.events";
            for (String query : List.of(oneDay, wholeTable)) {
                Map<String, long[]> times = new HashMap<>();
                Map<String, Integer> planned = new HashMap<>();
                for (int i = -WARMUP; i < RUNS; i++) {
                    // A different catalog first in each round: none always runs after another's garbage.
                    for (int c = 0; c < CATALOGS.size(); c++) {
                        String catalog = CATALOGS.get(Math.floorMod(i + c, CATALOGS.size()));
                        long t0 = System.nanoTime();
                        int partitions = plan(spark, String.format(query, catalog));
                        long elapsed = System.nanoTime() - t0;
                        planned.put(catalog, partitions);
                        if (i >= 0) {
                            times.computeIfAbsent(catalog, name -> new long[RUNS])[i] = elapsed;
                        }
                    }
                }
                if (planned.values().stream().distinct().count() != 1) {
                    throw new IllegalStateException("The catalogs planned different scans: " + planned);
                }
                System.out.printf(
                        "| %,d | %s | %,d input partitions | %.1f | %.1f | %.1f |%n",
                        files,
                        query.equals(oneDay) ? "1 day" : "whole table",
                        planned.get("manifests"),
                        median(times.get("manifests")),
                        median(times.get("tree")),
                        median(times.get("auto")));
            }
        } finally {
            SparkSessions.stop("SparkPlanningBenchmark", spark, server);
            deleteRecursively(directory);
        }
    }

    private static List<String> serverOptions() {
        List<String> options = new ArrayList<>(List.of("-Xmx6g", "-XX:TieredStopAtLevel=4"));
        String extra = System.getProperty("benchmark.server-options", "").strip();
        if (!extra.isEmpty()) {
            options.addAll(List.of(extra.split("\\s+")));
        }
        return options;
    }

    /** Plans {@code sql} as Spark does before it runs it, down to the scan's input partitions; answers their number. */
    private static int plan(SparkSession spark, String sql) {
        SparkPlan plan = spark.sql(sql).queryExecution().executedPlan();
        int partitions = 0;
        for (SparkPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
            if (leaf instanceof BatchScanExec scan) {
                partitions += scan.inputPartitions().size();
            }
        }
        if (partitions == 0) {
            throw new IllegalStateException("No Iceberg scan in the plan of " + sql + ":\n" + plan);
        }
        return partitions;
    }

    /** Time-ordered appends: 100 commits, each of consecutive days' files, every day holding files/365 of them. */
    private static void fill(Table table, int files) {
        Random random = new Random(files);
        int commits = 100;
        int perCommit = files / commits;
        int written = 0;
        for (int commit = 0; commit < commits; commit++) {
            AppendFiles append = table.newAppend();
            for (int i = 0; i < perCommit; i++) {
                int day = (int) ((long) written * 365 / files);
                append.appendFile(file(table, random, day, written++));
            }
            append.commit();
        }
    }

    private static DataFile file(Table table, Random random, int day, int number) {
        PartitionSpec spec = table.spec();
        PartitionData partition = new PartitionData(spec.partitionType());
        int epochDay = (int) FIRST_DAY.plusDays(day).toEpochDay();
        partition.set(0, epochDay);
        partition.set(1, random.nextInt(16));
        long records = 1000 + random.nextInt(100_000);
        long minId = random.nextInt(1_000_000);
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        lower.put(1, Conversions.toByteBuffer(Types.LongType.get(), minId));
        upper.put(1, Conversions.toByteBuffer(Types.LongType.get(), minId + random.nextInt(100_000)));
        lower.put(2, Conversions.toByteBuffer(Types.DateType.get(), epochDay));
        upper.put(2, Conversions.toByteBuffer(Types.DateType.get(), epochDay));
        lower.put(3, Conversions.toByteBuffer(Types.StringType.get(), "a" + random.nextInt(100)));
        upper.put(3, Conversions.toByteBuffer(Types.StringType.get(), "z" + random.nextInt(100)));
        lower.put(4, Conversions.toByteBuffer(Types.DoubleType.get(), random.nextDouble()));
        upper.put(4, Conversions.toByteBuffer(Types.DoubleType.get(), 100 + random.nextDouble()));
        Map<Integer, Long> counts = Map.of(1, records, 2, records, 3, records, 4, records);
        Map<Integer, Long> nulls = Map.of(1, 0L, 2, 0L, 3, 0L, 4, 0L);
        return DataFiles.builder(spec)
                .withPath(table.location() + "/data/day=" + FIRST_DAY.plusDays(day) + "/part-" + number + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withPartition(partition)
                .withRecordCount(records)
                .withFileSizeInBytes(records * 40)
                .withMetrics(new Metrics(records, null, counts, nulls, Map.of(4, 0L), lower, upper))
                .build();
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }

    private static void deleteRecursively(Path directory) throws Exception {
        try (var paths = Files.walk(directory)) {
            List<Path> all = new ArrayList<>(paths.toList());
            all.sort((a, b) -> b.getNameCount() - a.getNameCount());
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        }
    }
}
