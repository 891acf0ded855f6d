package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hive ACID through Trino's Hive connector on TreeCat's Hive Metastore: transactional ORC tables, unpartitioned and
 * partitioned, created, inserted into twice and read back. Each insert is a Hive transaction (open, a shared lock in
 * it, a write id of the table, the table or partitions altered with it, commit) and each read one too (open, the valid
 * write ids of its snapshot, commit); Trino writes each insert into a {@code delta_<write id>_<write id>_0000}
 * directory and reads only the deltas the snapshot's write ids make valid, so the rows come back right only if
 * TreeCat's transactions and write ids are. The transactions and write ids are then read from the tree itself.
 */
@ExtendWith(TrinoEnvironmentExtension.class)
class TrinoHiveAcidIT {
    private static final String SCHEMA = "hive.trino_acid";

    private final TrinoEnvironment trino;

    TrinoHiveAcidIT(TrinoEnvironment trino) {
        this.trino = trino;
    }

    @BeforeAll
    static void createSchema(TrinoEnvironment trino) throws Exception {
        trino.execute("CREATE SCHEMA " + SCHEMA);
    }

    private Path tableDirectory(String table) {
        return trino.warehouse()
                .resolve(TrinoEnvironment.REST_PREFIX)
                .resolve("trino_acid")
                .resolve(table);
    }

    /** The names of the directories directly in {@code directory}, sorted. */
    private static List<String> directories(Path directory) throws Exception {
        try (Stream<Path> children = Files.list(directory)) {
            return children.filter(Files::isDirectory)
                    .map(path -> path.getFileName().toString())
                    .sorted()
                    .toList();
        }
    }

    /** An object of the tree, read over the native HTTP API (the value as JSON). */
    private JsonNode treeObject(String path) throws Exception {
        return trino.restJson("/treecat/v1/objects?path=" + URLEncoder.encode(path, StandardCharsets.UTF_8))
                .path("value");
    }

    /** The rows of a path query over the native HTTP API. */
    private JsonNode treeQuery(String query, String results) throws Exception {
        return trino.restJson("/treecat/v1/query?results=" + results + "&q="
                        + URLEncoder.encode(query, StandardCharsets.UTF_8))
                .path("rows");
    }

    @Test
    void unpartitionedTransactionalTable() throws Exception {
        String table = SCHEMA + ".orders";
        trino.execute(
                "CREATE TABLE " + table + " (id BIGINT, item VARCHAR) WITH (format = 'ORC', transactional = true)");
        assertThat(trino.execute("INSERT INTO " + table + " VALUES (1, 'apple'), (2, 'pear')"))
                .isEqualTo(2);
        assertThat(trino.query("SELECT id, item FROM " + table + " ORDER BY id"))
                .containsExactly(List.of(1L, "apple"), List.of(2L, "pear"));
        assertThat(trino.execute("INSERT INTO " + table + " VALUES (3, 'plum')"))
                .isEqualTo(1);

        assertThat(trino.query("SELECT id, item FROM " + table + " ORDER BY id"))
                .containsExactly(List.of(1L, "apple"), List.of(2L, "pear"), List.of(3L, "plum"));
        assertThat(trino.query("SELECT count(*) FROM " + table + " WHERE item LIKE 'p%'"))
                .containsExactly(List.of(2L));
        assertThat((String) trino.query("SHOW CREATE TABLE " + table).get(0).get(0))
                .contains("transactional = true");

        // One delta directory per insert, named by the write id TreeCat gave it: 1, then 2.
        assertThat(directories(tableDirectory("orders")))
                .containsExactly("delta_0000001_0000001_0000", "delta_0000002_0000002_0000");
        // The table's write ids live in the tree, under the table: the counter, and each id's transaction.
        assertThat(treeObject("/warehouse/trino_acid/orders/.hive_write_ids")
                        .path("next_write_id")
                        .asLong())
                .isEqualTo(3);
        JsonNode writeIds = treeQuery(
                "/[obj_id='warehouse']/[obj_id='trino_acid']/[obj_id='orders']/[obj_id='.hive_write_ids']/*", "leaves");
        assertThat(writeIds).hasSize(2);
        for (JsonNode writeId : writeIds) {
            // Each write id's transaction is committed: listed among the committed ones.
            String txn =
                    String.format("%020d", writeId.path("value").path("txn_id").asLong());
            assertThat(treeObject("/warehouse/.hive_txns/committed/" + txn)
                            .path("txn_state")
                            .asText())
                    .isEqualTo("committed");
        }
    }

    @Test
    void partitionedTransactionalTable() throws Exception {
        String table = SCHEMA + ".sales";
        trino.execute("CREATE TABLE " + table + " (id BIGINT, amount DOUBLE, region VARCHAR) "
                + "WITH (format = 'ORC', transactional = true, partitioned_by = ARRAY['region'])");
        assertThat(trino.execute("INSERT INTO " + table + " VALUES (1, 10.0, 'EU'), (2, 20.0, 'US')"))
                .isEqualTo(2);
        // The second insert writes an existing partition and a new one.
        assertThat(trino.execute("INSERT INTO " + table + " VALUES (3, 30.0, 'EU'), (4, 40.0, 'APAC')"))
                .isEqualTo(2);

        assertThat(trino.query("SELECT id, amount, region FROM " + table + " ORDER BY id"))
                .containsExactly(
                        List.of(1L, 10.0, "EU"),
                        List.of(2L, 20.0, "US"),
                        List.of(3L, 30.0, "EU"),
                        List.of(4L, 40.0, "APAC"));
        assertThat(trino.query("SELECT id FROM " + table + " WHERE region = 'EU' ORDER BY id"))
                .containsExactly(List.of(1L), List.of(3L));
        assertThat(trino.query("SELECT region FROM " + SCHEMA + ".\"sales$partitions\" ORDER BY region"))
                .containsExactly(List.of("APAC"), List.of("EU"), List.of("US"));

        // Partition EU holds both inserts' deltas, US the first's, APAC the second's.
        assertThat(directories(tableDirectory("sales").resolve("region=EU")))
                .containsExactly("delta_0000001_0000001_0000", "delta_0000002_0000002_0000");
        assertThat(directories(tableDirectory("sales").resolve("region=US")))
                .containsExactly("delta_0000001_0000001_0000");
        assertThat(directories(tableDirectory("sales").resolve("region=APAC")))
                .containsExactly("delta_0000002_0000002_0000");
        assertThat(treeObject("/warehouse/trino_acid/sales/.hive_write_ids")
                        .path("next_write_id")
                        .asLong())
                .isEqualTo(3);
    }

    /** No transaction stays open once the statements are done: each committed, none left for the timeout. */
    @Test
    void noTransactionIsLeftOpen() throws Exception {
        trino.execute("CREATE TABLE " + SCHEMA + ".events (id BIGINT) WITH (format = 'ORC', transactional = true)");
        trino.execute("INSERT INTO " + SCHEMA + ".events VALUES (1)");
        assertThat(trino.query("SELECT id FROM " + SCHEMA + ".events")).containsExactly(List.of(1L));
        JsonNode open = treeQuery("/[obj_id='warehouse']/[obj_id='.hive_txns']/[obj_id='txns']/*", "inner");
        for (JsonNode txn : open) {
            assertThat(txn.path("value").path("txn_state").asText())
                    .as("transaction %s", txn.path("path").asText())
                    .isNotEqualTo("open");
        }
    }
}
