package io.treecat.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.iceberg.NewTable;
import io.treecat.lakehouse.iceberg.ScanPlanner;
import io.treecat.lakehouse.iceberg.ScanRequest;
import io.treecat.lakehouse.iceberg.TableChange;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.rest.iceberg.IcebergWire;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateRequirements;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ThreadPools;

/**
 * Scan planning latency on one Iceberg table of N files over 365 days (identity day + bucket(16,
 * id)), for a 1-day and a 365-day filter: TreeCat's server-side planning from the files indexed in
 * the tree ({@link ScanPlanner}, the code behind {@code POST …/plan}, plus every plan task and the
 * JSON of every response, as the wire would carry it) against Iceberg's client-side {@code
 * planFiles} over the manifests of the same metadata, both in this process on the same local disk.
 *
 * <p>The table is filled through {@link IcebergTables#commit} (the REST commit path, so every
 * append is indexed in its own write set) by time-ordered appends of {@code N/100} files each, with
 * Iceberg's default manifest merging; every file has bounds for 4 columns.
 *
 * <p>Usage: {@code ScanPlanningBenchmark <files> [<files>…]}; results as one table on stdout.
 */
public final class ScanPlanningBenchmark {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "category", Types.StringType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").bucket("id", 16).build();
    private static final LocalDate FIRST_DAY = LocalDate.of(2025, 1, 1);
    private static final String PREFIX = "bench";
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final int WARMUP = 2;
    private static final int RUNS = 5;

    private ScanPlanningBenchmark() {}

    public static void main(String[] args) throws Exception {
        int[] sizes = args.length == 0
                ? new int[] {10_000, 100_000}
                : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.println("| files | filter | files planned | TreeCat /plan (ms, median of " + RUNS
                + ") | plan tasks | Iceberg planFiles (ms, median of " + RUNS + ") |");
        System.out.println("|---|---|---|---|---|---|");
        for (int size : sizes) {
            run(size);
        }
    }

    private static void run(int files) throws Exception {
        Path directory = Files.createTempDirectory("treecat-plan-bench");
        LocalFileIO io = new LocalFileIO();
        try (CatalogService service = CatalogService.open(directory.resolve("catalog"))) {
            Lakehouse lake = Lakehouse.of(
                    () -> service,
                    Warehouses.underRoot(directory.resolve("warehouse").toUri().toString(), io),
                    Authorizer.allowAll());
            IcebergTables catalog = new IcebergTables(lake, false);
            ScanPlanner planner = new ScanPlanner(lake, ScanPlanner.DEFAULT_PARTITIONS_PER_TASK);
            Namespace namespace = Namespace.of("db");
            new IcebergNamespaces(lake).create(WHO, PREFIX, namespace, Map.of());
            TableIdentifier identifier = TableIdentifier.of(namespace, "events");
            catalog.create(
                    WHO,
                    PREFIX,
                    namespace,
                    new NewTable("events", SCHEMA, SPEC, null, null, Map.of(TableProperties.FORMAT_VERSION, "2")));
            Table table = new BaseTable(new CommittingOperations(catalog, identifier, io), identifier.toString());
            long start = System.nanoTime();
            fill(table, files);
            double loadSeconds = (System.nanoTime() - start) / 1e9;
            System.err.printf("loaded %,d files in %.1f s%n", files, loadSeconds);

            TableMetadata metadata = catalog.load(WHO, PREFIX, ReadPoint.LATEST, identifier);
            Table clientTable = new BaseTable(new StaticTableOperations(metadata, io), identifier.toString());
            ObjectMapper mapper = mapper();
            Expression oneDay = Expressions.equal("day", FIRST_DAY.plusDays(180).toString());
            Expression allDays = Expressions.and(
                    Expressions.greaterThanOrEqual("day", FIRST_DAY.toString()),
                    Expressions.lessThanOrEqual("day", FIRST_DAY.plusDays(364).toString()));
            for (Expression filter : List.of(oneDay, allDays)) {
                String label = filter == oneDay ? "1 day" : "365 days";
                long[] treecat = new long[RUNS];
                long[] iceberg = new long[RUNS];
                int[] counts = new int[2];
                for (int i = -WARMUP; i < RUNS; i++) {
                    long t0 = System.nanoTime();
                    counts[0] = planOnServer(planner, mapper, identifier, filter);
                    long t1 = System.nanoTime();
                    counts[1] = planOnClient(clientTable, filter);
                    long t2 = System.nanoTime();
                    if (i >= 0) {
                        treecat[i] = t1 - t0;
                        iceberg[i] = t2 - t1;
                    }
                }
                if (counts[0] != counts[1]) {
                    throw new IllegalStateException("TreeCat planned " + counts[0] + " files, Iceberg " + counts[1]);
                }
                System.out.printf(
                        "| %,d | %s | %,d | %.1f | %s | %.1f |%n",
                        files, label, counts[0], median(treecat), lastTasks, median(iceberg));
            }
        } finally {
            deleteRecursively(directory);
        }
    }

    private static String lastTasks = "";

    /**
     * Fetches plan tasks as Iceberg's REST client does ({@code ScanTaskIterable}): on as many workers as
     * its worker pool has ({@code ThreadPools.WORKER_THREAD_POOL_SIZE}, the number of cores by default).
     */
    private static final ExecutorService TASK_FETCHERS =
            Executors.newFixedThreadPool(ThreadPools.WORKER_THREAD_POOL_SIZE, runnable -> {
                Thread thread = new Thread(runnable, "plan-task-fetcher");
                thread.setDaemon(true);
                return thread;
            });

    /** One plan as a client would get it: the plan, then every plan task (fetched in parallel), each response written as JSON. */
    private static int planOnServer(
            ScanPlanner planner, ObjectMapper mapper, TableIdentifier identifier, Expression filter) throws Exception {
        PlanTableScanResponse response =
                IcebergWire.response(planner.plan(WHO, PREFIX, ReadPoint.LATEST, identifier, ScanRequest.of(filter)));
        long bytes = mapper.writeValueAsString(response).length();
        int files =
                response.fileScanTasks() == null ? 0 : response.fileScanTasks().size();
        int tasks = response.planTasks() == null ? 0 : response.planTasks().size();
        if (response.planTasks() != null) {
            List<Future<long[]>> fetches = new ArrayList<>();
            for (String task : response.planTasks()) {
                fetches.add(TASK_FETCHERS.submit(() -> {
                    FetchScanTasksResponse fetched = IcebergWire.response(planner.tasks(WHO, PREFIX, identifier, task));
                    return new long[] {
                        mapper.writeValueAsString(fetched).length(),
                        fetched.fileScanTasks().size()
                    };
                }));
            }
            for (Future<long[]> fetch : fetches) {
                long[] fetched = fetch.get();
                bytes += fetched[0];
                files += (int) fetched[1];
            }
        }
        lastTasks = tasks == 0 ? "0" : String.format("%d (%,d KB of JSON in all)", tasks, bytes / 1024);
        return files;
    }

    private static int planOnClient(Table table, Expression filter) throws Exception {
        int files = 0;
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().filter(filter).planFiles()) {
            for (FileScanTask ignored : tasks) {
                files++;
            }
        }
        return files;
    }

    private static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper();
        RESTSerializers.registerAll(mapper);
        return mapper;
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
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
        PartitionData partition = new PartitionData(SPEC.partitionType());
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
        return DataFiles.builder(SPEC)
                .withPath(table.location() + "/data/day=" + FIRST_DAY.plusDays(day) + "/part-" + number + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withPartition(partition)
                .withRecordCount(records)
                .withFileSizeInBytes(records * 40)
                .withMetrics(new Metrics(records, null, counts, nulls, Map.of(4, 0L), lower, upper))
                .build();
    }

    /** Iceberg's table operations over TreeCat's REST commit path, in process: what {@code RESTTableOperations} does over HTTP. */
    private static final class CommittingOperations implements TableOperations {
        private final IcebergTables catalog;
        private final TableIdentifier identifier;
        private final FileIO io;
        private TableMetadata current;

        CommittingOperations(IcebergTables catalog, TableIdentifier identifier, FileIO io) {
            this.catalog = catalog;
            this.identifier = identifier;
            this.io = io;
            this.current = catalog.load(WHO, PREFIX, ReadPoint.LATEST, identifier);
        }

        @Override
        public TableMetadata current() {
            return current;
        }

        @Override
        public TableMetadata refresh() {
            current = catalog.load(WHO, PREFIX, ReadPoint.LATEST, identifier);
            return current;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            TableChange change = new TableChange(
                    identifier, UpdateRequirements.forUpdateTable(base, metadata.changes()), metadata.changes());
            current = catalog.commit(WHO, PREFIX, List.of(change)).get(0);
        }

        @Override
        public FileIO io() {
            return io;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return current.location() + "/metadata/" + fileName;
        }

        @Override
        public LocationProvider locationProvider() {
            return LocationProviders.locationsFor(current.location(), current.properties());
        }
    }

    private static void deleteRecursively(Path directory) throws Exception {
        try (var paths = Files.walk(directory)) {
            List<Path> all = new ArrayList<>(paths.toList());
            java.util.Collections.reverse(all);
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        }
    }
}
