package io.treecat.spark;

import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.e2e.trino.TrinoEnvironment;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two engines, one catalog (issue 7): Spark's Iceberg {@code SparkCatalog} and Trino's Iceberg connector both use
 * one TreeCat server as their Iceberg REST catalog. A partitioned table Spark writes reads the same in Trino, and
 * what Trino then writes (INSERT, UPDATE and DELETE with delete files, a table of its own) reads the same in Spark.
 * Each engine reads and writes the data files itself; TreeCat only holds the pointer to the current metadata, so
 * equal results mean both engines commit to and load from the same table state.
 *
 * <p>The servers are trino-e2e's {@link TrinoEnvironment} (its test-jar): one TreeCat process and one Trino process.
 * Spark runs in this JVM. Results are compared as whole row sets, each engine's values normalised to plain Java
 * values ({@link #normalised}), plus aggregates and the tables' snapshot ids.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkTrinoIT {
    private static final String SPARK_CATALOG = "tc";
    private static final String SCHEMA = "spark_trino";
    private static final String SPARK_ORDERS = SPARK_CATALOG + "." + SCHEMA + ".orders";
    private static final String TRINO_ORDERS = TrinoEnvironment.ICEBERG + "." + SCHEMA + ".orders";
    private static final String COLUMNS = "id, ts, region, amount, note";
    // Per region: rows, exact decimal sum, first and last time. Both engines have count, sum, min and max.
    private static final String AGGREGATE =
            "SELECT region, count(*), sum(amount), min(ts), max(ts) FROM %s GROUP BY region ORDER BY region";

    @TempDir
    static Path directory;

    private static TrinoEnvironment trino;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        trino = TrinoEnvironment.start();
        // docs/engines.md's Spark settings for the Iceberg REST catalog, on the TreeCat Trino uses.
        // cache-enabled=false:
        // every Spark statement loads the table from TreeCat, so Spark sees Trino's commits at once.
        spark = SparkSessions.local("treecat-spark-trino", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config("spark.sql.catalog." + SPARK_CATALOG, "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog." + SPARK_CATALOG + ".type", "rest")
                .config(
                        "spark.sql.catalog." + SPARK_CATALOG + ".uri",
                        trino.restUri().toString())
                .config("spark.sql.catalog." + SPARK_CATALOG + ".cache-enabled", "false")
                .getOrCreate();
    }

    @AfterAll
    static void stop() {
        try {
            if (spark != null) {
                spark.stop();
            }
        } finally {
            if (trino != null) {
                trino.close();
            }
        }
    }

    @Test
    @Order(1)
    void tableWrittenBySparkReadsTheSameInTrino() throws SQLException {
        spark.sql("CREATE NAMESPACE " + SPARK_CATALOG + "." + SCHEMA);
        spark.sql("CREATE TABLE " + SPARK_ORDERS
                + " (id BIGINT, ts TIMESTAMP, region STRING, amount DECIMAL(10,2), note STRING) "
                + "USING iceberg PARTITIONED BY (days(ts), region)");
        // Two commits, so Trino reads a table with history, and rows across six partitions, one with a NULL.
        spark.sql("INSERT INTO " + SPARK_ORDERS + " VALUES "
                + "(1, TIMESTAMP '2025-01-01 10:00:00', 'eu', 10.50, 'first'), "
                + "(2, TIMESTAMP '2025-01-01 11:30:00', 'us', 20.25, NULL), "
                + "(3, TIMESTAMP '2025-01-02 09:15:00', 'eu', 5.00, 'third'), "
                + "(4, TIMESTAMP '2025-01-02 23:59:59', 'apac', 99.99, 'fourth')");
        spark.sql("INSERT INTO " + SPARK_ORDERS + " VALUES "
                + "(5, TIMESTAMP '2025-01-03 00:00:00', 'us', 1.01, 'fifth'), "
                + "(6, TIMESTAMP '2025-01-03 12:00:00', 'eu', 300.00, 'sixth')");

        List<List<Object>> sparkRows = sparkQuery("SELECT " + COLUMNS + " FROM " + SPARK_ORDERS + " ORDER BY id");
        assertThat(sparkRows).hasSize(6);
        assertThat(trinoQuery("SELECT " + COLUMNS + " FROM " + TRINO_ORDERS + " ORDER BY id"))
                .isEqualTo(sparkRows);
        List<List<Object>> sparkAggregate = sparkQuery(AGGREGATE.formatted(SPARK_ORDERS));
        assertThat(sparkAggregate)
                .first()
                .isEqualTo(List.of(
                        "apac",
                        1L,
                        new BigDecimal("99.99"),
                        LocalDateTime.parse("2025-01-02T23:59:59"),
                        LocalDateTime.parse("2025-01-02T23:59:59")));
        assertThat(trinoQuery(AGGREGATE.formatted(TRINO_ORDERS))).isEqualTo(sparkAggregate);

        // The same table state: Trino's current snapshot is Spark's last commit, and Trino sees Spark's partitions.
        assertThat(trinoQuery("SELECT snapshot_id FROM " + TrinoEnvironment.ICEBERG + "." + SCHEMA
                        + ".\"orders$snapshots\" ORDER BY committed_at"))
                .isEqualTo(sparkQuery("SELECT snapshot_id FROM " + SPARK_ORDERS + ".snapshots ORDER BY committed_at"));
        assertThat(trinoQuery(
                        "SELECT count(*) FROM " + TrinoEnvironment.ICEBERG + "." + SCHEMA + ".\"orders$partitions\""))
                .isEqualTo(List.of(List.of(6L)));
        // Trino prunes on Spark's days(ts) partitioning: a filter on the column itself reads only its day's rows.
        assertThat(trinoQuery("SELECT id FROM " + TRINO_ORDERS
                        + " WHERE ts >= TIMESTAMP '2025-01-03 00:00:00 UTC' ORDER BY id"))
                .isEqualTo(List.of(List.of(5L), List.of(6L)));
    }

    @Test
    @Order(2)
    void trinoChangesToSparksTableReadTheSameInSpark() throws SQLException {
        assertThat(trino.execute("INSERT INTO " + TRINO_ORDERS + " VALUES "
                        + "(7, TIMESTAMP '2025-01-04 08:00:00 UTC', 'apac', 42.00, 'from trino'), "
                        + "(8, TIMESTAMP '2025-01-01 10:00:00 UTC', 'us', 0.99, NULL)"))
                .isEqualTo(2);
        // Row-level changes: Trino writes position delete files that Spark must apply when it reads.
        assertThat(trino.execute(
                        "UPDATE " + TRINO_ORDERS + " SET amount = amount * 2, note = 'doubled' WHERE region = 'eu'"))
                .isEqualTo(3);
        assertThat(trino.execute("DELETE FROM " + TRINO_ORDERS + " WHERE id = 4"))
                .isEqualTo(1);

        List<List<Object>> trinoRows = trinoQuery("SELECT " + COLUMNS + " FROM " + TRINO_ORDERS + " ORDER BY id");
        assertThat(trinoRows).extracting(row -> row.get(0)).containsExactly(1L, 2L, 3L, 5L, 6L, 7L, 8L);
        assertThat(trinoRows.get(0))
                .containsExactly(
                        1L, LocalDateTime.parse("2025-01-01T10:00:00"), "eu", new BigDecimal("21.00"), "doubled");
        assertThat(sparkQuery("SELECT " + COLUMNS + " FROM " + SPARK_ORDERS + " ORDER BY id"))
                .isEqualTo(trinoRows);
        assertThat(sparkQuery(AGGREGATE.formatted(SPARK_ORDERS)))
                .isEqualTo(trinoQuery(AGGREGATE.formatted(TRINO_ORDERS)));
        assertThat(scalar(
                        spark,
                        "SELECT snapshot_id FROM " + SPARK_ORDERS + ".snapshots ORDER BY committed_at DESC LIMIT 1"))
                .isEqualTo(trinoQuery("SELECT snapshot_id FROM " + TrinoEnvironment.ICEBERG + "." + SCHEMA
                                + ".\"orders$snapshots\" ORDER BY committed_at DESC LIMIT 1")
                        .get(0)
                        .get(0));
    }

    @Test
    @Order(3)
    void tableCreatedByTrinoReadsTheSameInSparkAndTakesSparksWrites() throws SQLException {
        String trinoTable = TrinoEnvironment.ICEBERG + "." + SCHEMA + ".region_totals";
        String sparkTable = SPARK_CATALOG + "." + SCHEMA + ".region_totals";
        trino.execute("CREATE TABLE " + trinoTable + " WITH (partitioning = ARRAY['region']) AS "
                + "SELECT region, count(*) AS orders, sum(amount) AS total FROM " + TRINO_ORDERS + " GROUP BY region");
        String select = "SELECT region, orders, total FROM %s ORDER BY region";

        List<List<Object>> trinoRows = trinoQuery(select.formatted(trinoTable));
        assertThat(trinoRows).extracting(row -> row.get(0)).containsExactly("apac", "eu", "us");
        assertThat(sparkQuery(select.formatted(sparkTable))).isEqualTo(trinoRows);
        assertThat(sparkQuery("SELECT DISTINCT partition.region FROM " + sparkTable + ".partitions ORDER BY 1"))
                .isEqualTo(List.of(List.of("apac"), List.of("eu"), List.of("us")));

        // And back: Spark appends to Trino's table, Trino reads Spark's commit.
        spark.sql("INSERT INTO " + sparkTable + " VALUES ('latam', 1, 7.25)");
        List<List<Object>> sparkRows = sparkQuery(select.formatted(sparkTable));
        assertThat(sparkRows).hasSize(4);
        assertThat(trinoQuery(select.formatted(trinoTable))).isEqualTo(sparkRows);
        assertThat(trinoQuery("SELECT sum(total), sum(orders) FROM " + trinoTable))
                .isEqualTo(sparkQuery("SELECT sum(total), sum(orders) FROM " + sparkTable));
    }

    private static List<List<Object>> sparkQuery(String sql) {
        return normalised(rows(spark, sql));
    }

    private static List<List<Object>> trinoQuery(String sql) throws SQLException {
        return normalised(trino.query(sql));
    }

    /**
     * Values both engines' answers can be compared by: an Iceberg {@code timestamptz} becomes its UTC wall time
     * whichever Java type the engine returns it as ({@link Timestamp} from Spark, the type trino-jdbc picks), integers
     * widen to {@code long}; decimals keep their scale, so a changed scale still fails the comparison.
     */
    private static List<List<Object>> normalised(List<List<Object>> rows) {
        List<List<Object>> result = new ArrayList<>(rows.size());
        for (List<Object> row : rows) {
            List<Object> values = new ArrayList<>(row.size());
            for (Object value : row) {
                values.add(normalised(value));
            }
            result.add(values);
        }
        return result;
    }

    private static Object normalised(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant().atZone(ZoneOffset.UTC).toLocalDateTime();
        }
        if (value instanceof ZonedDateTime zoned) {
            return zoned.withZoneSameInstant(ZoneOffset.UTC).toLocalDateTime();
        }
        if (value instanceof Instant instant) {
            return instant.atZone(ZoneOffset.UTC).toLocalDateTime();
        }
        if (value instanceof Integer number) {
            return number.longValue();
        }
        return value;
    }
}
