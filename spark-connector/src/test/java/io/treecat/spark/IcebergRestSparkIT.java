package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static io.treecat.spark.SparkRows.row;
import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real Spark (local mode) with Iceberg's {@code SparkCatalog} pointed at a TreeCat server process as
 * an Iceberg REST catalog (issue 5, "Spark end to end"). Spark reads and writes the data files itself;
 * every catalog operation (namespaces, creates, commits, views) goes to TreeCat over HTTP.
 */
class IcebergRestSparkIT {
    private static final String CATALOG = "tc";
    private static final String NAMESPACE = CATALOG + ".e2e";
    private static final DateTimeFormatter SPARK_TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        // The settings docs/engines.md gives for Spark with the Iceberg REST catalog. cache-enabled=false:
        // every statement loads the table from TreeCat, so a session sees what another one committed.
        spark = SparkSessions.local("treecat-iceberg-rest", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config("spark.sql.catalog." + CATALOG, "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog." + CATALOG + ".type", "rest")
                .config("spark.sql.catalog." + CATALOG + ".uri", server.restUri())
                .config("spark.sql.catalog." + CATALOG + ".cache-enabled", "false")
                .getOrCreate();
        spark.sql("CREATE NAMESPACE " + NAMESPACE + " COMMENT 'Spark end to end'");
    }

    @AfterAll
    static void stop() throws Exception {
        SparkSessions.stop("IcebergRestSparkIT", spark, server);
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    @Test
    void namespaceIsInTheCatalogWithItsProperties() {
        assertThat(column(spark, "SHOW NAMESPACES IN " + CATALOG, 0)).contains("e2e");
        List<List<Object>> described = rows(spark, "DESCRIBE NAMESPACE EXTENDED " + NAMESPACE);
        assertThat(described).anySatisfy(info -> assertThat(info).containsExactly("Comment", "Spark end to end"));
    }

    @Test
    void partitionedTableCreateInsertSelect() throws IOException {
        spark.sql("CREATE TABLE " + NAMESPACE + ".events (id BIGINT, ts TIMESTAMP, category STRING, amount DOUBLE) "
                + "USING iceberg PARTITIONED BY (days(ts), bucket(4, id))");
        spark.sql("INSERT INTO " + NAMESPACE + ".events VALUES "
                + "(1, TIMESTAMP '2025-01-01 10:00:00', 'a', 1.5), (2, TIMESTAMP '2025-01-01 11:00:00', 'b', 2.5), "
                + "(3, TIMESTAMP '2025-01-02 09:00:00', 'a', 3.5), (4, TIMESTAMP '2025-01-03 08:00:00', 'c', 4.5)");

        assertThat(column(spark, "SHOW TABLES IN " + NAMESPACE, 1)).contains("events");
        assertThat(scalar(spark, "SELECT count(*) FROM " + NAMESPACE + ".events"))
                .isEqualTo(4L);
        assertThat(rows(
                        spark,
                        "SELECT id, category, amount FROM " + NAMESPACE
                                + ".events WHERE ts >= TIMESTAMP '2025-01-02 00:00:00' ORDER BY id"))
                .containsExactly(row(3L, "a", 3.5), row(4L, "c", 4.5));
        assertThat(rows(
                        spark,
                        "SELECT category, sum(amount) FROM " + NAMESPACE
                                + ".events GROUP BY category ORDER BY category"))
                .containsExactly(row("a", 5.0), row("b", 2.5), row("c", 4.5));
        // The partition spec TreeCat stored is the one Spark asked for: three days, ids in buckets.
        assertThat(scalar(spark, "SELECT count(DISTINCT partition.ts_day) FROM " + NAMESPACE + ".events.partitions"))
                .isEqualTo(3L);
        assertThat(scalar(spark, "SELECT max(partition.id_bucket) < 4 FROM " + NAMESPACE + ".events.partitions"))
                .isEqualTo(true);

        // The server chose the location (under its warehouse, catalog 'warehouse'); Spark wrote the files there.
        Path table = server.warehouse().resolve("warehouse").resolve("e2e").resolve("events");
        try (Stream<Path> metadata = Files.list(table.resolve("metadata"))) {
            assertThat(metadata.map(path -> path.getFileName().toString()))
                    .anyMatch(name -> name.endsWith(".metadata.json"));
        }
        try (Stream<Path> data = Files.walk(table.resolve("data"))) {
            assertThat(data.filter(path -> path.toString().endsWith(".parquet")).count())
                    .isGreaterThanOrEqualTo(3);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"merge-on-read", "copy-on-write"})
    void updateDeleteAndMerge(String mode) {
        String table = NAMESPACE + ".accounts_" + mode.replace('-', '_');
        spark.sql("CREATE TABLE " + table
                + " (id INT, name STRING, balance INT) USING iceberg PARTITIONED BY (bucket(2, id)) "
                + "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = '" + mode + "', 'write.update.mode' = '"
                + mode
                + "', 'write.merge.mode' = '" + mode + "')");
        spark.sql("INSERT INTO " + table + " VALUES (1, 'ann', 100), (2, 'bob', 200), (3, 'cy', 300), (4, 'dee', 400)");

        spark.sql("UPDATE " + table + " SET balance = balance + 10 WHERE id = 2");
        spark.sql("DELETE FROM " + table + " WHERE id = 3");
        spark.sql("MERGE INTO " + table
                + " AS t USING (SELECT * FROM VALUES (1, 'ann', 150), (5, 'eve', 500) AS s(id, name, balance)) AS s "
                + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.balance = s.balance WHEN NOT MATCHED THEN INSERT *");

        assertThat(rows(spark, "SELECT id, name, balance FROM " + table + " ORDER BY id"))
                .containsExactly(row(1, "ann", 150), row(2, "bob", 210), row(4, "dee", 400), row(5, "eve", 500));
        // One snapshot per statement, each committed through TreeCat.
        assertThat(scalar(spark, "SELECT count(*) FROM " + table + ".snapshots"))
                .isEqualTo(4L);
        // The mode really was honoured: merge-on-read leaves position delete files, copy-on-write rewrites.
        long deleteFiles = (Long) scalar(spark, "SELECT count(*) FROM " + table + ".delete_files");
        if (mode.equals("merge-on-read")) {
            assertThat(deleteFiles).isPositive();
        } else {
            assertThat(deleteFiles).isZero();
        }
    }

    @Test
    void alterTableAddRenameAndProperties() {
        String table = NAMESPACE + ".people";
        spark.sql("CREATE TABLE " + table + " (id INT, name STRING) USING iceberg");
        spark.sql("INSERT INTO " + table + " VALUES (1, 'ann')");

        spark.sql("ALTER TABLE " + table + " ADD COLUMN email STRING COMMENT 'contact'");
        spark.sql("ALTER TABLE " + table + " RENAME COLUMN name TO full_name");
        spark.sql("ALTER TABLE " + table
                + " SET TBLPROPERTIES ('owner.team' = 'lake', 'read.split.target-size' = '1048576')");
        spark.sql("ALTER TABLE " + table + " UNSET TBLPROPERTIES ('read.split.target-size')");
        spark.sql("ALTER TABLE " + table + " ADD PARTITION FIELD bucket(2, id)");
        spark.sql("INSERT INTO " + table + " VALUES (2, 'bob', 'bob@example.com')");

        assertThat(spark.table(table).schema().fieldNames()).containsExactly("id", "full_name", "email");
        assertThat(rows(spark, "SELECT id, full_name, email FROM " + table + " ORDER BY id"))
                .containsExactly(row(1, "ann", null), row(2, "bob", "bob@example.com"));
        List<List<Object>> properties = rows(spark, "SHOW TBLPROPERTIES " + table);
        assertThat(properties).contains(row("owner.team", "lake"));
        assertThat(properties)
                .noneSatisfy(property -> assertThat(property.get(0)).isEqualTo("read.split.target-size"));
        // The second insert was written with the evolved spec (one bucket field), the first without.
        assertThat(scalar(spark, "SELECT count(DISTINCT spec_id) FROM " + table + ".files"))
                .isEqualTo(2L);
    }

    @Test
    void timeTravelByVersionAndTimestamp() {
        String table = NAMESPACE + ".history";
        spark.sql("CREATE TABLE " + table + " (id INT, v STRING) USING iceberg TBLPROPERTIES ('format-version' = '2')");
        spark.sql("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')");
        spark.sql("INSERT INTO " + table + " VALUES (3, 'c')");
        spark.sql("DELETE FROM " + table + " WHERE id = 1");

        List<List<Object>> snapshots =
                rows(spark, "SELECT snapshot_id, committed_at FROM " + table + ".snapshots ORDER BY committed_at");
        assertThat(snapshots).hasSize(3);
        long first = (Long) snapshots.get(0).get(0);
        long second = (Long) snapshots.get(1).get(0);
        String firstCommittedAt =
                SPARK_TIMESTAMP.format(((Timestamp) snapshots.get(0).get(1)).toInstant());

        assertThat(column(spark, "SELECT id FROM " + table + " ORDER BY id", 0)).containsExactly(2, 3);
        assertThat(column(spark, "SELECT id FROM " + table + " VERSION AS OF " + first + " ORDER BY id", 0))
                .containsExactly(1, 2);
        assertThat(column(spark, "SELECT id FROM " + table + " VERSION AS OF " + second + " ORDER BY id", 0))
                .containsExactly(1, 2, 3);
        assertThat(column(
                        spark,
                        "SELECT id FROM " + table + " TIMESTAMP AS OF '" + firstCommittedAt + "' ORDER BY id",
                        0))
                .containsExactly(1, 2);
    }

    /** Views through Iceberg's REST view endpoints (Spark's client refuses up front if they are not advertised). */
    @Test
    void createSelectAndDropView() {
        String base = NAMESPACE + ".view_base";
        spark.sql("CREATE TABLE " + base + " (id INT, name STRING, balance INT) USING iceberg");
        spark.sql("INSERT INTO " + base + " VALUES (1, 'ann', 50), (2, 'bob', 200), (3, 'cy', 300)");

        spark.sql("CREATE VIEW " + NAMESPACE + ".rich COMMENT 'balances over 100' AS SELECT id, name FROM " + base
                + " WHERE balance > 100");
        assertThat(column(spark, "SHOW VIEWS IN " + NAMESPACE, 1)).contains("rich");
        assertThat(rows(spark, "SELECT id, name FROM " + NAMESPACE + ".rich ORDER BY id"))
                .containsExactly(row(2, "bob"), row(3, "cy"));

        spark.sql("INSERT INTO " + base + " VALUES (4, 'dee', 400)");
        assertThat(scalar(spark, "SELECT count(*) FROM " + NAMESPACE + ".rich")).isEqualTo(3L);

        spark.sql("DROP VIEW " + NAMESPACE + ".rich");
        assertThat(column(spark, "SHOW VIEWS IN " + NAMESPACE, 1)).doesNotContain("rich");
    }

    /**
     * Two sessions (each its own catalog client, so each commits from its own view of the table) append
     * to one table at the same time. A commit that lost the race is rebased by TreeCat (on by default for
     * appends, docs/iceberg-rest.md) or, where it is not, gets 409 and Iceberg retries it on the refreshed
     * table; either way every batch must be there exactly once.
     */
    @Test
    void twoConcurrentWritersLoseNoRow() throws Exception {
        String table = NAMESPACE + ".appends";
        int writers = 2;
        int batches = 6;
        int rowsPerBatch = 50;
        // Enough retries that contention cannot exhaust them; what is checked is that none is lost.
        spark.sql("CREATE TABLE " + table + " (writer INT, batch INT, n BIGINT) USING iceberg "
                + "TBLPROPERTIES ('commit.retry.num-retries' = '20', 'commit.retry.min-wait-ms' = '10')");

        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                SparkSession session = spark.newSession();
                int id = writer;
                done.add(pool.submit(() -> {
                    for (int batch = 0; batch < batches; batch++) {
                        session.sql("INSERT INTO " + table + " SELECT " + id + ", " + batch + ", id FROM range("
                                + rowsPerBatch + ")");
                    }
                    return null;
                }));
            }
            for (Future<?> writer : done) {
                writer.get(4, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(scalar(spark, "SELECT count(*) FROM " + table)).isEqualTo((long) writers * batches * rowsPerBatch);
        List<List<Object>> perBatch = rows(
                spark, "SELECT writer, batch, count(*), count(DISTINCT n) FROM " + table + " GROUP BY writer, batch");
        assertThat(perBatch)
                .hasSize(writers * batches)
                .allSatisfy(batch ->
                        assertThat(batch.subList(2, 4)).containsExactly((long) rowsPerBatch, (long) rowsPerBatch));
        assertThat(scalar(spark, "SELECT count(*) FROM " + table + ".snapshots"))
                .isEqualTo((long) writers * batches);
    }
}
