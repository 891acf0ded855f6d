package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server-side scan planning against Iceberg's own client-side planning, on a real server driven by
 * Iceberg's {@code RESTCatalog}: the differential test of docs/iceberg-rest.md ("Scan planning").
 * Every (data file, delete files) pair TreeCat's {@code /plan} answers must equal what
 * {@code planFiles} over the manifests answers, for random filters at every snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestIcebergScanPlanning {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "category", Types.StringType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").bucket("id", 4).build();
    private static final LocalDate EPOCH_DAY = LocalDate.of(2024, 1, 1);
    private static final int DAYS = 40;
    private static final String[] CATEGORIES = {"apple", "banana", "cherry", "date", "elder", "fig", "grape"};

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

    private RESTCatalog client(boolean serverPlanning) {
        return serverPlanning
                ? server.icebergServerPlanningClient()
                : server.icebergClient("client-planning", Map.of());
    }

    // ---- random files

    private static ByteBuffer bound(Types.NestedField field, Object value) {
        return Conversions.toByteBuffer(field.type(), value);
    }

    private static Metrics metrics(
            Random random,
            long records,
            long minId,
            long maxId,
            int day,
            String minCategory,
            String maxCategory,
            long nullCategories,
            boolean nullDay) {
        Map<Integer, Long> valueCounts = Map.of(1, records, 2, records, 3, records, 4, records);
        Map<Integer, Long> nullCounts =
                new HashMap<>(Map.of(1, 0L, 2, nullDay ? records : 0L, 3, nullCategories, 4, 0L));
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        lower.put(1, bound(SCHEMA.findField(1), minId));
        upper.put(1, bound(SCHEMA.findField(1), maxId));
        if (!nullDay) {
            lower.put(2, bound(SCHEMA.findField(2), day));
            upper.put(2, bound(SCHEMA.findField(2), day));
        }
        if (nullCategories < records) {
            lower.put(3, bound(SCHEMA.findField(3), minCategory));
            upper.put(3, bound(SCHEMA.findField(3), maxCategory));
        }
        if (random.nextBoolean()) {
            double low = random.nextInt(1000) / 10.0;
            lower.put(4, bound(SCHEMA.findField(4), low));
            upper.put(4, bound(SCHEMA.findField(4), low + random.nextInt(500) / 10.0));
        }
        return new Metrics(records, null, valueCounts, nullCounts, Map.of(4, 0L), lower, upper);
    }

    private static String partitionPath(PartitionSpec spec, Integer day, int bucket) {
        String dayPart =
                "day=" + (day == null ? "null" : LocalDate.ofEpochDay(day).toString());
        return spec.fields().size() == 1 ? dayPart : dayPart + "/id_bucket=" + bucket;
    }

    private static org.apache.iceberg.PartitionData partition(PartitionSpec spec, Integer day, int bucket) {
        org.apache.iceberg.PartitionData data = new org.apache.iceberg.PartitionData(spec.partitionType());
        data.set(0, day);
        if (spec.fields().size() > 1) {
            data.set(1, bucket);
        }
        return data;
    }

    private int counter;

    private DataFile dataFile(Table table, Random random) {
        PartitionSpec spec = table.spec();
        // Days as Iceberg stores dates: days since 1970-01-01, from EPOCH_DAY on.
        Integer day = random.nextInt(30) == 0 ? null : (int) EPOCH_DAY.toEpochDay() + random.nextInt(DAYS);
        int bucket = random.nextInt(4);
        long records = 1 + random.nextInt(1000);
        long minId = random.nextInt(10_000);
        int c1 = random.nextInt(CATEGORIES.length);
        int c2 = Math.min(CATEGORIES.length - 1, c1 + random.nextInt(3));
        long nullCategories = random.nextInt(5) == 0 ? (random.nextBoolean() ? records : records / 2) : 0;
        return DataFiles.builder(spec)
                .withPath(table.location() + "/data/" + partitionPath(spec, day, bucket) + "/f" + (counter++)
                        + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1000 + random.nextInt(100_000))
                .withRecordCount(records)
                .withPartition(partition(spec, day, bucket))
                .withMetrics(metrics(
                        random,
                        records,
                        minId,
                        minId + random.nextInt(5000),
                        day == null ? 0 : day,
                        CATEGORIES[c1],
                        CATEGORIES[c2],
                        nullCategories,
                        day == null))
                .build();
    }

    private DeleteFile positionDeletes(Table table, DataFile target, boolean referenced) {
        PartitionSpec spec = table.specs().get(target.specId());
        FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(spec)
                .ofPositionDeletes()
                .withPath(table.location() + "/data/pos-" + (counter++) + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(500)
                .withRecordCount(3)
                .withPartition(target.partition());
        if (referenced) {
            // Bounds on the file_path column say which data file the deletes are for.
            ByteBuffer path = Conversions.toByteBuffer(Types.StringType.get(), target.location());
            builder.withMetrics(
                    new Metrics(3L, null, null, null, null, Map.of(2147483546, path), Map.of(2147483546, path)));
        }
        return builder.build();
    }

    private DeleteFile equalityDeletes(Table table, DataFile target, Random random) {
        PartitionSpec spec = table.specs().get(target.specId());
        int c = random.nextInt(CATEGORIES.length);
        ByteBuffer category = bound(SCHEMA.findField(3), CATEGORIES[c]);
        return FileMetadata.deleteFileBuilder(spec)
                .ofEqualityDeletes(3)
                .withPath(table.location() + "/data/eq-" + (counter++) + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(400)
                .withRecordCount(2)
                .withPartition(target.partition())
                .withMetrics(new Metrics(
                        2L, null, Map.of(3, 2L), Map.of(3, 0L), null, Map.of(3, category), Map.of(3, category)))
                .build();
    }

    private static List<DataFile> liveDataFiles(Table table) {
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return files;
    }

    // ---- random filters

    private static Expression randomFilter(Random random, int depth) {
        if (depth > 0 && random.nextInt(3) > 0) {
            return switch (random.nextInt(3)) {
                case 0 -> Expressions.and(randomFilter(random, depth - 1), randomFilter(random, depth - 1));
                case 1 -> Expressions.or(randomFilter(random, depth - 1), randomFilter(random, depth - 1));
                default -> Expressions.not(randomFilter(random, depth - 1));
            };
        }
        String column = new String[] {"id", "day", "category", "price"}[random.nextInt(4)];
        Object value = switch (column) {
            case "id" -> (long) random.nextInt(16_000);
            case "day" -> EPOCH_DAY.plusDays(random.nextInt(DAYS + 2) - 1).toString();
            case "category" -> CATEGORIES[random.nextInt(CATEGORIES.length)] + (random.nextBoolean() ? "" : "a");
            default -> random.nextInt(1600) / 10.0;
        };
        return switch (random.nextInt(9)) {
            case 0 -> Expressions.lessThan(column, value);
            case 1 -> Expressions.lessThanOrEqual(column, value);
            case 2 -> Expressions.greaterThan(column, value);
            case 3 -> Expressions.greaterThanOrEqual(column, value);
            case 4 -> Expressions.equal(column, value);
            case 5 -> Expressions.notEqual(column, value);
            case 6 -> Expressions.in(column, value, column.equals("category") ? value + "x" : value);
            case 7 -> Expressions.isNull(column);
            default -> Expressions.notNull(column);
        };
    }

    /**
     * What a plan says about one data file: the delete files attached to it (sorted descriptions) and
     * the task's own fields a reader uses (the file's fields but column stats, and the residual).
     */
    private record Planned(Set<String> deletes, String file) {}

    /** Each planned data file, by location. */
    private static Map<String, Planned> plan(Table table, long snapshotId, Expression filter) {
        Map<String, Planned> plan = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshotId).filter(filter).planFiles()) {
            for (FileScanTask task : tasks) {
                Set<String> deletes = new TreeSet<>();
                task.deletes()
                        .forEach(delete -> deletes.add(describe(table, delete) + " equality "
                                + delete.equalityFieldIds() + " references " + delete.referencedDataFile()));
                String file = describe(table, task.file()) + " residual " + ExpressionParser.toJson(task.residual());
                assertThat(plan.put(task.file().location(), new Planned(deletes, file)))
                        .as("file planned twice: %s", task.file().location())
                        .isNull();
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return plan;
    }

    private static String describe(Table table, ContentFile<?> file) {
        return file.location() + " " + file.content() + " " + file.format() + " spec " + file.specId() + " "
                + table.specs().get(file.specId()).partitionToPath(file.partition()) + " records " + file.recordCount()
                + " size "
                + file.fileSizeInBytes() + " sort " + file.sortOrderId() + " splits " + file.splitOffsets() + " key "
                + file.keyMetadata();
    }

    // ---- the tests

    @Test
    void serverPlansEqualClientPlansForRandomFiltersAtEverySnapshot() throws Exception {
        Random random = new Random(20261122L);
        try (RESTCatalog clientSide = client(false);
                RESTCatalog serverSide = client(true)) {
            Namespace namespace = Namespace.of("planning");
            clientSide.createNamespace(namespace);
            TableIdentifier identifier = TableIdentifier.of(namespace, "events");
            Table table = clientSide.createTable(identifier, SCHEMA, SPEC, Map.of(TableProperties.FORMAT_VERSION, "2"));
            for (int op = 0; op < 40; op++) {
                table.refresh();
                List<DataFile> live = liveDataFiles(table);
                int kind = live.size() < 8 ? 0 : random.nextInt(6);
                switch (kind) {
                    case 0, 1 -> {
                        var append = table.newAppend();
                        for (int i = 0; i < 1 + random.nextInt(8); i++) {
                            append.appendFile(dataFile(table, random));
                        }
                        append.commit();
                    }
                    case 2 -> {
                        var overwrite = table.newOverwrite();
                        overwrite.deleteFile(live.get(random.nextInt(live.size())));
                        overwrite.addFile(dataFile(table, random));
                        overwrite.addFile(dataFile(table, random));
                        overwrite.commit();
                    }
                    case 3, 4 -> {
                        var rowDelta = table.newRowDelta();
                        for (int i = 0; i < 1 + random.nextInt(3); i++) {
                            DataFile target = live.get(random.nextInt(live.size()));
                            rowDelta.addDeletes(
                                    random.nextBoolean()
                                            ? positionDeletes(table, target, random.nextBoolean())
                                            : equalityDeletes(table, target, random));
                        }
                        if (random.nextBoolean()) {
                            rowDelta.addRows(dataFile(table, random));
                        }
                        rowDelta.commit();
                    }
                    default ->
                        table.newDelete()
                                .deleteFile(live.get(random.nextInt(live.size())))
                                .commit();
                }
                if (op == 20) {
                    // A second partition spec: new files are partitioned by day only; old files keep spec 0.
                    table.updateSpec().removeField("id_bucket").commit();
                }
                if (op == 30) {
                    // Two snapshots in one commit: the first is never the head of a write set, so it is planned through
                    // the manifests.
                    Transaction transaction = table.newTransaction();
                    transaction.newAppend().appendFile(dataFile(table, random)).commit();
                    transaction.newAppend().appendFile(dataFile(table, random)).commit();
                    transaction.commitTransaction();
                }
            }

            Table clientTable = clientSide.loadTable(identifier);
            Table serverTable = serverSide.loadTable(identifier);
            assertThat(serverTable.getClass().getSimpleName()).isEqualTo("RESTTable");
            List<Snapshot> snapshots = new ArrayList<>();
            clientTable.snapshots().forEach(snapshots::add);
            assertThat(snapshots).hasSizeGreaterThan(40);
            int compared = 0;
            int nonEmpty = 0;
            int withoutDeleteFiles = 0;
            for (Snapshot snapshot : snapshots) {
                // Snapshots with no delete file take the planner's path that decodes only the stats the filter needs.
                if ("0".equals(snapshot.summary().get(SnapshotSummary.TOTAL_DELETE_FILES_PROP))) {
                    withoutDeleteFiles++;
                }
                for (int i = 0; i < 12; i++) {
                    Expression filter = i == 0 ? Expressions.alwaysTrue() : randomFilter(random, 3);
                    Map<String, Planned> expected = plan(clientTable, snapshot.snapshotId(), filter);
                    Map<String, Planned> actual = plan(serverTable, snapshot.snapshotId(), filter);
                    assertThat(actual)
                            .as("snapshot %s, filter %s", snapshot.snapshotId(), filter)
                            .isEqualTo(expected);
                    compared++;
                    if (!expected.isEmpty()
                            && expected.values().stream()
                                    .anyMatch(p -> !p.deletes().isEmpty())) {
                        nonEmpty++;
                    }
                }
            }
            assertThat(compared).isGreaterThan(400);
            // The comparison is not vacuous: many plans carry files with deletes attached.
            assertThat(nonEmpty).isGreaterThan(50);
            assertThat(withoutDeleteFiles).isBetween(3, snapshots.size() - 10);
        }
    }

    @Test
    void treeHoldsExactlyTheLiveFilesAndPlanTasksSplitLargePlans() throws Exception {
        Random random = new Random(7L);
        try (RESTCatalog clientSide = client(false);
                RESTCatalog serverSide = client(true)) {
            Namespace namespace = Namespace.of("wide");
            clientSide.createNamespace(namespace);
            TableIdentifier identifier = TableIdentifier.of(namespace, "events");
            Table table = clientSide.createTable(identifier, SCHEMA, SPEC, Map.of(TableProperties.FORMAT_VERSION, "2"));
            var append = table.newAppend();
            Map<String, DataFile> appended = new HashMap<>();
            for (int i = 0; i < 400; i++) {
                DataFile file = dataFile(table, random);
                appended.put(file.location(), file);
                append.appendFile(file);
            }
            append.commit();
            table.refresh();
            List<DataFile> live = liveDataFiles(table);

            // stats-fields on a snapshot without delete files (where the planner decodes only the stats of
            // the filter's and the asked columns): the answer carries exactly the asked column's stats.
            Expression someIds = Expressions.and(
                    Expressions.equal("day", EPOCH_DAY.plusDays(3).toString()), Expressions.greaterThan("id", 2000L));
            TreeCatTestServer.Reply withStats = server.post(
                    "/v1/warehouse/namespaces/wide/tables/events/plan",
                    "{\"stats-fields\": [\"category\"], \"filter\": " + ExpressionParser.toJson(someIds) + "}");
            assertThat(withStats.status()).isEqualTo(200);
            Set<String> withStatsFiles = new TreeSet<>();
            for (var task : withStats.json().get("file-scan-tasks")) {
                var file = task.get("data-file");
                DataFile original = appended.get(file.get("file-path").asText());
                withStatsFiles.add(original.location());
                assertThat(file.get("value-counts").get("keys").toString()).isEqualTo("[3]");
                assertThat(file.get("value-counts").get("values").get(0).asLong())
                        .isEqualTo(original.valueCounts().get(3));
                assertThat(file.get("null-value-counts").get("values").get(0).asLong())
                        .isEqualTo(original.nullValueCounts().get(3));
                assertThat(file.get("lower-bounds").get("keys").toString())
                        .isEqualTo(original.lowerBounds().containsKey(3) ? "[3]" : "[]");
            }
            assertThat(withStatsFiles)
                    .isNotEmpty()
                    .isEqualTo(plan(table, table.currentSnapshot().snapshotId(), someIds)
                            .keySet());
            table.newRowDelta()
                    .addDeletes(positionDeletes(table, live.get(0), false))
                    .addDeletes(equalityDeletes(table, live.get(1), random))
                    .commit();

            // The leaves under the table are the live data and delete files.
            TreeCatTestServer.Reply leaves = server.get("/treecat/v1/query?q="
                    + TreeCatTestServer.encode(
                            "/[obj_id='warehouse']/[obj_id='wide']/[obj_id='events']/[obj_type='partition']/*")
                    + "&results=leaves&limit=10000");
            assertThat(leaves.status()).isEqualTo(200);
            assertThat(leaves.json().get("rows").size()).isEqualTo(402);

            // Over 100 partitions match an unfiltered scan: the server answers plan tasks, which the client fetches.
            TreeCatTestServer.Reply plan = server.post("/v1/warehouse/namespaces/wide/tables/events/plan", "{}");
            assertThat(plan.status()).isEqualTo(200);
            assertThat(plan.json().get("status").asText()).isEqualTo("completed");
            assertThat(plan.json().get("plan-tasks").size()).isGreaterThan(1);
            Table serverTable = serverSide.loadTable(identifier);
            long snapshotId = serverTable.currentSnapshot().snapshotId();
            assertThat(plan(serverTable, snapshotId, Expressions.alwaysTrue()))
                    .isEqualTo(plan(table, snapshotId, Expressions.alwaysTrue()));
            Expression oneDay = Expressions.equal("day", EPOCH_DAY.plusDays(3).toString());
            TreeCatTestServer.Reply narrow = server.post(
                    "/v1/warehouse/namespaces/wide/tables/events/plan",
                    "{\"filter\": " + org.apache.iceberg.expressions.ExpressionParser.toJson(oneDay) + "}");
            assertThat(narrow.json().has("plan-tasks")).isFalse();
            assertThat(narrow.json().get("file-scan-tasks").size())
                    .isEqualTo(plan(table, snapshotId, oneDay).size());

            // A renamed table keeps its index (TestIcebergRenameIndex has the details); the next commit carries on from
            // it.
            TableIdentifier renamed = TableIdentifier.of(namespace, "events_renamed");
            clientSide.renameTable(identifier, renamed);
            Table renamedServer = serverSide.loadTable(renamed);
            assertThat(plan(renamedServer, snapshotId, oneDay)).isEqualTo(plan(table, snapshotId, oneDay));
            Table renamedClient = clientSide.loadTable(renamed);
            renamedClient
                    .newAppend()
                    .appendFile(dataFile(renamedClient, random))
                    .commit();
            renamedClient.refresh();
            renamedServer.refresh();
            long next = renamedClient.currentSnapshot().snapshotId();
            assertThat(plan(renamedServer, next, Expressions.alwaysTrue()))
                    .isEqualTo(plan(renamedClient, next, Expressions.alwaysTrue()));
            TreeCatTestServer.Reply indexed = server.get("/treecat/v1/query?q="
                    + TreeCatTestServer.encode(
                            "/[obj_id='warehouse']/[obj_id='wide']/[obj_id='events_renamed']/[obj_type='partition']/*")
                    + "&results=leaves&limit=10000");
            assertThat(indexed.json().get("rows").size()).isEqualTo(403);

            // Register indexes the current snapshot's files.
            clientSide.registerTable(
                    TableIdentifier.of(namespace, "registered"),
                    ((org.apache.iceberg.HasTableOperations) renamedClient)
                            .operations()
                            .current()
                            .metadataFileLocation());
            TreeCatTestServer.Reply registered = server.get("/treecat/v1/query?q="
                    + TreeCatTestServer.encode(
                            "/[obj_id='warehouse']/[obj_id='wide']/[obj_id='registered']/[obj_type='partition']/*")
                    + "&results=leaves&limit=10000");
            assertThat(registered.json().get("rows").size()).isEqualTo(403);
            Table registeredServer = serverSide.loadTable(TableIdentifier.of(namespace, "registered"));
            assertThat(plan(registeredServer, next, oneDay)).isEqualTo(plan(renamedClient, next, oneDay));
        }
    }

    /**
     * Iceberg's {@code or} is binary, so 100 of them nest 100 deep, past the path query's depth limit
     * (64): the pushdown narrows less there instead of building a query the parser refuses (a 400 about a
     * query the client never wrote); a 5,000-value {@code in} would pass half the query's text and pushes
     * no per-spec part. Either way the plan is the client's.
     */
    @Test
    void deepAndWideFiltersPlanAsTheClientDoes() throws Exception {
        Random random = new Random(11L);
        try (RESTCatalog clientSide = client(false);
                RESTCatalog serverSide = client(true)) {
            Namespace namespace = Namespace.of("deep_filters");
            clientSide.createNamespace(namespace);
            TableIdentifier identifier = TableIdentifier.of(namespace, "events");
            Table table = clientSide.createTable(identifier, SCHEMA, SPEC, Map.of(TableProperties.FORMAT_VERSION, "2"));
            var append = table.newAppend();
            for (int i = 0; i < 60; i++) {
                append.appendFile(dataFile(table, random));
            }
            append.commit();
            table.refresh();
            Table served = serverSide.loadTable(identifier);
            long snapshot = table.currentSnapshot().snapshotId();
            Expression deep = Expressions.equal("day", EPOCH_DAY.toString());
            for (int i = 1; i < 100; i++) {
                deep = Expressions.or(
                        Expressions.equal("day", EPOCH_DAY.plusDays(i % DAYS).toString()), deep);
            }
            Object[] ids = java.util.stream.LongStream.range(0, 5_000)
                    .map(i -> i * 7)
                    .boxed()
                    .toArray();
            Expression wide = Expressions.in("id", ids);
            for (Expression filter : List.of(
                    deep,
                    wide,
                    Expressions.and(deep, Expressions.greaterThan("id", 10L)),
                    Expressions.and(
                            Expressions.equal("day", EPOCH_DAY.plusDays(3).toString()), wide))) {
                Map<String, Planned> expected = plan(table, snapshot, filter);
                assertThat(plan(served, snapshot, filter)).isEqualTo(expected);
            }
        }
    }

    @Test
    void badPlanningRequestsGetIcebergErrors() throws Exception {
        try (RESTCatalog clientSide = client(false)) {
            Namespace namespace = Namespace.of("bad_plans");
            clientSide.createNamespace(namespace);
            Table table = clientSide.createTable(TableIdentifier.of(namespace, "t"), SCHEMA, SPEC);
            table.newAppend().appendFile(dataFile(table, new Random(1))).commit();
            String base = "/v1/warehouse/namespaces/bad_plans/tables/t";
            assertThat(server.post(base + "/plan", "{\"snapshot-id\": 42}").status())
                    .isEqualTo(400);
            TreeCatTestServer.Reply unknownColumn =
                    server.post(base + "/plan", "{\"filter\": {\"type\": \"eq\", \"term\": \"nope\", \"value\": 1}}");
            assertThat(unknownColumn.status()).isEqualTo(400);
            assertThat(unknownColumn.error().get("message").asText()).contains("nope");
            assertThat(server.post(base + "/plan", "{\"filter\": ").status()).isEqualTo(400);
            assertThat(server.post("/v1/warehouse/namespaces/bad_plans/tables/missing/plan", "{}")
                            .error()
                            .get("type")
                            .asText())
                    .isEqualTo("NoSuchTableException");
            TreeCatTestServer.Reply task = server.post(base + "/tasks", "{\"plan-task\": \"not-a-task\"}");
            assertThat(task.status()).isEqualTo(404);
            assertThat(task.error().get("type").asText()).isEqualTo("NoSuchPlanTaskException");
            assertThat(server.get(base + "/plan/p1").error().get("type").asText())
                    .isEqualTo("NoSuchPlanIdException");
            assertThat(server.delete(base + "/plan/p1").status()).isEqualTo(204);
            assertThat(server.get("/v1/config").json().get("endpoints").toString())
                    .contains("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan");
        }
    }

    @Test
    void aTablePropertyMakesEveryClientPlanOnTheServerOrLocally() throws Exception {
        try (RESTCatalog plain = client(false);
                RESTCatalog asksServer = client(true)) {
            Namespace namespace = Namespace.of("owner_planning");
            plain.createNamespace(namespace);
            TableIdentifier identifier = TableIdentifier.of(namespace, "events");
            Table created = plain.buildTable(identifier, SCHEMA)
                    .withPartitionSpec(SPEC)
                    .withProperty("treecat.scan-planning-mode", "server")
                    .create();
            // The create's own answer carries the table's config already.
            assertThat(created.newScan().getClass().getSimpleName()).isEqualTo("RESTTableScan");
            created.newAppend()
                    .appendFile(DataFiles.builder(SPEC)
                            .withPath(created.location() + "/data/f1.parquet")
                            .withFileSizeInBytes(10)
                            .withRecordCount(1)
                            .withPartitionPath(partitionPath(SPEC, 3, 1))
                            .build())
                    .commit();

            // A client that asked for nothing plans on the server, and gets the file.
            Table loaded = plain.loadTable(identifier);
            assertThat(loaded.newScan().getClass().getSimpleName()).isEqualTo("RESTTableScan");
            try (CloseableIterable<FileScanTask> tasks = loaded.newScan().planFiles()) {
                assertThat(tasks)
                        .extracting(task -> task.file().location())
                        .containsExactly(created.location() + "/data/f1.parquet");
            }

            // The owner's "client" wins over a client that asks for server planning.
            loaded.updateProperties()
                    .set("treecat.scan-planning-mode", "client")
                    .commit();
            assertThat(asksServer.loadTable(identifier).newScan().getClass().getSimpleName())
                    .isEqualTo("DataTableScan");
            // Without the property, each client's own setting decides again.
            loaded.refresh();
            loaded.updateProperties().remove("treecat.scan-planning-mode").commit();
            assertThat(asksServer.loadTable(identifier).newScan().getClass().getSimpleName())
                    .isEqualTo("RESTTableScan");
            assertThat(plain.loadTable(identifier).newScan().getClass().getSimpleName())
                    .isEqualTo("DataTableScan");
        }
    }
}
