package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's Hive connector on TreeCat's Hive Metastore Thrift API: schemas and partitioned tables created through HMS
 * calls, data written by Trino into TreeCat's warehouse, partition pruning, statistics and drops.
 */
@ExtendWith(TrinoEnvironmentExtension.class)
class TrinoHiveIT {
    private static final String SCHEMA = "hive.trino_hive";

    private final TrinoEnvironment trino;

    TrinoHiveIT(TrinoEnvironment trino) {
        this.trino = trino;
    }

    @BeforeAll
    static void createSchema(TrinoEnvironment trino) throws Exception {
        trino.execute("CREATE SCHEMA " + SCHEMA);
        // An HMS database is a first-level namespace of the same catalog the Iceberg REST side serves.
        assertThat(trino.restGet("/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_hive")
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void partitionedTableInsertAndPrunedSelect() throws Exception {
        trino.execute("CREATE TABLE " + SCHEMA + ".sales (id BIGINT, amount DOUBLE, region VARCHAR, day VARCHAR) "
                + "WITH (format = 'PARQUET', partitioned_by = ARRAY['region', 'day'])");
        assertThat(
                        trino.execute(
                                "INSERT INTO " + SCHEMA + ".sales VALUES "
                                        + "(1, 10.0, 'EU', '2025-01-01'), (2, 20.0, 'EU', '2025-01-02'), (3, 30.0, 'US', '2025-01-01'), "
                                        + "(4, 40.0, 'US', '2025-01-02'), (5, 50.0, 'APAC', '2025-01-01'), (6, 60.0, 'EU', '2025-01-01')"))
                .isEqualTo(6);

        assertThat(trino.query("SELECT id, amount, region, day FROM " + SCHEMA + ".sales ORDER BY id"))
                .containsExactly(
                        List.of(1L, 10.0, "EU", "2025-01-01"),
                        List.of(2L, 20.0, "EU", "2025-01-02"),
                        List.of(3L, 30.0, "US", "2025-01-01"),
                        List.of(4L, 40.0, "US", "2025-01-02"),
                        List.of(5L, 50.0, "APAC", "2025-01-01"),
                        List.of(6L, 60.0, "EU", "2025-01-01"));
        assertThat(trino.query("SELECT region, day FROM " + SCHEMA + ".\"sales$partitions\" ORDER BY region, day"))
                .containsExactly(
                        List.of("APAC", "2025-01-01"),
                        List.of("EU", "2025-01-01"),
                        List.of("EU", "2025-01-02"),
                        List.of("US", "2025-01-01"),
                        List.of("US", "2025-01-02"));

        // Each partition is a directory region=…/day=… under the table's location in TreeCat's warehouse.
        Path table = trino.warehouse()
                .resolve(TrinoEnvironment.REST_PREFIX)
                .resolve("trino_hive")
                .resolve("sales");
        assertThat(table.resolve("region=EU").resolve("day=2025-01-02")).isDirectory();

        // Pruned: only the files of the matching partitions are read, so the scan processes exactly their rows.
        String eu = "SELECT id, amount FROM " + SCHEMA + ".sales WHERE region = 'EU' ORDER BY id";
        assertThat(trino.query(eu)).containsExactly(List.of(1L, 10.0), List.of(2L, 20.0), List.of(6L, 60.0));
        assertThat(trino.processedRows(eu)).isEqualTo(3);
        String euFirstDay =
                "SELECT id FROM " + SCHEMA + ".sales WHERE region = 'EU' AND day = '2025-01-01' ORDER BY id";
        assertThat(trino.query(euFirstDay)).containsExactly(List.of(1L), List.of(6L));
        assertThat(trino.processedRows(euFirstDay)).isEqualTo(2);
        assertThat(trino.processedRows("SELECT id FROM " + SCHEMA + ".sales WHERE region = 'NOWHERE'"))
                .isZero();
    }

    @Test
    void analyzeAndReadStatisticsBack() throws Exception {
        trino.execute(
                "CREATE TABLE " + SCHEMA + ".measurements (id BIGINT, reading DOUBLE, note VARCHAR, site VARCHAR) "
                        + "WITH (partitioned_by = ARRAY['site'])");
        trino.execute(
                "INSERT INTO " + SCHEMA + ".measurements VALUES "
                        + "(1, 1.5, 'ok', 'north'), (2, 2.5, NULL, 'north'), (3, 9.0, 'hot', 'south'), (4, -3.0, NULL, 'south')");

        assertThat(trino.execute("ANALYZE " + SCHEMA + ".measurements")).isEqualTo(4);

        // SHOW STATS columns: column_name, data_size, distinct_values_count, nulls_fraction, row_count, low_value,
        // high_value. The expected values are what Trino 476 answers with its own file metastore for the same
        // statements:
        // it stores statistics per partition and combines them when it reads them back (the row count is the sum, a
        // column's distinct count the largest of its partitions', min and max the extremes), so they only come out
        // right
        // if TreeCat kept every partition's statistics.
        Map<String, List<Object>> stats = statistics("SHOW STATS FOR " + SCHEMA + ".measurements");
        assertThat(stats.get("null").get(4)).isEqualTo(4.0);
        assertThat(stats.get("id").subList(2, 7)).containsExactly(2.0, 0.0, null, "1", "4");
        assertThat(stats.get("reading").subList(2, 7)).containsExactly(2.0, 0.0, null, "-3.0", "9.0");
        assertThat(stats.get("note").subList(1, 4)).containsExactly(5.0, 1.0, 0.5);
        assertThat(stats.get("site").subList(1, 4)).containsExactly(20.0, 2.0, 0.0);

        // One partition's statistics alone.
        Map<String, List<Object>> south =
                statistics("SHOW STATS FOR (SELECT * FROM " + SCHEMA + ".measurements WHERE site = 'south')");
        assertThat(south.get("null").get(4)).isEqualTo(2.0);
        assertThat(south.get("id").subList(5, 7)).containsExactly("3", "4");
        assertThat(south.get("reading").subList(5, 7)).containsExactly("-3.0", "9.0");
        assertThat(south.get("note").subList(1, 4)).containsExactly(3.0, 1.0, 0.5);
    }

    /** SHOW STATS rows by column name; the summary row (row count) is under "null". */
    private Map<String, List<Object>> statistics(String sql) throws Exception {
        return trino.query(sql).stream().collect(Collectors.toMap(row -> String.valueOf(row.get(0)), row -> row));
    }

    @Test
    void dropTableAndSchema() throws Exception {
        trino.execute("CREATE SCHEMA hive.trino_hive_drop");
        trino.execute("CREATE TABLE hive.trino_hive_drop.scratch (x INTEGER, label VARCHAR)");
        assertThat(trino.query("SHOW TABLES FROM hive.trino_hive_drop")).containsExactly(List.of("scratch"));
        Path location = trino.warehouse()
                .resolve(TrinoEnvironment.REST_PREFIX)
                .resolve("trino_hive_drop")
                .resolve("scratch");
        assertThat(location).isDirectory();

        trino.execute("DROP TABLE hive.trino_hive_drop.scratch");
        assertThat(trino.query("SHOW TABLES FROM hive.trino_hive_drop")).isEmpty();
        // A managed table's files go with it: Trino calls drop_table with deleteData=true and leaves the deleting to
        // the
        // metastore (unless hive.metastore.thrift.delete-files-on-drop=true), as Hive's own metastore does it.
        assertThat(Files.exists(location)).isFalse();

        trino.execute("DROP SCHEMA hive.trino_hive_drop");
        assertThat(trino.query("SHOW SCHEMAS FROM hive")).doesNotContain(List.of("trino_hive_drop"));
        assertThat(trino.restGet("/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_hive_drop")
                        .statusCode())
                .isEqualTo(404);
    }
}
