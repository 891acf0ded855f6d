package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.hms.TestHiveClientTableCalls.Columns;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hive's refusal of column type changes that leave existing files unreadable
 * ({@code metastore.disallow.incompatible.col.type.changes}): Hive's rule on type names, and {@code alter_table}
 * through Hive 4.1's {@code HiveMetaStoreClient}, with the connection's switch, views and Iceberg tables.
 */
class TestHmsColumnTypeChanges {
    private static final String SWITCH = "metastore.disallow.incompatible.col.type.changes";

    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
    }

    @ParameterizedTest(name = "{0} to {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "string | varchar(10) | true",
                "char(3) | string | true",
                "tinyint | smallint | true",
                "int | bigint | true",
                "bigint | decimal(38,0) | true",
                "decimal(10,2) | double | true",
                "float | double | true",
                "INT | Integer | true",
                "numeric(5) | decimal(6) | true",
                "int | string | true",
                "double | varchar(5) | true",
                "date | string | true",
                "timestamp | char(30) | true",
                "void | boolean | true",
                "array<int> | array<bigint> | true",
                "bigint | int | false",
                "double | float | false",
                "decimal(10,2) | bigint | false",
                "string | int | false",
                "string | date | false",
                "int | boolean | false",
                "boolean | string | false",
                "binary | string | false",
                "int | array<int> | false",
                "struct<a:int> | map<int,int> | false",
            })
    void hiveRuleOnTypeNames(String from, String to, boolean compatible) {
        assertThat(HmsColumnTypeChanges.compatible(
                        HmsColumnTypeChanges.typeName(from), HmsColumnTypeChanges.typeName(to)))
                .isEqualTo(compatible);
    }

    @Test
    void typeNamesAreHives() {
        assertThat(HmsColumnTypeChanges.typeName("VARCHAR(10)")).isEqualTo("varchar");
        assertThat(HmsColumnTypeChanges.typeName("map<string,int>")).isEqualTo("map");
        assertThat(HmsColumnTypeChanges.typeName("timestamp with time zone")).isEqualTo("timestamp");
        assertThat(HmsColumnTypeChanges.typeName("integer")).isEqualTo("int");
        assertThat(HmsColumnTypeChanges.typeName(null)).isEmpty();
    }

    @Test
    void onlyPositionsBothListsHaveAreCompared() {
        assertThat(HmsColumnTypeChanges.incompatibleColumns(
                        Columns.of("a", "bigint", "b", "string", "c", "int"),
                        Columns.of("x", "int", "y", "string", "z", "date", "w", "boolean")))
                .containsExactly("x", "z");
        assertThat(HmsColumnTypeChanges.incompatibleColumns(
                        Columns.of("a", "bigint", "b", "string"), Columns.of("a", "bigint")))
                .isEmpty();
    }

    @Test
    void anIncompatibleChangeIsRefusedNamingTheColumnsAndChangesNothing() throws Exception {
        client.createTable(TestHiveClientTableCalls.table(
                "orders", Columns.of("id", "bigint", "note", "string", "qty", "int"), List.of(), Map.of()));
        long before = hms.catalog().lastVid();

        Table changed = client.getTable("sales", "orders");
        changed.getSd().setCols(Columns.of("id", "int", "note", "double", "qty", "bigint"));
        assertThatThrownBy(() -> client.alter_table("sales", "orders", changed))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("The following columns have types incompatible with the existing columns in their"
                        + " respective positions :\nid,note");
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(types(client.getTable("sales", "orders"))).containsExactly("bigint", "string", "int");

        // Widening, and anything to a string, is a change every reader of the old files can still make.
        changed.getSd().setCols(Columns.of("id", "string", "note", "varchar(20)", "qty", "bigint"));
        client.alter_table("sales", "orders", changed);
        assertThat(types(client.getTable("sales", "orders"))).containsExactly("string", "varchar(20)", "bigint");
    }

    @Test
    void aConnectionMayTurnTheCheckOffForItselfOnly() throws Exception {
        client.createTable(TestHiveClientTableCalls.table(
                "orders", Columns.of("id", "bigint", "note", "string"), List.of(), Map.of()));
        Table changed = client.getTable("sales", "orders");
        changed.getSd().setCols(Columns.of("note", "string", "id", "bigint"));

        client.setMetaConf("hive." + SWITCH, "FALSE");
        client.alter_table("sales", "orders", changed);
        assertThat(types(client.getTable("sales", "orders"))).containsExactly("string", "bigint");

        // metastore.… is read before hive.metastore.…, as Hive's MetastoreConf reads them.
        client.setMetaConf(SWITCH, "true");
        Table back = client.getTable("sales", "orders");
        back.getSd().setCols(Columns.of("id", "bigint", "note", "string"));
        assertThatThrownBy(() -> client.alter_table("sales", "orders", back))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageEndingWith(":\nid");

        try (HiveMetaStoreClient other = hms.hiveClient()) {
            assertThatThrownBy(() -> other.alter_table("sales", "orders", back))
                    .isInstanceOf(InvalidOperationException.class);
        }
    }

    @Test
    void viewsAndIcebergTablesAreNotChecked() throws Exception {
        Table view = TestHiveClientTableCalls.table("v", Columns.of("id", "bigint"), List.of(), Map.of());
        view.setTableType("VIRTUAL_VIEW");
        view.setViewOriginalText("select 1");
        view.setViewExpandedText("select 1");
        client.createTable(view);
        Table changedView = client.getTable("sales", "v");
        changedView.getSd().setCols(Columns.of("id", "boolean"));
        client.alter_table("sales", "v", changedView);
        assertThat(types(client.getTable("sales", "v"))).containsExactly("boolean");

        // Iceberg reads its files by field id: its HiveCatalog drops a column in the middle, shifting the rest.
        client.createTable(TestHiveClientTableCalls.table(
                "events",
                Columns.of("id", "bigint", "note", "string", "at", "timestamp"),
                List.of(),
                Map.of("table_type", "ICEBERG")));
        Table dropped = client.getTable("sales", "events");
        dropped.getSd().setCols(Columns.of("id", "bigint", "at", "timestamp"));
        client.alter_table("sales", "events", dropped);
        assertThat(types(client.getTable("sales", "events"))).containsExactly("bigint", "timestamp");
    }

    private static List<String> types(Table table) {
        return table.getSd().getCols().stream().map(FieldSchema::getType).toList();
    }
}
