package io.treecat.conformance.hive3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's own {@code HiveMetaStoreClient} (hive-standalone-metastore 3.1.3, its Thrift IDL, libthrift 0.9.3)
 * against the packaged TreeCat server: databases, tables, partitions with filters, column statistics, locks and
 * functions, as Hive 3.1-based engines (Hive 3 itself, older Spark and Presto builds) call them. The server is the
 * one all Hive 3.1 ITs share ({@link Hive3Metastore}); each test works in a database of its own.
 */
class Hive3ClientIT {
    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;

    @BeforeAll
    static void start() {
        client = hms.client();
    }

    private static Database database(String name) {
        Database database = Hive3Metastore.database(name);
        database.getParameters().put("k", "v");
        return database;
    }

    private static Table table(String db, String name, FieldSchema... partitionKeys) {
        return Hive3Metastore.table(db, name, TableType.EXTERNAL_TABLE, partitionKeys);
    }

    private static Partition partition(String db, String table, String... values) {
        return Hive3Metastore.partition(db, table, values);
    }

    @Test
    void databases() throws Exception {
        client.createDatabase(database("h3_db"));
        Database read = client.getDatabase("h3_db");
        assertThat(read.getName()).isEqualTo("h3_db");
        assertThat(read.getDescription()).isEqualTo("made by Hive 3.1's client");
        assertThat(read.getParameters()).containsEntry("k", "v");
        assertThat(read.getOwnerName()).isEqualTo("hive3");
        assertThat(read.getLocationUri()).endsWith("/h3_db");
        assertThat(client.getAllDatabases()).contains("h3_db");
        assertThat(client.getDatabases("h3_*")).containsExactly("h3_db");
        assertThatThrownBy(() -> client.createDatabase(database("h3_db")))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessage("Database h3_db already exists");
        read.setParameters(new HashMap<>(Map.of("k", "changed")));
        client.alterDatabase("h3_db", read);
        assertThat(client.getDatabase("h3_db").getParameters()).containsEntry("k", "changed");
        assertThatThrownBy(() -> client.getDatabase("h3_missing"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessageContaining("h3_missing");

        client.createTable(table("h3_db", "t"));
        assertThatThrownBy(() -> client.dropDatabase("h3_db", false, false, false))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("Database h3_db is not empty. One or more tables exist.");
        client.dropDatabase("h3_db", false, false, true);
        assertThat(client.getDatabases("h3_*")).isEmpty();
        // ignoreUnknownDb: dropping a missing database is quiet.
        client.dropDatabase("h3_db", false, true, false);
    }

    @Test
    void tables() throws Exception {
        client.createDatabase(database("h3_tables"));
        client.createTable(table("h3_tables", "orders", new FieldSchema("ds", "string", null)));
        client.createTable(table("h3_tables", "customers"));
        Table orders = client.getTable("h3_tables", "orders");
        assertThat(orders.getTableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(orders.getPartitionKeys()).extracting(FieldSchema::getName).containsExactly("ds");
        assertThat(orders.getSd().getCols()).extracting(FieldSchema::getName).containsExactly("id", "name");
        assertThat(orders.getSd().getLocation()).endsWith("/h3_tables/orders");
        assertThat(client.tableExists("h3_tables", "orders")).isTrue();
        assertThat(client.tableExists("h3_tables", "nothing")).isFalse();
        assertThat(client.getTables("h3_tables", "ord*")).containsExactly("orders");
        assertThat(client.getTables("h3_tables", "*", TableType.EXTERNAL_TABLE))
                .containsExactlyInAnyOrder("orders", "customers");
        assertThat(client.getTableObjectsByName("h3_tables", List.of("customers", "missing")))
                .extracting(Table::getTableName)
                .containsExactly("customers");
        assertThat(client.getTableMeta("h3_tables", "*", null))
                .extracting(TableMeta::getTableName)
                .containsExactlyInAnyOrder("orders", "customers");
        assertThatThrownBy(() -> client.createTable(table("h3_tables", "orders")))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessage("Table hive.h3_tables.orders already exists");

        orders.getParameters().put("comment", "altered by Hive 3.1");
        client.alter_table("h3_tables", "orders", orders);
        assertThat(client.getTable("h3_tables", "orders").getParameters())
                .containsEntry("comment", "altered by Hive 3.1");
        Table renamed = client.getTable("h3_tables", "customers");
        renamed.setTableName("clients");
        client.alter_table("h3_tables", "customers", renamed);
        assertThat(client.getTables("h3_tables", "*")).containsExactlyInAnyOrder("orders", "clients");

        client.dropTable("h3_tables", "clients");
        assertThatThrownBy(() -> client.getTable("h3_tables", "clients"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessageContaining("clients");
        client.dropDatabase("h3_tables", false, false, true);
    }

    @Test
    void partitionsAndFilters() throws Exception {
        client.createDatabase(database("h3_parts"));
        client.createTable(
                table("h3_parts", "p", new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null)));
        assertThat(client.add_partitions(List.of(
                        partition("h3_parts", "p", "2024-01-01", "1"),
                        partition("h3_parts", "p", "2024-01-01", "2"),
                        partition("h3_parts", "p", "2024-01-02", "10"),
                        partition("h3_parts", "p", "2024-02-01", "9"))))
                .isEqualTo(4);
        assertThat(client.listPartitionNames("h3_parts", "p", (short) -1))
                .containsExactly(
                        "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=2", "ds=2024-01-02/hr=10", "ds=2024-02-01/hr=9");
        assertThat(client.listPartitions("h3_parts", "p", (short) -1)).hasSize(4);
        assertThat(client.listPartitions("h3_parts", "p", List.of("2024-01-01"), (short) -1))
                .hasSize(2);
        // Integral keys compare as numbers: 9 < 10.
        assertThat(client.listPartitionsByFilter("h3_parts", "p", "hr > 2", (short) -1))
                .extracting(partition -> partition.getValues().get(1))
                .containsExactlyInAnyOrder("10", "9");
        assertThat(client.listPartitionsByFilter("h3_parts", "p", "ds like '2024-01%' and hr <> 2", (short) -1))
                .extracting(partition -> String.join("/", partition.getValues()))
                .containsExactlyInAnyOrder("2024-01-01/1", "2024-01-02/10");
        assertThat(client.getNumPartitionsByFilter("h3_parts", "p", "ds >= '2024-01-02'"))
                .isEqualTo(2);
        assertThatThrownBy(() -> client.listPartitionsByFilter("h3_parts", "p", "hr = = 1", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Error parsing partition filter");

        Partition first = client.getPartition("h3_parts", "p", List.of("2024-01-01", "1"));
        assertThat(first.getSd().getLocation()).endsWith("/h3_parts/p/ds=2024-01-01/hr=1");
        assertThat(client.getPartition("h3_parts", "p", "ds=2024-01-02/hr=10").getValues())
                .containsExactly("2024-01-02", "10");
        first.getParameters().put("numRows", "42");
        client.alter_partition("h3_parts", "p", first);
        assertThat(client.getPartition("h3_parts", "p", List.of("2024-01-01", "1"))
                        .getParameters())
                .containsEntry("numRows", "42");
        Partition renamed = client.getPartition("h3_parts", "p", List.of("2024-01-01", "2"));
        renamed.setValues(new ArrayList<>(List.of("2024-03-01", "2")));
        client.renamePartition("h3_parts", "p", List.of("2024-01-01", "2"), renamed);
        assertThat(client.dropPartition("h3_parts", "p", List.of("2024-02-01", "9"), false))
                .isTrue();
        assertThat(client.listPartitionNames("h3_parts", "p", (short) -1))
                .containsExactly("ds=2024-01-01/hr=1", "ds=2024-01-02/hr=10", "ds=2024-03-01/hr=2");
        assertThatThrownBy(() -> client.getPartition("h3_parts", "p", List.of("2024-02-01", "9")))
                .isInstanceOf(NoSuchObjectException.class);
        client.dropDatabase("h3_parts", false, false, true);
    }

    private static ColumnStatistics longStatistics(String db, String table, String partition, long low, long high) {
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(partition == null, db, table);
        if (partition != null) {
            desc.setPartName(partition);
        }
        LongColumnStatsData data = new LongColumnStatsData(0, high - low + 1);
        data.setLowValue(low);
        data.setHighValue(high);
        return new ColumnStatistics(
                desc,
                new ArrayList<>(
                        List.of(new ColumnStatisticsObj("id", "bigint", ColumnStatisticsData.longStats(data)))));
    }

    @Test
    void statistics() throws Exception {
        client.createDatabase(database("h3_stats"));
        client.createTable(table("h3_stats", "flat"));
        client.createTable(table("h3_stats", "p", new FieldSchema("ds", "string", null)));
        client.add_partitions(List.of(partition("h3_stats", "p", "a"), partition("h3_stats", "p", "b")));

        assertThat(client.updateTableColumnStatistics(longStatistics("h3_stats", "flat", null, 1, 100)))
                .isTrue();
        List<ColumnStatisticsObj> table = client.getTableColumnStatistics("h3_stats", "flat", List.of("id", "name"));
        assertThat(table).extracting(ColumnStatisticsObj::getColName).containsExactly("id");
        assertThat(table.get(0).getStatsData().getLongStats().getHighValue()).isEqualTo(100);

        assertThat(client.updatePartitionColumnStatistics(longStatistics("h3_stats", "p", "ds=a", 1, 10)))
                .isTrue();
        assertThat(client.updatePartitionColumnStatistics(longStatistics("h3_stats", "p", "ds=b", 5, 20)))
                .isTrue();
        Map<String, List<ColumnStatisticsObj>> partitions =
                client.getPartitionColumnStatistics("h3_stats", "p", List.of("ds=a", "ds=b"), List.of("id"));
        assertThat(partitions).containsOnlyKeys("ds=a", "ds=b");
        AggrStats aggregated = client.getAggrColStatsFor("h3_stats", "p", List.of("id"), List.of("ds=a", "ds=b"));
        assertThat(aggregated.getPartsFound()).isEqualTo(2);
        assertThat(aggregated.getColStats().get(0).getStatsData().getLongStats().getLowValue())
                .isEqualTo(1);
        assertThat(aggregated.getColStats().get(0).getStatsData().getLongStats().getHighValue())
                .isEqualTo(20);

        assertThat(client.deletePartitionColumnStatistics("h3_stats", "p", "ds=a", "id"))
                .isTrue();
        assertThat(client.getPartitionColumnStatistics("h3_stats", "p", List.of("ds=a", "ds=b"), List.of("id")))
                .containsOnlyKeys("ds=b");
        assertThat(client.deleteTableColumnStatistics("h3_stats", "flat", "id")).isTrue();
        assertThat(client.getTableColumnStatistics("h3_stats", "flat", List.of("id")))
                .isEmpty();
        client.dropDatabase("h3_stats", false, false, true);
    }

    private static LockRequest tableLock(LockType type) {
        LockComponent component = new LockComponent(type, LockLevel.TABLE, "h3_locks");
        component.setTablename("t");
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "hive3", "localhost");
        request.setAgentInfo("Hive3ClientIT");
        return request;
    }

    @Test
    void locks() throws Exception {
        client.createDatabase(database("h3_locks"));
        LockResponse read = client.lock(tableLock(LockType.SHARED_READ));
        assertThat(read.getState()).isEqualTo(LockState.ACQUIRED);
        LockResponse exclusive = client.lock(tableLock(LockType.EXCLUSIVE));
        assertThat(exclusive.getState()).isEqualTo(LockState.WAITING);
        ShowLocksRequest show = new ShowLocksRequest();
        show.setDbname("h3_locks");
        assertThat(client.showLocks(show).getLocks())
                .extracting(ShowLocksResponseElement::getLockid, ShowLocksResponseElement::getState)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(read.getLockid(), LockState.ACQUIRED),
                        org.assertj.core.groups.Tuple.tuple(exclusive.getLockid(), LockState.WAITING));
        client.heartbeat(0, read.getLockid());
        assertThat(client.checkLock(exclusive.getLockid()).getState()).isEqualTo(LockState.WAITING);
        client.unlock(read.getLockid());
        assertThat(client.checkLock(exclusive.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        client.unlock(exclusive.getLockid());
        assertThat(client.showLocks(show).getLocks()).isEmpty();
        client.dropDatabase("h3_locks");
    }

    @Test
    void functions() throws Exception {
        client.createDatabase(database("h3_functions"));
        client.createFunction(new Function(
                "to_upper",
                "h3_functions",
                "com.example.Upper",
                "hive3",
                PrincipalType.USER,
                0,
                FunctionType.JAVA,
                List.of()));
        Function read = client.getFunction("h3_functions", "to_upper");
        assertThat(read.getClassName()).isEqualTo("com.example.Upper");
        assertThat(client.getFunctions("h3_functions", "to_*")).containsExactly("to_upper");
        assertThat(client.getAllFunctions().getFunctions())
                .extracting(Function::getFunctionName)
                .contains("to_upper");
        read.setClassName("com.example.Upper2");
        client.alterFunction("h3_functions", "to_upper", read);
        assertThat(client.getFunction("h3_functions", "to_upper").getClassName())
                .isEqualTo("com.example.Upper2");
        client.dropFunction("h3_functions", "to_upper");
        assertThatThrownBy(() -> client.getFunction("h3_functions", "to_upper"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessageContaining("to_upper");
        client.dropDatabase("h3_functions");
    }
}
