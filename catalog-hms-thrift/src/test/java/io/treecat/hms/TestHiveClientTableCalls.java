package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.TruncateTableRequest;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Legacy {@code alter_table}, Hive's CASCADE, {@code get_fields}/{@code get_schema} and {@code truncate_table}
 * through Hive 4.1's {@code HiveMetaStoreClient}, and the forms it no longer sends over raw Thrift.
 */
class TestHiveClientTableCalls {
    private static final String LAZY = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe";

    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;
    private ThriftHiveMetastore.Client raw;

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        raw = hms.client();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
    }

    static Table table(String name, List<FieldSchema> columns, List<FieldSchema> keys, Map<String, String> parameters) {
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        table.setOwner("alice");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(columns));
        sd.setSerdeInfo(new SerDeInfo("s", LAZY, new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(new ArrayList<>(keys));
        table.setParameters(new HashMap<>(parameters));
        return table;
    }

    private static List<FieldSchema> columns(String... nameTypes) {
        return Columns.of(nameTypes);
    }

    /** Columns from name, type pairs. */
    static final class Columns {
        private Columns() {}

        static List<FieldSchema> of(String... nameTypes) {
            List<FieldSchema> columns = new ArrayList<>();
            for (int i = 0; i < nameTypes.length; i += 2) {
                columns.add(new FieldSchema(nameTypes[i], nameTypes[i + 1], null));
            }
            return columns;
        }
    }

    private Partition partition(Table table, String ds) {
        Partition partition = new Partition();
        partition.setCatName("hive");
        partition.setDbName("sales");
        partition.setTableName(table.getTableName());
        partition.setValues(List.of(ds));
        partition.setSd(table.getSd().deepCopy());
        partition.getSd().setLocation(null);
        partition.setParameters(new HashMap<>(Map.of("numRows", "10", "totalSize", "100")));
        return partition;
    }

    // ---- alter_table, alter_table_with_cascade

    @Test
    void legacyAlterTableReplacesRenamesAndRefusesLikeTheRequestForm() throws Exception {
        client.createTable(table("orders", columns("id", "bigint"), List.of(), Map.of("k", "v")));
        Table changed = client.getTable("sales", "orders");
        changed.getParameters().put("k", "w");
        changed.getSd().getCols().add(new FieldSchema("amount", "double", "added"));
        raw.alter_table("sales", "orders", changed);
        Table read = client.getTable("sales", "orders");
        assertThat(read.getParameters()).containsEntry("k", "w");
        assertThat(read.getSd().getCols()).extracting(FieldSchema::getName).containsExactly("id", "amount");

        Table renamed = read.deepCopy();
        renamed.setTableName("orders_v2");
        raw.alter_table("sales", "orders", renamed);
        assertThat(client.getAllTables("sales")).containsExactly("orders_v2");

        assertThatThrownBy(() -> raw.alter_table("sales", "nope", renamed))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("table sales.nope doesn't exist");
        assertThatThrownBy(() -> raw.alter_table("sales", "orders_v2", null))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("New table is null");
        assertThatThrownBy(() -> raw.alter_table_with_cascade("sales", null, renamed, true))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("No table name given");
        // The server still serves, the table is untouched.
        assertThat(client.getTable("sales", "orders_v2").getParameters()).containsEntry("k", "w");
    }

    @Test
    void cascadeGivesEveryPartitionTheNewColumnsAndDropsStatisticsOfChangedOnes() throws Exception {
        Table table = table("events", columns("id", "bigint", "kind", "string"), columns("ds", "string"), Map.of());
        client.createTable(table);
        Table stored = client.getTable("sales", "events");
        client.add_partitions(
                new ArrayList<>(List.of(partition(stored, "2025-01-01"), partition(stored, "2025-01-02"))));
        client.updatePartitionColumnStatistics(statistics("ds=2025-01-01", "id", "kind"));

        // Without cascade the partitions keep their columns.
        Table added = client.getTable("sales", "events");
        added.getSd().getCols().add(new FieldSchema("note", "string", null));
        raw.alter_table_with_cascade("sales", "events", added, false);
        assertThat(client.getPartition("sales", "events", List.of("2025-01-01"))
                        .getSd()
                        .getCols())
                .extracting(FieldSchema::getName)
                .containsExactly("id", "kind");

        // CASCADE through Hive's own client (alter_table_req with CASCADE=true in the context).
        Table retyped = client.getTable("sales", "events");
        retyped.getSd().setCols(columns("id", "string", "kind", "string", "note", "string"));
        client.alter_table("sales", "events", retyped, true);
        for (String ds : List.of("2025-01-01", "2025-01-02")) {
            assertThat(client.getPartition("sales", "events", List.of(ds))
                            .getSd()
                            .getCols())
                    .extracting(FieldSchema::getName, FieldSchema::getType)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("id", "string"),
                            org.assertj.core.groups.Tuple.tuple("kind", "string"),
                            org.assertj.core.groups.Tuple.tuple("note", "string"));
        }
        // id changed its type: its statistics went; kind's stayed.
        assertThat(client.getPartitionColumnStatistics(
                                "sales", "events", List.of("ds=2025-01-01"), List.of("id", "kind"), "hive")
                        .get("ds=2025-01-01"))
                .extracting(ColumnStatisticsObj::getColName)
                .containsExactly("kind");
        // The raw legacy call cascades too.
        Table dropped = client.getTable("sales", "events");
        dropped.getSd().setCols(columns("id", "string"));
        raw.alter_table_with_cascade("sales", "events", dropped, true);
        assertThat(client.getPartition("sales", "events", List.of("2025-01-02"))
                        .getSd()
                        .getCols())
                .extracting(FieldSchema::getName)
                .containsExactly("id");
        // And the environment-context form.
        Table again = client.getTable("sales", "events");
        again.getSd().setCols(columns("id", "string", "x", "int"));
        EnvironmentContext cascade = new EnvironmentContext(new HashMap<>(Map.of("CASCADE", "true")));
        raw.alter_table_with_environment_context("sales", "events", again, cascade);
        assertThat(client.getPartition("sales", "events", List.of("2025-01-01"))
                        .getSd()
                        .getCols())
                .extracting(FieldSchema::getName)
                .containsExactly("id", "x");
    }

    private static ColumnStatistics statistics(String partition, String... columns) {
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(false, "sales", "events");
        desc.setPartName(partition);
        List<ColumnStatisticsObj> objects = new ArrayList<>();
        for (String column : columns) {
            String type = column.equals("id") ? "bigint" : "string";
            ColumnStatisticsData data = column.equals("id")
                    ? ColumnStatisticsData.longStats(new LongColumnStatsData(0, 5))
                    : ColumnStatisticsData.stringStats(
                            new org.apache.hadoop.hive.metastore.api.StringColumnStatsData(3, 2.5, 0, 4));
            objects.add(new ColumnStatisticsObj(column, type, data));
        }
        ColumnStatistics statistics = new ColumnStatistics(desc, objects);
        statistics.setEngine("hive");
        return statistics;
    }

    // ---- get_fields, get_schema

    @Test
    void fieldsAndSchemaAnswerColumnsThenPartitionKeys() throws Exception {
        client.createTable(
                table("events", columns("id", "bigint", "kind", "string"), columns("ds", "string"), Map.of()));

        assertThat(client.getFields("sales", "events"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "kind");
        assertThat(client.getSchema("sales", "events"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "kind", "ds");
        assertThat(raw.get_fields("sales", "EVENTS"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "kind");
        assertThat(raw.get_schema("@hive#sales", "events.kind"))
                .extracting(FieldSchema::getName)
                .containsExactly("id", "kind", "ds");
        assertThat(raw.get_fields_with_environment_context("sales", "events", new EnvironmentContext()))
                .hasSize(2);
        assertThat(raw.get_schema_with_environment_context("sales", "events", null))
                .hasSize(3);

        assertThatThrownBy(() -> client.getFields("sales", "nope"))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("hive.sales.nope table not found");
        assertThatThrownBy(() -> raw.get_schema("nodb", "events"))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("hive.nodb.events table not found");
        assertThatThrownBy(() -> raw.get_fields("sales", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("No table name given");
        assertThatThrownBy(() -> raw.get_fields("sales", "x".repeat(100_000)))
                .isInstanceOf(UnknownTableException.class);

        // A SerDe that keeps the schema itself: Hive asks it, which a metastore without its classes cannot.
        Table avro = table("avro", columns(), List.of(), Map.of());
        avro.getSd().getSerdeInfo().setSerializationLib("org.apache.hadoop.hive.serde2.avro.AvroSerDe");
        client.createTable(avro);
        assertThatThrownBy(() -> client.getFields("sales", "avro"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Storage schema reading not supported");
        assertThat(client.getFields("sales", "events")).hasSize(2); // still serving
    }

    @Test
    void anIcebergTableMadeOverRestHasNoMetastoreColumns() throws Exception {
        io.treecat.lakehouse.model.TableEntry rest =
                io.treecat.lakehouse.model.TableEntry.iceberg(new io.treecat.lakehouse.model.IcebergPointer(
                        "file:/w/sales/t/metadata/00000.metadata.json", 2, "u-1", null, "file:/w/sales/t", Map.of()));
        hms.catalog()
                .commit(new io.treecat.core.version.WriteSet(List.of(new io.treecat.core.version.WriteOp.Add(
                        ObjectPath.of("warehouse", "sales", "ice"),
                        io.treecat.core.model.ObjectKind.INNER,
                        rest.encode()))));

        assertThat(client.getFields("sales", "ice")).isEmpty();
        assertThat(client.getSchema("sales", "ice")).isEmpty();
    }

    // ---- truncate_table

    @Test
    void truncateEmptiesTheFilesAndResetsBasicStatistics() throws Exception {
        Map<String, String> statistics = Map.of(
                "numRows", "42",
                "totalSize", "4096",
                "numFiles", "2",
                "COLUMN_STATS_ACCURATE", "{\"BASIC_STATS\":\"true\",\"COLUMN_STATS\":{\"id\":\"true\"}}",
                "owner_note", "kept");
        client.createTable(table("plain", columns("id", "bigint"), List.of(), statistics));
        Path directory = Path.of(
                java.net.URI.create(client.getTable("sales", "plain").getSd().getLocation()));
        Files.writeString(directory.resolve("part-0"), "1\n2\n");
        Files.createDirectories(directory.resolve("sub"));
        Files.writeString(directory.resolve("sub/part-1"), "3\n");

        client.truncateTable("sales", "plain", null);

        assertThat(directory).isEmptyDirectory();
        Map<String, String> parameters = client.getTable("sales", "plain").getParameters();
        assertThat(parameters)
                .containsEntry("numRows", "0")
                .containsEntry("totalSize", "0")
                .containsEntry("numFiles", "0")
                .containsEntry("COLUMN_STATS_ACCURATE", "{\"BASIC_STATS\":\"true\"}")
                .containsEntry("owner_note", "kept")
                .doesNotContainKey("rawDataSize");
    }

    @Test
    void truncateNamedPartitionsOnlyAndTheLegacyForm() throws Exception {
        client.createTable(table("events", columns("id", "bigint"), columns("ds", "string"), Map.of()));
        Table stored = client.getTable("sales", "events");
        client.add_partitions(
                new ArrayList<>(List.of(partition(stored, "a"), partition(stored, "b"), partition(stored, "c"))));
        Path table = Path.of(java.net.URI.create(stored.getSd().getLocation()));
        for (String ds : List.of("a", "b", "c")) {
            Files.writeString(table.resolve("ds=" + ds).resolve("data"), ds);
        }

        TruncateTableRequest named = new TruncateTableRequest("sales", "events");
        named.setPartNames(List.of("ds=a", "ds=zz", "bad"));
        raw.truncate_table_req(named);
        assertThat(table.resolve("ds=a")).isEmptyDirectory();
        assertThat(table.resolve("ds=b/data")).exists();
        assertThat(client.getPartition("sales", "events", List.of("a")).getParameters())
                .containsEntry("numRows", "0")
                .containsEntry("COLUMN_STATS_ACCURATE", "{\"BASIC_STATS\":\"true\"}");
        assertThat(client.getPartition("sales", "events", List.of("b")).getParameters())
                .containsEntry("numRows", "10");

        raw.truncate_table("sales", "events", null);
        assertThat(table.resolve("ds=b")).isEmptyDirectory();
        assertThat(table.resolve("ds=c")).isEmptyDirectory();
        assertThat(client.getPartition("sales", "events", List.of("c")).getParameters())
                .containsEntry("totalSize", "0");
    }

    @Test
    void truncateRefusesWhatHiveRefusesAndUnknownTables() throws Exception {
        client.createTable(table("ext", columns("id", "bigint"), List.of(), Map.of("EXTERNAL", "TRUE")));
        Path directory = Path.of(
                java.net.URI.create(client.getTable("sales", "ext").getSd().getLocation()));
        Files.writeString(directory.resolve("keep"), "x");

        assertThatThrownBy(() -> client.truncateTable("sales", "ext", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("Cannot truncate non-managed table sales.ext.");
        assertThat(directory.resolve("keep")).exists();
        // truncate_table declares only MetaException: Hive's not-found answer reaches the client as one.
        assertThatThrownBy(() -> raw.truncate_table("sales", "nope", null))
                .isInstanceOf(MetaException.class)
                .hasMessage("sales.nope table not found");
        assertThatThrownBy(() -> raw.truncate_table("sales", null, null))
                .isInstanceOf(MetaException.class)
                .hasMessage("No table name given");
        assertThatThrownBy(() -> raw.truncate_table(null, "ext", null)).isInstanceOf(MetaException.class);
        assertThat(hms.catalog().get(ObjectPath.of("warehouse", "sales", "ext"), ReadPoint.LATEST))
                .isPresent();
    }
}
