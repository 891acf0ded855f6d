package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.columns;
import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.partition;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on the table calls issue 15 added: the legacy {@code alter_table} and
 * {@code alter_table_with_cascade} (which Hive 3.1's client no longer sends itself, but engines built on Hive 2 do),
 * {@code get_fields}/{@code get_schema} and their {@code _with_environment_context} forms (DESCRIBE), and
 * {@code truncate_table}, which Hive 3.1 sends where Hive 4 sends {@code truncate_table_req}.
 */
class Hive3TableCallsIT {
    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void databases() throws Exception {
        client = hms.client();
        raw = hms.thrift();
        for (String name : List.of("h3_alter", "h3_cols", "h3_trunc")) {
            client.createDatabase(database(name));
        }
    }

    @Test
    void legacyAlterTableReplacesRenamesAndRefuses() throws Exception {
        client.createTable(table("h3_alter", "orders", TableType.EXTERNAL_TABLE));
        Table changed = client.getTable("h3_alter", "orders");
        changed.getParameters().put("k", "w");
        changed.getSd().getCols().add(new FieldSchema("amount", "double", "added"));
        raw.alter_table("h3_alter", "orders", changed);
        Table read = client.getTable("h3_alter", "orders");
        assertThat(read.getParameters()).containsEntry("k", "w");
        assertThat(read.getSd().getCols()).extracting(FieldSchema::getName).containsExactly("id", "name", "amount");

        Table renamed = read.deepCopy();
        renamed.setTableName("orders_v2");
        raw.alter_table("h3_alter", "orders", renamed);
        assertThat(client.getAllTables("h3_alter")).contains("orders_v2").doesNotContain("orders");

        assertThatThrownBy(() -> raw.alter_table("h3_alter", "nope", renamed))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("table h3_alter.nope doesn't exist");
        assertThatThrownBy(() -> raw.alter_table("h3_alter", "orders_v2", null))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("New table is null");
        assertThatThrownBy(() -> raw.alter_table_with_cascade("h3_alter", null, renamed, true))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("No table name given");
        // The connection still answers and the table is as the last successful alter left it.
        assertThat(raw.get_table("h3_alter", "orders_v2").getParameters()).containsEntry("k", "w");
    }

    @Test
    void cascadeGivesEveryPartitionTheNewColumns() throws Exception {
        client.createTable(
                table("h3_alter", "events", TableType.EXTERNAL_TABLE, new FieldSchema("ds", "string", null)));
        client.add_partitions(new ArrayList<>(
                List.of(partition("h3_alter", "events", "2025-01-01"), partition("h3_alter", "events", "2025-01-02"))));

        // Without cascade the partitions keep their columns.
        Table added = client.getTable("h3_alter", "events");
        added.getSd().getCols().add(new FieldSchema("note", "string", null));
        raw.alter_table_with_cascade("h3_alter", "events", added, false);
        assertThat(partitionColumns("2025-01-01"))
                .containsExactly(Tuple.tuple("id", "bigint"), Tuple.tuple("name", "string"));

        // The legacy call with cascade.
        Table widened = client.getTable("h3_alter", "events");
        widened.getSd().setCols(columns("id", "bigint", "name", "string", "note", "string", "x", "int"));
        raw.alter_table_with_cascade("h3_alter", "events", widened, true);
        for (String ds : List.of("2025-01-01", "2025-01-02")) {
            assertThat(partitionColumns(ds))
                    .containsExactly(
                            Tuple.tuple("id", "bigint"),
                            Tuple.tuple("name", "string"),
                            Tuple.tuple("note", "string"),
                            Tuple.tuple("x", "int"));
        }
        // Hive 3.1's own client: alter_table(…, cascade) sends alter_table_with_environment_context, CASCADE=true.
        Table narrowed = client.getTable("h3_alter", "events");
        narrowed.getSd().setCols(columns("id", "bigint", "name", "string", "note", "string"));
        client.alter_table("h3_alter", "events", narrowed, true);
        assertThat(partitionColumns("2025-01-02"))
                .extracting(tuple -> tuple.toList().get(0))
                .containsExactly("id", "name", "note");
        // And the context form sent by hand.
        Table again = client.getTable("h3_alter", "events");
        again.getSd().setCols(columns("id", "bigint", "name", "string"));
        raw.alter_table_with_environment_context(
                "h3_alter", "events", again, new EnvironmentContext(new HashMap<>(Map.of("CASCADE", "true"))));
        assertThat(partitionColumns("2025-01-01"))
                .containsExactly(Tuple.tuple("id", "bigint"), Tuple.tuple("name", "string"));
    }

    private static List<Tuple> partitionColumns(String ds) throws Exception {
        return client.getPartition("h3_alter", "events", List.of(ds)).getSd().getCols().stream()
                .map(column -> Tuple.tuple(column.getName(), column.getType()))
                .toList();
    }

    @Test
    void fieldsAndSchemaAnswerColumnsThenPartitionKeys() throws Exception {
        client.createTable(table("h3_cols", "events", TableType.EXTERNAL_TABLE, new FieldSchema("ds", "string", null)));

        assertThat(client.getFields("h3_cols", "events"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "name");
        assertThat(client.getSchema("h3_cols", "events"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "name", "ds");
        assertThat(raw.get_fields("h3_cols", "EVENTS"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "name");
        // A dotted name (DESCRIBE t.col) answers the table's.
        assertThat(raw.get_schema("h3_cols", "events.name"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "name", "ds");
        assertThat(raw.get_fields_with_environment_context("h3_cols", "events", new EnvironmentContext()))
                .hasSize(2);
        assertThat(raw.get_schema_with_environment_context("h3_cols", "events", null))
                .hasSize(3);

        assertThatThrownBy(() -> client.getFields("h3_cols", "nope"))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("hive.h3_cols.nope table not found");
        assertThatThrownBy(() -> raw.get_schema("h3_nodb", "events"))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("hive.h3_nodb.events table not found");
        assertThatThrownBy(() -> raw.get_fields("h3_cols", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("No table name given");
        assertThatThrownBy(() -> raw.get_fields("h3_cols", "x".repeat(100_000)))
                .isInstanceOf(UnknownTableException.class);
        assertThat(raw.get_fields("h3_cols", "events")).hasSize(2); // the same connection still answers
    }

    private static Path directory(String db, String table) throws Exception {
        return Path.of(URI.create(client.getTable(db, table).getSd().getLocation()));
    }

    @Test
    void truncateEmptiesAManagedTableAndResetsItsStatistics() throws Exception {
        Table plain = table("h3_trunc", "plain", TableType.MANAGED_TABLE);
        plain.getParameters().putAll(Map.of("numRows", "42", "totalSize", "4096", "numFiles", "2", "note", "kept"));
        client.createTable(plain);
        Path directory = directory("h3_trunc", "plain");
        Files.createDirectories(directory.resolve("sub"));
        Files.writeString(directory.resolve("part-0"), "1\n2\n");
        Files.writeString(directory.resolve("sub/part-1"), "3\n");

        // Hive 3.1's client sends the legacy truncate_table (Hive 4's sends truncate_table_req).
        client.truncateTable("h3_trunc", "plain", null);

        assertThat(directory).isEmptyDirectory();
        assertThat(client.getTable("h3_trunc", "plain").getParameters())
                .containsEntry("numRows", "0")
                .containsEntry("totalSize", "0")
                .containsEntry("numFiles", "0")
                .containsEntry("note", "kept");
    }

    @Test
    void truncateNamedPartitionsOnly() throws Exception {
        client.createTable(table("h3_trunc", "events", TableType.MANAGED_TABLE, new FieldSchema("ds", "string", null)));
        List<Partition> partitions =
                List.of(partition("h3_trunc", "events", "a"), partition("h3_trunc", "events", "b"));
        // As Hive, truncate zeroes the statistics a partition has (and adds none).
        partitions.forEach(partition -> partition.getParameters().put("numRows", "5"));
        client.add_partitions(new ArrayList<>(partitions));
        Path table = directory("h3_trunc", "events");
        for (String ds : List.of("a", "b")) {
            Files.writeString(table.resolve("ds=" + ds).resolve("data"), ds);
        }
        client.truncateTable("h3_trunc", "events", List.of("ds=a"));
        assertThat(table.resolve("ds=a")).isEmptyDirectory();
        assertThat(table.resolve("ds=b/data")).hasContent("b");
        assertThat(client.getPartition("h3_trunc", "events", List.of("b")).getParameters())
                .containsEntry("numRows", "5");
        assertThat(client.getPartition("h3_trunc", "events", List.of("a")).getParameters())
                .containsEntry("numRows", "0");
        client.truncateTable("h3_trunc", "events", null);
        assertThat(table.resolve("ds=b")).isEmptyDirectory();
    }

    @Test
    void truncateRefusesExternalAndUnknownTables() throws Exception {
        client.createTable(table("h3_trunc", "ext", TableType.EXTERNAL_TABLE));
        Path directory = directory("h3_trunc", "ext");
        Files.writeString(directory.resolve("keep"), "x");
        assertThatThrownBy(() -> client.truncateTable("h3_trunc", "ext", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("Cannot truncate non-managed table h3_trunc.ext.");
        assertThat(directory.resolve("keep")).hasContent("x");
        assertThatThrownBy(() -> client.truncateTable("h3_trunc", "nope", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("h3_trunc.nope table not found");
        assertThatThrownBy(() -> raw.truncate_table("h3_trunc", null, null))
                .isInstanceOf(MetaException.class)
                .hasMessage("No table name given");
        assertThat(client.tableExists("h3_trunc", "ext")).isTrue();
    }
}
