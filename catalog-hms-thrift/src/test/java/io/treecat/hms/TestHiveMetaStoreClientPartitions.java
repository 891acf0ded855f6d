package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.StringColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Partitions, Hive filters and column statistics through Hive 4's own HiveMetaStoreClient. */
class TestHiveMetaStoreClientPartitions {
    private static final LocalDate START = LocalDate.of(2025, 1, 1);
    private static final int DAYS = 100;
    private static final int HOURS = 100;

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

    private Table table(String name, List<FieldSchema> keys) {
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        table.setOwner("alice");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null), new FieldSchema("name", "string", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(keys);
        table.setParameters(new HashMap<>());
        return table;
    }

    private static Partition partition(Table table, String... values) {
        Partition partition = new Partition();
        partition.setDbName(table.getDbName());
        partition.setTableName(table.getTableName());
        partition.setValues(List.of(values));
        StorageDescriptor sd = table.getSd().deepCopy();
        sd.setLocation(null);
        partition.setSd(sd);
        partition.setParameters(new HashMap<>());
        return partition;
    }

    private static String day(int i) {
        return START.plusDays(i).toString();
    }

    /** A filter and the same condition written in Java, over (ds, hr). */
    private record Case(String filter, BiPredicate<String, Integer> expected) {}

    @Test
    void tenThousandPartitionsListedAndFiltered() throws Exception {
        Table events =
                table("events", List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null)));
        client.createTable(events);
        events = client.getTable("sales", "events");

        long started = System.nanoTime();
        List<Partition> batch = new ArrayList<>();
        for (int d = 0; d < DAYS; d++) {
            for (int h = 0; h < HOURS; h++) {
                batch.add(partition(events, day(d), Integer.toString(h)));
                if (batch.size() == 1000) {
                    assertThat(client.add_partitions(batch)).isEqualTo(1000);
                    batch.clear();
                }
            }
        }
        long addMillis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("Added 10,000 partitions in batches of 1,000 in " + addMillis + " ms");

        started = System.nanoTime();
        List<String> names = client.listPartitionNames("sales", "events", (short) -1);
        System.out.println("Listed 10,000 partition names in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        assertThat(names)
                .hasSize(DAYS * HOURS)
                .contains("ds=2025-01-01/hr=0", "ds=2025-04-10/hr=99")
                .doesNotHaveDuplicates();
        assertThat(client.listPartitions("sales", "events", (short) -1)).hasSize(DAYS * HOURS);
        assertThat(client.listPartitions("sales", "events", (short) 10)).hasSize(10);

        Partition first = client.getPartition("sales", "events", List.of("2025-01-01", "0"));
        assertThat(first.getSd().getLocation()).isEqualTo(events.getSd().getLocation() + "/ds=2025-01-01/hr=0");
        assertThat(Files.isDirectory(Path.of(java.net.URI.create(first.getSd().getLocation()))))
                .isTrue();
        assertThat(client.getPartition("sales", "events", "ds=2025-01-02/hr=5").getValues())
                .containsExactly("2025-01-02", "5");
        assertThatThrownBy(() -> client.getPartition("sales", "events", List.of("2030-01-01", "0")))
                .isInstanceOf(NoSuchObjectException.class);
        assertThatThrownBy(() -> client.add_partitions(
                        new ArrayList<>(List.of(partition(client.getTable("sales", "events"), "2025-01-01", "0")))))
                .isInstanceOf(AlreadyExistsException.class);

        List<Case> cases = List.of(
                new Case("ds = \"2025-01-05\"", (ds, hr) -> ds.equals("2025-01-05")),
                new Case("ds >= '2025-03-01' and hr < 10", (ds, hr) -> ds.compareTo("2025-03-01") >= 0 && hr < 10),
                new Case("hr = 7", (ds, hr) -> hr == 7),
                new Case("hr > 95 or ds < '2025-01-03'", (ds, hr) -> hr > 95 || ds.compareTo("2025-01-03") < 0),
                new Case("hr not between 5 and 99", (ds, hr) -> hr < 5),
                new Case(
                        "hr between 10 and 12 and ds = '2025-02-01'",
                        (ds, hr) -> hr >= 10 && hr <= 12 && ds.equals("2025-02-01")),
                new Case("ds like '2025-01-1%'", (ds, hr) -> ds.startsWith("2025-01-1")),
                new Case("ds like '2025-0_-_5'", (ds, hr) -> ds.startsWith("2025-0") && ds.endsWith("5")),
                new Case(
                        "(hr) in (1, 2, 3) and (ds) in ('2025-01-01', '2025-04-10')",
                        (ds, hr) -> (hr >= 1 && hr <= 3) && (ds.equals("2025-01-01") || ds.equals("2025-04-10"))),
                new Case(
                        "(hr) not in (1, 2) and ds = '2025-01-01'",
                        (ds, hr) -> hr != 1 && hr != 2 && ds.equals("2025-01-01")),
                new Case("hr < 10 AND ds = '2025-01-07'", (ds, hr) -> hr < 10 && ds.equals("2025-01-07")),
                new Case(
                        "(ds = '2025-01-01' or ds = '2025-01-02') and (hr = 1 or hr = 99)",
                        (ds, hr) -> (ds.equals("2025-01-01") || ds.equals("2025-01-02")) && (hr == 1 || hr == 99)),
                new Case("hr <> 50 and ds > '2025-04-08'", (ds, hr) -> hr != 50 && ds.compareTo("2025-04-08") > 0),
                new Case("5 > hr and ds = '2025-01-09'", (ds, hr) -> hr < 5 && ds.equals("2025-01-09")),
                new Case(
                        "hr >= 90 and hr <= 91 and ds not between '2025-01-03' and '2025-04-08'",
                        (ds, hr) -> hr >= 90
                                && hr <= 91
                                && (ds.compareTo("2025-01-03") < 0 || ds.compareTo("2025-04-08") > 0)),
                new Case("ds = '2030-01-01'", (ds, hr) -> false));
        for (Case c : cases) {
            Set<String> expected = new TreeSet<>();
            for (int d = 0; d < DAYS; d++) {
                for (int h = 0; h < HOURS; h++) {
                    if (c.expected().test(day(d), h)) {
                        expected.add("ds=" + day(d) + "/hr=" + h);
                    }
                }
            }
            long t = System.nanoTime();
            List<Partition> found = client.listPartitionsByFilter("sales", "events", c.filter(), (short) -1);
            long millis = (System.nanoTime() - t) / 1_000_000;
            Set<String> actual = found.stream()
                    .map(p -> "ds=" + p.getValues().get(0) + "/hr="
                            + p.getValues().get(1))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(actual).as(c.filter()).isEqualTo(expected);
            assertThat(found).as(c.filter()).hasSize(expected.size());
            assertThat(client.getNumPartitionsByFilter("sales", "events", c.filter()))
                    .as(c.filter())
                    .isEqualTo(expected.size());
            System.out.println("Filter [" + c.filter() + "]: " + expected.size() + " partitions in " + millis + " ms");
        }
        assertThat(client.listPartitionsByFilter("sales", "events", "hr < 50", (short) 7))
                .hasSize(7);

        // Partial specs: a prefix, or an empty value for any.
        assertThat(client.listPartitionNames("sales", "events", List.of("2025-01-03"), (short) -1))
                .hasSize(HOURS)
                .allMatch(n -> n.startsWith("ds=2025-01-03/"));
        assertThat(client.listPartitionNames("sales", "events", List.of("", "7"), (short) -1))
                .hasSize(DAYS)
                .allMatch(n -> n.endsWith("/hr=7"));
        assertThat(client.listPartitions("sales", "events", List.of("2025-01-04", "9"), (short) -1))
                .extracting(Partition::getValues)
                .containsExactly(List.of("2025-01-04", "9"));
        assertThat(client.getPartitionsByNames(
                        "sales", "events", List.of("ds=2025-01-01/hr=1", "ds=2030-01-01/hr=1", "ds=2025-01-02/hr=2")))
                .extracting(Partition::getValues)
                .containsExactly(List.of("2025-01-01", "1"), List.of("2025-01-02", "2"));

        // An invalid filter is a clean MetaException and the server keeps serving.
        assertThatThrownBy(() -> client.listPartitionsByFilter("sales", "events", "ds = = '1'", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Error parsing partition filter at position 6");
        assertThatThrownBy(() -> client.listPartitionsByFilter("sales", "events", "nokey = '1'", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("'nokey' is not a partition key");
        assertThatThrownBy(() -> client.getNumPartitionsByFilter("sales", "events", "ds = '1"))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Error parsing partition filter");
        assertThat(client.getNumPartitionsByFilter("sales", "events", "hr = 0")).isEqualTo(DAYS);
        // As Hive: an integral key compares with integers only, and in wants its key in parentheses.
        assertThatThrownBy(() -> client.listPartitionsByFilter("sales", "events", "hr < '10'", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Filtering is supported only on partition keys of type string");
        assertThatThrownBy(() -> client.listPartitionsByFilter("sales", "events", "hr in (1, 2)", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Error parsing partition filter at position 4");

        // Table rename moves the partitions with it.
        Table renamed = client.getTable("sales", "events");
        renamed.setTableName("events2");
        client.alter_table("sales", "events", renamed);
        assertThat(client.listPartitionNames("sales", "events2", (short) -1)).hasSize(DAYS * HOURS);
        assertThat(client.getPartition("sales", "events2", List.of("2025-01-01", "3"))
                        .getTableName())
                .isEqualTo("events2");
        assertThatThrownBy(() -> client.listPartitionNames("sales", "events", (short) -1))
                .isInstanceOf(NoSuchObjectException.class);

        // Drop table removes every partition object.
        client.dropTable("sales", "events2");
        assertThat(hms.catalog()
                        .query(QueryRequest.of("/[obj_id='warehouse']/[obj_id='sales']/*/*")
                                .at(ReadPoint.LATEST))
                        .rows())
                .isEmpty();
    }

    @Test
    void alterRenameDropAndCascade() throws Exception {
        Table logs =
                table("logs", List.of(new FieldSchema("region", "string", null), new FieldSchema("day", "int", null)));
        client.createTable(logs);
        logs = client.getTable("sales", "logs");
        client.add_partitions(new ArrayList<>(List.of(
                partition(logs, "eu", "1"),
                partition(logs, "eu", "2"),
                partition(logs, "us/west", "1"),
                partition(logs, "", "3"))));
        assertThat(client.listPartitionNames("sales", "logs", (short) -1))
                .containsExactlyInAnyOrder(
                        "region=eu/day=1",
                        "region=eu/day=2",
                        "region=us%2Fwest/day=1",
                        "region=__HIVE_DEFAULT_PARTITION__/day=3");
        assertThat(client.getPartition("sales", "logs", "region=us%2Fwest/day=1")
                        .getValues())
                .containsExactly("us/west", "1");
        assertThat(client.partitionNameToVals("region=us%2Fwest/day=1")).containsExactly("us/west", "1");
        assertThat(client.partitionNameToSpec("region=us%2Fwest/day=1"))
                .containsExactly(Map.entry("region", "us/west"), Map.entry("day", "1"));
        assertThat(client.appendPartition("sales", "logs", List.of("eu", "9"))
                        .getSd()
                        .getLocation())
                .endsWith("/logs/region=eu/day=9");

        // The basic statistics Trino writes through alter_partition.
        Partition eu1 = client.getPartition("sales", "logs", List.of("eu", "1"));
        eu1.getParameters().put("numRows", "42");
        eu1.getParameters().put("totalSize", "4096");
        client.alter_partition("sales", "logs", eu1);
        assertThat(client.getPartition("sales", "logs", List.of("eu", "1")).getParameters())
                .containsEntry("numRows", "42")
                .containsEntry("totalSize", "4096");
        Partition missing = partition(logs, "eu", "77");
        assertThatThrownBy(() -> client.alter_partition("sales", "logs", missing))
                .isInstanceOf(InvalidOperationException.class);

        // Rename moves the partition; its default location follows the name; the emptied level goes.
        Partition moved = client.getPartition("sales", "logs", List.of("us/west", "1"));
        moved.setValues(List.of("apac", "1"));
        client.renamePartition("sales", "logs", List.of("us/west", "1"), moved);
        assertThat(client.getPartition("sales", "logs", List.of("apac", "1"))
                        .getSd()
                        .getLocation())
                .endsWith("/logs/region=apac/day=1");
        assertThatThrownBy(() -> client.getPartition("sales", "logs", List.of("us/west", "1")))
                .isInstanceOf(NoSuchObjectException.class);
        assertThat(hms.catalog().get(ObjectPath.of("warehouse", "sales", "logs", "region=us%2Fwest"), ReadPoint.LATEST))
                .isEmpty();

        // Dropping: by values and by name; the last partition of a level takes the level with it.
        assertThat(client.dropPartition("sales", "logs", List.of("eu", "2"), false))
                .isTrue();
        assertThat(client.dropPartition("sales", "logs", "region=__HIVE_DEFAULT_PARTITION__/day=3", false))
                .isTrue();
        assertThat(hms.catalog()
                        .get(
                                ObjectPath.of("warehouse", "sales", "logs", "region=__HIVE_DEFAULT_PARTITION__"),
                                ReadPoint.LATEST))
                .isEmpty();
        assertThat(hms.catalog().get(ObjectPath.of("warehouse", "sales", "logs", "region=eu"), ReadPoint.LATEST))
                .isPresent();
        assertThatThrownBy(() -> client.dropPartition("sales", "logs", List.of("eu", "2"), false))
                .isInstanceOf(NoSuchObjectException.class);
        assertThat(client.listPartitionNames("sales", "logs", (short) -1))
                .containsExactlyInAnyOrder("region=eu/day=1", "region=eu/day=9", "region=apac/day=1");

        // Partition keys cannot change, as in Hive.
        Table changed = client.getTable("sales", "logs");
        changed.setPartitionKeys(List.of(new FieldSchema("region", "string", null)));
        assertThatThrownBy(() -> client.alter_table("sales", "logs", changed))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("partition keys can not be changed");

        // Tables by filter (Iceberg's form, and the owner).
        Table iceberg = table("ice", List.of());
        iceberg.getParameters().put("table_type", "ICEBERG");
        client.createTable(iceberg);
        assertThat(client.listTableNamesByFilter(
                        "sales", "hive_filter_field_params__table_type like \"ICEBERG\"", (short) -1))
                .containsExactly("ice");
        assertThat(client.listTableNamesByFilter("sales", "hive_filter_field_owner__ = \"alice\"", (short) -1))
                .containsExactlyInAnyOrder("ice", "logs");
        assertThat(client.listTableNamesByFilter(
                        "sales", "hive_filter_field_params__table_type <> \"ICEBERG\"", (short) -1))
                .containsExactly("logs");
        assertThatThrownBy(() -> client.listTableNamesByFilter("sales", "owner = 'x'", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Invalid key name in filter");

        // Drop database cascade takes the partitioned table and its partitions.
        client.dropDatabase("sales", true, true, true);
        assertThat(hms.catalog()
                        .query(QueryRequest.of("/[obj_id='warehouse']/*"))
                        .rows())
                .extracting(CatalogObject::id)
                // Beside the databases, HMS state of its own (the notification log's saved index, once saved).
                .filteredOn(id -> !id.startsWith("."))
                .containsExactly("default");
    }

    @Test
    void integerKeysAndTheDefaultPartition() throws Exception {
        Table t = table("nums", List.of(new FieldSchema("n", "bigint", null)));
        client.createTable(t);
        t = client.getTable("sales", "nums");
        client.add_partitions(new ArrayList<>(List.of(
                partition(t, "9"),
                partition(t, "10"),
                partition(t, "100"),
                partition(t, "-3"),
                partition(t, "__HIVE_DEFAULT_PARTITION__"))));
        // Numeric, not string order: '9' > '10' as strings, 9 < 10 as numbers.
        assertThat(values(client.listPartitionsByFilter("sales", "nums", "n > 9", (short) -1)))
                .containsExactlyInAnyOrder("10", "100");
        assertThat(values(client.listPartitionsByFilter("sales", "nums", "n < 10", (short) -1)))
                .containsExactlyInAnyOrder("9", "-3");
        // The default partition is no number: unknown for every numeric comparison and its negation.
        assertThat(values(client.listPartitionsByFilter("sales", "nums", "(n) not in (9)", (short) -1)))
                .containsExactlyInAnyOrder("10", "100", "-3");
        assertThat(values(client.listPartitionsByFilter("sales", "nums", "n != 9", (short) -1)))
                .containsExactlyInAnyOrder("10", "100", "-3");
        // The default partition's name compares as a string; any other string, and like, Hive refuses on an integral
        // key.
        assertThat(values(
                        client.listPartitionsByFilter("sales", "nums", "n = '__HIVE_DEFAULT_PARTITION__'", (short) -1)))
                .containsExactly("__HIVE_DEFAULT_PARTITION__");
        assertThatThrownBy(() -> client.listPartitionsByFilter("sales", "nums", "n like '1%'", (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Filtering is supported only on partition keys of type string");
    }

    private static List<String> values(List<Partition> partitions) {
        return partitions.stream().map(p -> p.getValues().get(0)).toList();
    }

    private static ColumnStatisticsObj longStats(String column, long low, long high, long nulls, long distinct) {
        LongColumnStatsData data = new LongColumnStatsData(nulls, distinct);
        data.setLowValue(low);
        data.setHighValue(high);
        return new ColumnStatisticsObj(column, "bigint", ColumnStatisticsData.longStats(data));
    }

    @Test
    void columnStatistics() throws Exception {
        Table t = table("stats", List.of(new FieldSchema("ds", "string", null)));
        client.createTable(t);
        t = client.getTable("sales", "stats");
        client.add_partitions(new ArrayList<>(List.of(partition(t, "a"), partition(t, "b"), partition(t, "c"))));

        ColumnStatisticsDesc tableDesc = new ColumnStatisticsDesc(true, "sales", "stats");
        ColumnStatistics tableStats = new ColumnStatistics(
                tableDesc,
                List.of(
                        longStats("id", 1, 500, 0, 450),
                        new ColumnStatisticsObj(
                                "name",
                                "string",
                                ColumnStatisticsData.stringStats(new StringColumnStatsData(12, 5.5, 3, 40)))));
        tableStats.setEngine("hive");
        assertThat(client.updateTableColumnStatistics(tableStats)).isTrue();
        List<ColumnStatisticsObj> read =
                client.getTableColumnStatistics("sales", "stats", List.of("id", "name", "nope"), "hive");
        assertThat(read).extracting(ColumnStatisticsObj::getColName).containsExactly("id", "name");
        assertThat(read.get(0).getStatsData().getLongStats().getHighValue()).isEqualTo(500);
        assertThat(read.get(1).getStatsData().getStringStats().getAvgColLen()).isEqualTo(5.5);

        ColumnStatistics bad = new ColumnStatistics(tableDesc, List.of(longStats("nope", 1, 2, 0, 1)));
        bad.setEngine("hive");
        assertThatThrownBy(() -> client.updateTableColumnStatistics(bad))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Column nope does not exist");

        long[][] perPartition = {{1, 100, 2, 50}, {-5, 80, 0, 70}, {10, 300, 1, 20}};
        String[] parts = {"ds=a", "ds=b", "ds=c"};
        for (int i = 0; i < 3; i++) {
            ColumnStatisticsDesc desc = new ColumnStatisticsDesc(false, "sales", "stats");
            desc.setPartName(parts[i]);
            ColumnStatistics stats = new ColumnStatistics(
                    desc,
                    List.of(longStats(
                            "id", perPartition[i][0], perPartition[i][1], perPartition[i][2], perPartition[i][3])));
            stats.setEngine("hive");
            assertThat(client.updatePartitionColumnStatistics(stats)).isTrue();
        }
        Map<String, List<ColumnStatisticsObj>> byPartition = client.getPartitionColumnStatistics(
                "sales", "stats", List.of("ds=a", "ds=c", "ds=zz"), List.of("id"), "hive");
        assertThat(byPartition).containsOnlyKeys("ds=a", "ds=c");
        assertThat(byPartition.get("ds=c").get(0).getStatsData().getLongStats().getLowValue())
                .isEqualTo(10);

        AggrStats aggregate =
                client.getAggrColStatsFor("sales", "stats", List.of("id"), List.of("ds=a", "ds=b", "ds=c"), "hive");
        assertThat(aggregate.getPartsFound()).isEqualTo(3);
        LongColumnStatsData merged =
                aggregate.getColStats().get(0).getStatsData().getLongStats();
        assertThat(merged.getLowValue()).isEqualTo(-5);
        assertThat(merged.getHighValue()).isEqualTo(300);
        assertThat(merged.getNumNulls()).isEqualTo(3);
        assertThat(merged.getNumDVs()).isEqualTo(70);

        // Statistics survive an alter of the partition; a column deleted is gone.
        Partition a = client.getPartition("sales", "stats", List.of("a"));
        a.getParameters().put("numRows", "7");
        client.alter_partition("sales", "stats", a);
        assertThat(client.getPartitionColumnStatistics("sales", "stats", List.of("ds=a"), List.of("id"), "hive"))
                .containsKey("ds=a");
        assertThat(client.deletePartitionColumnStatistics("sales", "stats", "ds=a", "id", "hive"))
                .isTrue();
        assertThat(client.getPartitionColumnStatistics("sales", "stats", List.of("ds=a"), List.of("id"), "hive"))
                .isEmpty();
        // With a partition missing its statistics, the aggregate leaves the column out rather than guess.
        AggrStats partial =
                client.getAggrColStatsFor("sales", "stats", List.of("id"), List.of("ds=a", "ds=b", "ds=c"), "hive");
        assertThat(partial.getPartsFound()).isEqualTo(2);
        assertThat(partial.getColStats()).isEmpty();

        assertThat(client.deleteTableColumnStatistics("sales", "stats", "id", "hive"))
                .isTrue();
        assertThat(client.getTableColumnStatistics("sales", "stats", List.of("id", "name"), "hive"))
                .extracting(ColumnStatisticsObj::getColName)
                .containsExactly("name");
    }
}
