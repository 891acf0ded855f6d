package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static io.treecat.spark.SparkRows.row;
import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * The statements both object-store suites run on one table (remote signing, IcebergRestS3SparkIT; vended credentials,
 * IcebergRestVendedSparkIT), checked against the rows and against the store's own listing.
 */
final class S3SparkScenario {
    private static final DateTimeFormatter SPARK_TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private S3SparkScenario() {}

    /**
     * Creates {@code events} (partitioned by day) in a catalog whose warehouse is {@code s3://<bucket>/warehouse}, two
     * appends, a dynamic and a static {@code INSERT OVERWRITE}, reads, and {@code VERSION AS OF}/{@code TIMESTAMP AS
     * OF}. {@code keys} lists the store's keys under a prefix, read with the store's own credentials.
     */
    static void writeOverwriteAndTimeTravel(SparkSession spark, String events, Function<String, List<String>> keys) {
        String[] parts = events.split("\\.");
        String prefix = "warehouse/" + parts[1] + "/" + parts[2] + "/";
        spark.sql("CREATE TABLE " + events + " (id BIGINT, day DATE, category STRING, amount DOUBLE) "
                + "USING iceberg PARTITIONED BY (day)");
        spark.sql("INSERT INTO " + events + " VALUES (1, DATE '2025-01-01', 'a', 1.5), "
                + "(2, DATE '2025-01-01', 'b', 2.5), (3, DATE '2025-01-02', 'a', 3.5)");
        spark.sql("INSERT INTO " + events + " VALUES (4, DATE '2025-01-03', 'c', 4.5)");

        // Spark wrote its data files, manifests and manifest lists into the bucket itself.
        List<String> written = keys.apply(prefix);
        assertThat(written)
                .anyMatch(key -> key.startsWith(prefix + "data/day=2025-01-01/") && key.endsWith(".parquet"));
        assertThat(written).anyMatch(key -> key.startsWith(prefix + "metadata/snap-"));
        assertThat(written).anyMatch(key -> key.endsWith(".metadata.json"));

        // Dynamic overwrite: only the partitions the query writes (2025-01-01) are replaced.
        spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
        spark.sql("INSERT OVERWRITE " + events + " VALUES (5, DATE '2025-01-01', 'd', 5.5)");
        assertThat(rows(spark, "SELECT id, day, category, amount FROM " + events + " ORDER BY id"))
                .containsExactly(
                        row(3L, java.sql.Date.valueOf("2025-01-02"), "a", 3.5),
                        row(4L, java.sql.Date.valueOf("2025-01-03"), "c", 4.5),
                        row(5L, java.sql.Date.valueOf("2025-01-01"), "d", 5.5));
        // Static overwrite of one partition, the other two untouched.
        spark.conf().set("spark.sql.sources.partitionOverwriteMode", "static");
        spark.sql("INSERT OVERWRITE " + events + " PARTITION (day = DATE '2025-01-03') " + "SELECT 6L, 'e', 6.5");
        assertThat(rows(spark, "SELECT category, sum(amount) FROM " + events + " GROUP BY category ORDER BY category"))
                .containsExactly(row("a", 3.5), row("d", 5.5), row("e", 6.5));
        assertThat(scalar(spark, "SELECT count(*) FROM " + events + ".partitions"))
                .isEqualTo(3L);

        // Time travel: each snapshot's manifests are read back from the store.
        List<List<Object>> snapshots = rows(
                spark,
                "SELECT snapshot_id, committed_at, operation FROM " + events + ".snapshots " + "ORDER BY committed_at");
        assertThat(snapshots).hasSize(4);
        assertThat(snapshots.stream().map(snapshot -> snapshot.get(2)))
                .containsExactly("append", "append", "overwrite", "overwrite");
        long first = (Long) snapshots.get(0).get(0);
        long second = (Long) snapshots.get(1).get(0);
        String firstCommittedAt =
                SPARK_TIMESTAMP.format(((Timestamp) snapshots.get(0).get(1)).toInstant());
        assertThat(column(spark, "SELECT id FROM " + events + " VERSION AS OF " + first + " ORDER BY id", 0))
                .containsExactly(1L, 2L, 3L);
        assertThat(column(spark, "SELECT id FROM " + events + " VERSION AS OF " + second + " ORDER BY id", 0))
                .containsExactly(1L, 2L, 3L, 4L);
        assertThat(column(
                        spark,
                        "SELECT id FROM " + events + " TIMESTAMP AS OF '" + firstCommittedAt + "' ORDER BY id",
                        0))
                .containsExactly(1L, 2L, 3L);
    }
}
