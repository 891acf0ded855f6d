package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Date;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's Iceberg connector on TreeCat's Iceberg REST catalog: DDL, DML with row-level changes, metadata tables, time
 * travel, views, information_schema and drops, each checked through Trino and, where it matters, on TreeCat's side
 * (its REST answers, the files in its warehouse).
 */
@ExtendWith(TrinoEnvironmentExtension.class)
class TrinoIcebergIT {
    private static final String SCHEMA = "iceberg.trino_iceberg";
    private static final String TABLES = "/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_iceberg/tables/";

    private final TrinoEnvironment trino;

    TrinoIcebergIT(TrinoEnvironment trino) {
        this.trino = trino;
    }

    @BeforeAll
    static void createSchema(TrinoEnvironment trino) throws Exception {
        trino.execute("CREATE SCHEMA " + SCHEMA);
        assertThat(trino.restJson("/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_iceberg")
                        .path("namespace")
                        .toString())
                .isEqualTo("[\"trino_iceberg\"]");
    }

    @Test
    void partitionedTableInsertAndSelect() throws Exception {
        trino.execute("CREATE TABLE " + SCHEMA + ".orders (id BIGINT, region VARCHAR, amount DOUBLE, order_date DATE) "
                + "WITH (partitioning = ARRAY['region', 'month(order_date)'])");
        assertThat(
                        trino.execute(
                                "INSERT INTO " + SCHEMA + ".orders VALUES "
                                        + "(1, 'EU', 10.5, DATE '2025-01-15'), (2, 'EU', 20.0, DATE '2025-02-01'), "
                                        + "(3, 'US', 7.25, DATE '2025-01-20'), (4, 'APAC', 3.0, DATE '2025-03-03'), (5, 'EU', 1.5, DATE '2025-01-31')"))
                .isEqualTo(5);

        assertThat(trino.query("SELECT region, count(*), sum(amount) FROM " + SCHEMA
                        + ".orders GROUP BY region ORDER BY region"))
                .containsExactly(List.of("APAC", 1L, 3.0), List.of("EU", 3L, 32.0), List.of("US", 1L, 7.25));
        assertThat(trino.query("SELECT id, order_date FROM " + SCHEMA
                        + ".orders WHERE region = 'EU' AND order_date < DATE '2025-02-01' ORDER BY id"))
                .containsExactly(List.of(1L, Date.valueOf("2025-01-15")), List.of(5L, Date.valueOf("2025-01-31")));

        // One data file per partition (region, month), each a file: location in TreeCat's warehouse, on disk.
        List<List<Object>> files =
                trino.query("SELECT file_path, record_count FROM " + SCHEMA + ".\"orders$files\" ORDER BY file_path");
        assertThat(files).hasSize(4);
        assertThat(files.stream().mapToLong(file -> (Long) file.get(1)).sum()).isEqualTo(5);
        for (List<Object> file : files) {
            URI location = URI.create((String) file.get(0));
            assertThat(location.getScheme()).isEqualTo("file");
            assertThat(Path.of(location)).startsWith(trino.warehouse()).isRegularFile();
        }

        // TreeCat's REST answer is the metadata Trino committed: the partition spec and the current snapshot.
        JsonNode metadata = trino.restJson(TABLES + "orders").path("metadata");
        List<String> transforms = new ArrayList<>();
        metadata.path("partition-specs")
                .get(0)
                .path("fields")
                .forEach(field -> transforms.add(field.path("name").asText() + ":"
                        + field.path("transform").asText()));
        assertThat(transforms).containsExactly("region:identity", "order_date_month:month");
        Object currentSnapshot = trino.query("SELECT snapshot_id FROM " + SCHEMA
                        + ".\"orders$snapshots\" ORDER BY committed_at DESC LIMIT 1")
                .get(0)
                .get(0);
        assertThat(metadata.path("current-snapshot-id").asLong()).isEqualTo(currentSnapshot);
    }

    @Test
    void createTableAsSelectThenUpdateDeleteAndMerge() throws Exception {
        assertThat(trino.execute("CREATE TABLE " + SCHEMA + ".accounts AS SELECT * FROM (VALUES "
                        + "(1, 'alice', 100), (2, 'bob', 200), (3, 'carol', 300)) AS t(id, name, balance)"))
                .isEqualTo(3);

        assertThat(trino.execute("UPDATE " + SCHEMA + ".accounts SET balance = balance + 1 WHERE id = 1"))
                .isEqualTo(1);
        assertThat(trino.execute("DELETE FROM " + SCHEMA + ".accounts WHERE id = 2"))
                .isEqualTo(1);
        assertThat(trino.execute("MERGE INTO " + SCHEMA
                        + ".accounts a USING (VALUES (1, 50), (4, 400)) AS s(id, balance) ON a.id = s.id "
                        + "WHEN MATCHED THEN UPDATE SET balance = a.balance + s.balance "
                        + "WHEN NOT MATCHED THEN INSERT (id, name, balance) VALUES (s.id, 'dave', s.balance)"))
                .isEqualTo(2);

        assertThat(trino.query("SELECT id, name, balance FROM " + SCHEMA + ".accounts ORDER BY id"))
                .containsExactly(List.of(1, "alice", 151), List.of(3, "carol", 300), List.of(4, "dave", 400));
        // CTAS, UPDATE, DELETE and MERGE each committed one snapshot (a row delta that only deletes is a "delete");
        // the row-level ones wrote position delete files.
        assertThat(trino.query("SELECT operation FROM " + SCHEMA + ".\"accounts$snapshots\" ORDER BY committed_at"))
                .extracting(row -> row.get(0))
                .containsExactly("append", "overwrite", "delete", "overwrite");
        assertThat(trino.query("SELECT count(*) FROM " + SCHEMA + ".\"accounts$files\" WHERE content = 1"))
                .containsExactly(List.of(3L));
    }

    @Test
    void snapshotsAndTimeTravel() throws Exception {
        trino.execute("CREATE TABLE " + SCHEMA + ".events (id BIGINT, kind VARCHAR)");
        trino.execute("INSERT INTO " + SCHEMA + ".events VALUES (1, 'open')");
        long first = latestSnapshot("events");
        trino.execute("INSERT INTO " + SCHEMA + ".events VALUES (2, 'click'), (3, 'close')");
        long second = latestSnapshot("events");
        assertThat(second).isNotEqualTo(first);

        assertThat(trino.query(
                        "SELECT snapshot_id, operation FROM " + SCHEMA + ".\"events$snapshots\" WHERE snapshot_id IN ("
                                + first + ", " + second + ") ORDER BY committed_at"))
                .containsExactly(List.of(first, "append"), List.of(second, "append"));
        assertThat(trino.query("SELECT id, kind FROM " + SCHEMA + ".events FOR VERSION AS OF " + first))
                .containsExactly(List.of(1L, "open"));
        assertThat(trino.query("SELECT count(*) FROM " + SCHEMA + ".events FOR VERSION AS OF " + second))
                .containsExactly(List.of(3L));
        JsonNode metadata = trino.restJson(TABLES + "events").path("metadata");
        List<Long> snapshots = new ArrayList<>();
        metadata.path("snapshots")
                .forEach(snapshot -> snapshots.add(snapshot.path("snapshot-id").asLong()));
        assertThat(snapshots).contains(first, second);

        // Rolling back is a commit that moves the main branch back; TreeCat keeps both snapshots.
        trino.execute("ALTER TABLE " + SCHEMA + ".events EXECUTE rollback_to_snapshot(" + first + ")");
        assertThat(trino.query("SELECT id FROM " + SCHEMA + ".events")).containsExactly(List.of(1L));
        assertThat(trino.restJson(TABLES + "events")
                        .path("metadata")
                        .path("current-snapshot-id")
                        .asLong())
                .isEqualTo(first);
    }

    @Test
    void views() throws Exception {
        trino.execute("CREATE TABLE " + SCHEMA + ".sales (id BIGINT, amount DOUBLE)");
        trino.execute("INSERT INTO " + SCHEMA + ".sales VALUES (1, 5.0), (2, 15.0), (3, 25.0)");

        trino.execute("CREATE VIEW " + SCHEMA + ".big_sales AS SELECT id, amount FROM " + SCHEMA
                + ".sales WHERE amount > 10");
        assertThat(trino.query("SELECT id FROM " + SCHEMA + ".big_sales ORDER BY id"))
                .containsExactly(List.of(2L), List.of(3L));
        assertThat(trino.query(
                        "SELECT table_name FROM iceberg.information_schema.views WHERE table_schema = 'trino_iceberg'"))
                .containsExactly(List.of("big_sales"));
        assertThat(trino.restGet("/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_iceberg/views/big_sales")
                        .statusCode())
                .isEqualTo(200);

        trino.execute("CREATE OR REPLACE VIEW " + SCHEMA + ".big_sales AS SELECT id, amount FROM " + SCHEMA
                + ".sales WHERE amount > 20");
        assertThat(trino.query("SELECT id FROM " + SCHEMA + ".big_sales")).containsExactly(List.of(3L));

        trino.execute("DROP VIEW " + SCHEMA + ".big_sales");
        assertThat(trino.query(
                        "SELECT table_name FROM iceberg.information_schema.views WHERE table_schema = 'trino_iceberg'"))
                .isEmpty();
        assertThat(trino.restGet("/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_iceberg/views/big_sales")
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void informationSchema() throws Exception {
        trino.execute("CREATE SCHEMA iceberg.trino_iceberg_info");
        trino.execute("CREATE TABLE iceberg.trino_iceberg_info.customers (id BIGINT, name VARCHAR, joined DATE)");
        trino.execute("CREATE TABLE iceberg.trino_iceberg_info.visits (customer_id BIGINT, at TIMESTAMP(6))");

        assertThat(trino.query("SHOW SCHEMAS FROM iceberg"))
                .contains(List.of("trino_iceberg_info"), List.of("information_schema"));
        assertThat(trino.query("SELECT table_name, table_type FROM iceberg.information_schema.tables "
                        + "WHERE table_schema = 'trino_iceberg_info' ORDER BY table_name"))
                .containsExactly(List.of("customers", "BASE TABLE"), List.of("visits", "BASE TABLE"));
        assertThat(trino.query("SELECT table_name, column_name, data_type FROM iceberg.information_schema.columns "
                        + "WHERE table_schema = 'trino_iceberg_info' ORDER BY table_name, ordinal_position"))
                .containsExactly(
                        List.of("customers", "id", "bigint"),
                        List.of("customers", "name", "varchar"),
                        List.of("customers", "joined", "date"),
                        List.of("visits", "customer_id", "bigint"),
                        List.of("visits", "at", "timestamp(6)"));
        assertThat(trino.query("SHOW TABLES FROM iceberg.trino_iceberg_info"))
                .containsExactly(List.of("customers"), List.of("visits"));
    }

    @Test
    void dropTableAndSchema() throws Exception {
        trino.execute("CREATE SCHEMA iceberg.trino_iceberg_drop");
        trino.execute("CREATE TABLE iceberg.trino_iceberg_drop.scratch (x INTEGER)");
        trino.execute("INSERT INTO iceberg.trino_iceberg_drop.scratch VALUES 1, 2");
        String namespace = "/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_iceberg_drop";
        assertThat(trino.restGet(namespace + "/tables/scratch").statusCode()).isEqualTo(200);
        Path location = Path.of(URI.create(trino.restJson(namespace + "/tables/scratch")
                .path("metadata")
                .path("location")
                .asText()));
        assertThat(location).isDirectory();

        trino.execute("DROP TABLE iceberg.trino_iceberg_drop.scratch");
        assertThat(trino.restGet(namespace + "/tables/scratch").statusCode()).isEqualTo(404);
        assertThat(trino.query("SHOW TABLES FROM iceberg.trino_iceberg_drop")).isEmpty();
        // Trino asks for a purge on DROP TABLE: the table's files go too.
        assertThat(filesUnder(location)).isEmpty();

        trino.execute("DROP SCHEMA iceberg.trino_iceberg_drop");
        assertThat(trino.restGet(namespace).statusCode()).isEqualTo(404);
        assertThat(trino.query("SHOW SCHEMAS FROM iceberg")).doesNotContain(List.of("trino_iceberg_drop"));
    }

    private static List<Path> filesUnder(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(Files::isRegularFile).collect(Collectors.toList());
        }
    }

    private long latestSnapshot(String table) throws Exception {
        return (Long) trino.query("SELECT snapshot_id FROM " + SCHEMA + ".\"" + table
                        + "$snapshots\" ORDER BY committed_at DESC LIMIT 1")
                .get(0)
                .get(0);
    }
}
