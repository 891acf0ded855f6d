package io.treecat.spark;

import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scan planning from the tree, differentially: a partitioned format-2 table with position deletes, written by
 * Spark, planned by TreeCat (TreeCatCatalog with {@code planning=server}: Iceberg's {@code RESTTableScan} asks
 * {@code POST …/plan}) and by Iceberg's client from the manifests, for random filters. The planned files (each
 * data file with its delete files) must be the same, and Spark's answers over both the same; with
 * {@code planning=auto} the tree plans exactly the scans whose filter restricts the partitions.
 */
class ServerPlanningSparkIT {
    private static final String TREE = "tree";
    private static final String MANIFESTS = "manifests";
    private static final String AUTO = "auto";
    private static final String TABLE = "plan.events";
    private static final long SEED = 20261128L;

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;
    private static long firstSnapshot;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        spark = SparkSessions.local("treecat-server-planning", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config("spark.sql.catalog." + TREE, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + TREE + ".uri", server.restUri())
                .config("spark.sql.catalog." + TREE + ".cache-enabled", "false")
                .config("spark.sql.catalog." + TREE + ".planning", "server")
                // TreeCatCatalog's default: the tree plans the scans whose filter restricts the partitions.
                .config("spark.sql.catalog." + AUTO, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + AUTO + ".uri", server.restUri())
                .config("spark.sql.catalog." + AUTO + ".cache-enabled", "false")
                .config("spark.sql.catalog." + MANIFESTS, "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog." + MANIFESTS + ".type", "rest")
                .config("spark.sql.catalog." + MANIFESTS + ".uri", server.restUri())
                .config("spark.sql.catalog." + MANIFESTS + ".cache-enabled", "false")
                .config("spark.sql.catalog." + MANIFESTS + ".scan-planning-mode", "client")
                .getOrCreate();

        String table = MANIFESTS + "." + TABLE;
        spark.sql("CREATE NAMESPACE " + MANIFESTS + ".plan");
        spark.sql("CREATE TABLE " + table + " (id BIGINT, day DATE, kind STRING, amount DOUBLE) USING iceberg "
                + "PARTITIONED BY (day, bucket(4, id)) TBLPROPERTIES ('format-version' = '2', "
                + "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')");
        // Four appends of 100 ids each over 8 days: files whose id bounds differ, some null kinds and amounts.
        for (int batch = 0; batch < 4; batch++) {
            spark.sql("INSERT INTO " + table + " SELECT id, date_add(DATE '" + RandomFilters.FIRST_DAY
                    + "', CAST(id % " + RandomFilters.DAYS + " AS INT)), "
                    + "CASE WHEN id % 11 = 0 THEN NULL WHEN id % 2 = 0 THEN substr('" + RandomFilters.KINDS
                    + "', CAST(id % 5 AS INT) + 1, 1) ELSE concat(substr('" + RandomFilters.KINDS
                    + "', CAST(id % 5 AS INT) + 1, 1), 'x') END, "
                    + "CASE WHEN id % 13 = 0 THEN NULL ELSE (id * 7 % 1000) / 10.0 END "
                    + "FROM range(" + (1 + batch * 100) + ", " + (101 + batch * 100) + ")");
            if (batch == 0) {
                firstSnapshot = Spark3Util.loadIcebergTable(spark, table)
                        .currentSnapshot()
                        .snapshotId();
            }
        }
        // Position delete files in some partitions, an update (a delete and an insert) in others.
        spark.sql("DELETE FROM " + table + " WHERE id % 17 = 0");
        spark.sql("UPDATE " + table + " SET amount = amount + 1 WHERE id % 23 = 0");
        assertThat((Long) scalar(spark, "SELECT count(*) FROM " + table + ".delete_files"))
                .isPositive();
    }

    @AfterAll
    static void stop() throws Exception {
        SparkSessions.stop("ServerPlanningSparkIT", spark, server);
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    private static Table table(String catalog) throws Exception {
        return Spark3Util.loadIcebergTable(spark, catalog + "." + TABLE);
    }

    /** Each planned data file with its delete files, sorted: what a reader is told to read. */
    private static List<String> planned(TableScan scan) throws Exception {
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(task.file().location() + " deletes "
                        + task.deletes().stream()
                                .map(ContentFile::location)
                                .sorted()
                                .toList());
            }
        }
        files.sort(null);
        return files;
    }

    @Test
    void theTreePlansTheFilesTheManifestsPlanForRandomFilters() throws Exception {
        Table tree = table(TREE);
        Table manifests = table(MANIFESTS);
        assertThat(tree).isInstanceOf(TreeCatTable.class);
        assertThat(((PlanningScan) tree.newScan()).chosen().getClass().getSimpleName())
                .isEqualTo("RESTTableScan");
        assertThat(manifests.newScan().getClass().getSimpleName()).isEqualTo("DataTableScan");

        List<String> whole = planned(manifests.newScan());
        assertThat(planned(tree.newScan())).isEqualTo(whole);
        assertThat(whole).anyMatch(file -> !file.endsWith("deletes []"));
        assertThat(planned(tree.newScan().useSnapshot(firstSnapshot)))
                .isEqualTo(planned(manifests.newScan().useSnapshot(firstSnapshot)))
                .hasSizeLessThan(whole.size());

        RandomFilters filters = new RandomFilters(SEED);
        int pruned = 0;
        for (int i = 0; i < 300; i++) {
            RandomFilters.Filter filter = filters.next();
            Expression expression = filter.expression();
            List<String> expected = planned(manifests.newScan().filter(expression));
            assertThat(planned(tree.newScan().filter(expression)))
                    .as("filter %d (seed %d): %s", i, SEED, filter.sql())
                    .isEqualTo(expected);
            if (expected.size() < whole.size()) {
                pruned++;
            }
        }
        // The filters really prune: most plans read fewer files than the whole table.
        assertThat(pruned).isGreaterThan(150);
    }

    @Test
    void autoPlansOnTheServerExactlyWhenTheFilterRestrictsThePartitions() throws Exception {
        Table auto = table(AUTO);
        Table manifests = table(MANIFESTS);
        RandomFilters filters = new RandomFilters(SEED + 2);
        int onServer = 0;
        int local = 0;
        for (int i = 0; i < 100; i++) {
            RandomFilters.Filter filter = filters.next();
            PlanningScan scan = (PlanningScan) auto.newScan().filter(filter.expression());
            boolean restricts = PlanningMode.restrictsPartitions(auto.specs().values(), filter.expression(), true);
            assertThat(scan.chosen().getClass().getSimpleName())
                    .as(filter.sql())
                    .isEqualTo(restricts ? "RESTTableScan" : "DataTableScan");
            // Spark's batch scan: the server's, or Iceberg's own for Spark (its distributed planning by default).
            assertThat(((PlanningBatchScan) auto.newBatchScan().filter(filter.expression()))
                            .chosen()
                            .getClass()
                            .getSimpleName())
                    .as(filter.sql())
                    .isEqualTo(restricts ? "BatchScanAdapter" : "SparkDistributedDataScan");
            assertThat(planned(scan))
                    .as(filter.sql())
                    .isEqualTo(planned(manifests.newScan().filter(filter.expression())));
            if (restricts) {
                onServer++;
            } else {
                local++;
            }
        }
        // Both kinds were met: day filters restrict partitions, filters on kind or amount alone do not.
        assertThat(onServer).isGreaterThan(20);
        assertThat(local).isGreaterThan(10);
        assertThat(((PlanningScan) auto.newScan()).chosen().getClass().getSimpleName())
                .isEqualTo("DataTableScan");
    }

    @Test
    void sparkAnswersTheSameWhetherTheTreeOrTheManifestsPlan() {
        RandomFilters filters = new RandomFilters(SEED + 1);
        long nonEmpty = 0;
        for (int i = 0; i < 20; i++) {
            RandomFilters.Filter filter = filters.next();
            String query =
                    "SELECT id, day, kind, amount FROM {catalog}." + TABLE + " WHERE " + filter.sql() + " ORDER BY id";
            List<List<Object>> expected = rows(spark, query.replace("{catalog}", MANIFESTS));
            assertThat(rows(spark, query.replace("{catalog}", TREE)))
                    .as("filter %d (seed %d): %s", i, SEED + 1, filter.sql())
                    .isEqualTo(expected);
            assertThat(rows(spark, query.replace("{catalog}", AUTO)))
                    .as("filter %d (seed %d): %s", i, SEED + 1, filter.sql())
                    .isEqualTo(expected);
            nonEmpty += expected.isEmpty() ? 0 : 1;
        }
        assertThat(nonEmpty).isGreaterThan(6);
        // The deletes are applied in both: none of the deleted ids comes back.
        assertThat(scalar(spark, "SELECT count(*) FROM " + TREE + "." + TABLE + " WHERE id % 17 = 0"))
                .isEqualTo(0L);
        assertThat(scalar(spark, "SELECT count(*) FROM " + TREE + "." + TABLE))
                .isEqualTo(scalar(spark, "SELECT count(*) FROM " + MANIFESTS + "." + TABLE))
                .isEqualTo(400L - 400 / 17);
    }
}
