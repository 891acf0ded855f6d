package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionListComposingSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpecWithSharedSD;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRow;
import org.apache.hadoop.hive.metastore.api.PartitionWithoutSD;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.partition.spec.PartitionSpecProxy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Partition specs ({@code get_partitions_pspec}, {@code get_part_specs_by_filter}, {@code add_partitions_pspec}) and
 * {@code get_partition_values} through Hive 4.1's {@code HiveMetaStoreClient}, and the forms it hides over raw Thrift:
 * Hive's answer shapes, its grouping of partitions under a shared storage descriptor, and its exceptions for bad input.
 */
class TestHivePartitionSpecs {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;
    private ThriftHiveMetastore.Client thrift;
    private static final FieldSchema REGION = new FieldSchema("region", "string", null);
    private static final FieldSchema YR = new FieldSchema("yr", "int", null);

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        thrift = hms.client();
        client.createDatabase(new Database("sales", null, null, new HashMap<>()));
        client.createTable(table("events", Map.of()));
        client.add_partitions(new ArrayList<>(List.of(
                partition("events", "eu", "2024"),
                partition("events", "us", "9"),
                partition("events", "us", "10"),
                partition("events", "us-east", "9"),
                partition("events", "50%off", "10"))));
    }

    static Table table(String name, Map<String, String> parameters) {
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(List.of(REGION, YR));
        table.setParameters(new HashMap<>(parameters));
        return table;
    }

    private Partition partition(String table, String... values) {
        Partition partition = new Partition();
        partition.setDbName("sales");
        partition.setTableName(table);
        partition.setValues(new ArrayList<>(List.of(values)));
        partition.setParameters(new HashMap<>());
        return partition;
    }

    private String location(String table) throws Exception {
        return client.getTable("sales", table).getSd().getLocation();
    }

    private static List<List<String>> values(PartitionSpecProxy specs) {
        List<List<String>> values = new ArrayList<>();
        PartitionSpecProxy.PartitionIterator partitions = specs.getPartitionIterator();
        while (partitions.hasNext()) {
            values.add(partitions.next().getValues());
        }
        return values;
    }

    private static List<List<String>> rows(List<PartitionValuesRow> rows) {
        return rows.stream().map(PartitionValuesRow::getRow).toList();
    }

    @Test
    void theCallsAreServed() {
        // A signature that does not match the Iface exactly would silently stay UNKNOWN_METHOD.
        assertThat(TreeCatHmsServer.servedCalls())
                .contains(
                        "get_partitions_pspec",
                        "get_part_specs_by_filter",
                        "add_partitions_pspec",
                        "get_partition_values",
                        "exchange_partition",
                        "exchange_partitions");
    }

    @Test
    void specsAreOneListOfEveryPartitionRootedAtTheTable() throws Exception {
        List<PartitionSpec> specs = thrift.get_partitions_pspec("SALES", "Events", -1);
        assertThat(specs).hasSize(1);
        PartitionSpec spec = specs.get(0);
        assertThat(spec.getCatName()).isEqualTo("hive");
        assertThat(spec.getDbName()).isEqualTo("sales");
        assertThat(spec.getTableName()).isEqualTo("events");
        assertThat(spec.getRootPath()).isEqualTo(location("events"));
        assertThat(spec.isSetSharedSDPartitionSpec()).isFalse();
        assertThat(spec.getPartitionList().getPartitions())
                .extracting(Partition::getValues)
                .containsExactlyInAnyOrder(
                        List.of("eu", "2024"),
                        List.of("us", "9"),
                        List.of("us", "10"),
                        List.of("us-east", "9"),
                        List.of("50%off", "10"));
        assertThat(values(client.listPartitionSpecs("sales", "events", 2))).hasSize(2);
    }

    @Test
    void specsByFilterUseHivesFilterLanguage() throws Exception {
        assertThat(values(client.listPartitionSpecsByFilter("sales", "events", "yr < 10 and region like 'us%'", -1)))
                .containsExactlyInAnyOrder(List.of("us", "9"), List.of("us-east", "9"));
        // Hive names the spec for the table as asked.
        assertThat(thrift.get_part_specs_by_filter("sales", "EVENTS", "yr = 10", -1)
                        .get(0)
                        .getTableName())
                .isEqualTo("EVENTS");
        assertThat(values(client.listPartitionSpecsByFilter("sales", "events", null, -1)))
                .hasSize(5);
        assertThatThrownBy(() -> client.listPartitionSpecsByFilter("sales", "events", "yr = = 1", -1))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Error parsing partition filter at position 6");
        assertThatThrownBy(() -> client.listPartitionSpecsByFilter("sales", "events", "nokey = 1", -1))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("'nokey' is not a partition key of the table");
    }

    @Test
    void groupingSharesTheTablesDescriptorWithRelativePaths() throws Exception {
        client.createTable(table("grouped", Map.of(HmsPartitionSpecs.GROUPING_ENABLED, "true")));
        String root = location("grouped");
        Partition elsewhere = partition("grouped", "o", "1");
        elsewhere.setSd(client.getTable("sales", "grouped").getSd().deepCopy());
        elsewhere
                .getSd()
                .setLocation(hms.directory().resolve("elsewhere").toUri().toString());
        Partition otherFormat = partition("grouped", "f", "1");
        otherFormat.setSd(client.getTable("sales", "grouped").getSd().deepCopy());
        otherFormat.getSd().setLocation(null);
        otherFormat.getSd().setInputFormat("org.example.OtherInputFormat");
        client.add_partitions(new ArrayList<>(
                List.of(partition("grouped", "a", "1"), partition("grouped", "a", "2"), elsewhere, otherFormat)));

        List<PartitionSpec> specs = thrift.get_partitions_pspec("sales", "grouped", -1);
        assertThat(specs).hasSize(3);
        PartitionSpec shared = specs.stream()
                .filter(spec -> spec.isSetSharedSDPartitionSpec()
                        && spec.getSharedSDPartitionSpec().getPartitionsSize() == 2)
                .findFirst()
                .orElseThrow();
        assertThat(shared.getRootPath()).isEqualTo(root);
        assertThat(shared.getSharedSDPartitionSpec().getSd().getLocation()).isEqualTo(root);
        assertThat(shared.getSharedSDPartitionSpec().getPartitions())
                .extracting(PartitionWithoutSD::getRelativePath)
                .containsExactlyInAnyOrder("/region=a/yr=1", "/region=a/yr=2");
        PartitionSpec other = specs.stream()
                .filter(spec -> spec.isSetSharedSDPartitionSpec()
                        && spec.getSharedSDPartitionSpec().getPartitionsSize() == 1)
                .findFirst()
                .orElseThrow();
        assertThat(other.getSharedSDPartitionSpec().getSd().getInputFormat()).isEqualTo("org.example.OtherInputFormat");
        PartitionSpec list = specs.stream()
                .filter(PartitionSpec::isSetPartitionList)
                .findFirst()
                .orElseThrow();
        assertThat(list.isSetRootPath()).isFalse();
        assertThat(list.getPartitionList().getPartitions())
                .extracting(Partition::getValues)
                .containsExactly(List.of("o", "1"));
        // Through the client, the proxy turns the specs back into the partitions with their full locations.
        PartitionSpecProxy.PartitionIterator partitions =
                client.listPartitionSpecs("sales", "grouped", -1).getPartitionIterator();
        List<String> locations = new ArrayList<>();
        while (partitions.hasNext()) {
            locations.add(partitions.next().getSd().getLocation());
        }
        assertThat(locations).contains(root + "/region=a/yr=1", root + "/region=f/yr=1");
    }

    @Test
    void addsPartitionsOfSharedAndListSpecsInOneCall() throws Exception {
        client.createTable(table("loaded", Map.of()));
        String root = location("loaded");
        StorageDescriptor sd = client.getTable("sales", "loaded").getSd().deepCopy();
        PartitionSpec shared = new PartitionSpec("sales", "loaded", root);
        shared.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(
                List.of(member(List.of("eu", "1"), "/region=eu/yr=1"), member(List.of("eu", "2"), "/custom")), sd));
        PartitionSpec list = new PartitionSpec("sales", "loaded", null);
        list.setPartitionList(new PartitionListComposingSpec(List.of(partition("loaded", "us", "1"))));
        assertThat(client.add_partitions_pspec(PartitionSpecProxy.Factory.get(List.of(shared, list))))
                .isEqualTo(3);
        assertThat(client.getPartition("sales", "loaded", List.of("eu", "2"))
                        .getSd()
                        .getLocation())
                .isEqualTo(root + "/custom");
        assertThat(client.getPartition("sales", "loaded", List.of("us", "1"))
                        .getSd()
                        .getLocation())
                .isEqualTo(root + "/region=us/yr=1");
        assertThat(java.nio.file.Path.of(java.net.URI.create(root + "/custom"))).isDirectory();
        assertThat(thrift.add_partitions_pspec(List.of())).isZero();
    }

    private static PartitionWithoutSD member(List<String> values, String relativePath) {
        PartitionWithoutSD member = new PartitionWithoutSD();
        member.setValues(values);
        member.setRelativePath(relativePath);
        member.setParameters(new HashMap<>());
        return member;
    }

    @Test
    void addRefusesWhatHiveRefusesAndAddsNothing() throws Exception {
        PartitionSpec existing = listSpec("events", partition("events", "new", "1"), partition("events", "eu", "2024"));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(existing)))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessageStartingWith("Partition already exists: Partition(values:[eu, 2024]");
        PartitionSpec duplicate = listSpec("events", partition("events", "d", "1"), partition("events", "d", "1"));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(duplicate)))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Duplicate partitions in the list: Partition(values:[d, 1]");
        PartitionSpec otherTable = listSpec("events", partition("other", "x", "1"));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(otherTable)))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith(
                        "Partition does not belong to target table hive.sales.events. It belongs to the table sales.other");
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(listSpec("nope", partition("nope", "x", "1")))))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("Unable to add partitions because hive.sales.nope does not exist");
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(listSpec("events", partition("events", "x")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid partition key & values; keys [region, yr], values [x]");
        PartitionSpec noDescriptor = new PartitionSpec("sales", "events", null);
        noDescriptor.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(List.of(), null));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(noDescriptor)))
                .isInstanceOf(MetaException.class)
                .hasMessage("The shared storage descriptor must be set.");
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(new PartitionSpec("sales", "events", null))))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("A partition spec needs a partition list or a shared storage descriptor");
        PartitionSpec noNames = new PartitionSpec();
        noNames.setPartitionList(new PartitionListComposingSpec(List.of(partition("events", "x", "1"))));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(noNames)))
                .isInstanceOf(MetaException.class)
                .hasMessage("The database and table name cannot be null.");
        PartitionSpec noValues = new PartitionSpec("sales", "events", null);
        noValues.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(
                List.of(member(null, "/x")), client.getTable("sales", "events").getSd()));
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(noValues)))
                .isInstanceOf(MetaException.class)
                .hasMessage("The partition values cannot be null or empty.");
        assertThat(client.listPartitionNames("sales", "events", (short) -1)).hasSize(5);
    }

    private static PartitionSpec listSpec(String table, Partition... partitions) {
        PartitionSpec spec = new PartitionSpec("sales", table, null);
        spec.setPartitionList(new PartitionListComposingSpec(List.of(partitions)));
        return spec;
    }

    @Test
    void valuesWithoutFilterAreTheKeysAskedDistinctAndSorted() throws Exception {
        PartitionValuesRequest request = new PartitionValuesRequest("sales", "events", List.of(REGION));
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(List.of("50%off"), List.of("eu"), List.of("us"), List.of("us-east"));
        request.setPartitionKeys(List.of(YR, new FieldSchema("REGION", "string", null)));
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(
                        List.of("10", "50%off"),
                        List.of("10", "us"),
                        List.of("2024", "eu"),
                        List.of("9", "us"),
                        List.of("9", "us-east"));
        request.setPartitionKeys(List.of(YR));
        request.setApplyDistinct(false);
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactlyInAnyOrder(List.of("10"), List.of("10"), List.of("2024"), List.of("9"), List.of("9"));
        request.setApplyDistinct(true);
        request.setMaxParts(2);
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(List.of("10"), List.of("2024"));
    }

    @Test
    void valuesWithFilterAreWholeRowsInNameOrder() throws Exception {
        PartitionValuesRequest request = new PartitionValuesRequest("sales", "events", List.of(REGION));
        request.setFilter("region > 'a'");
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(
                        List.of("eu", "2024"), List.of("us-east", "9"), List.of("us", "10"), List.of("us", "9"));
        request.setAscending(false);
        request.setMaxParts(2);
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(List.of("us", "9"), List.of("us", "10"));
        // A filter on an integral key: Hive's fallback takes the first ones in ascending order, then reverses them.
        request.setFilter("yr > 0");
        assertThat(rows(client.listPartitionValues(request).getPartitionValues()))
                .containsExactly(List.of("eu", "2024"), List.of("50%off", "10"));
        request.setMaxParts(0);
        assertThat(client.listPartitionValues(request).getPartitionValues()).isEmpty();
    }

    @Test
    void valuesRefuseWithMetaExceptions() throws Exception {
        PartitionValuesRequest unknownTable = new PartitionValuesRequest("sales", "nope", List.of(REGION));
        assertThatThrownBy(() -> client.listPartitionValues(unknownTable))
                .isInstanceOf(MetaException.class)
                .hasMessage("sales.nope table not found");
        PartitionValuesRequest badFilter = new PartitionValuesRequest("sales", "events", List.of(REGION));
        badFilter.setFilter("region = = 'x'");
        assertThatThrownBy(() -> client.listPartitionValues(badFilter))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith(
                        "Error retrieving partition values: Error parsing partition filter at position 10");
        PartitionValuesRequest noKey =
                new PartitionValuesRequest("sales", "events", List.of(new FieldSchema("nokey", "string", null)));
        assertThatThrownBy(() -> client.listPartitionValues(noKey))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error retrieving partition values: 'nokey' is not a partition key of the table"
                        + " (its keys are [region, yr])");
        PartitionValuesRequest noKeys = new PartitionValuesRequest("sales", "events", List.of());
        assertThatThrownBy(() -> thrift.get_partition_values(noKeys))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error retrieving partition values: no partition keys asked");
        PartitionValuesRequest otherCatalog = new PartitionValuesRequest("sales", "events", List.of(REGION));
        otherCatalog.setCatName("elsewhere");
        assertThatThrownBy(() -> thrift.get_partition_values(otherCatalog))
                .isInstanceOf(MetaException.class)
                // An unknown catalog reads as empty, as on Hive: its tables are not found.
                .hasMessage("sales.events table not found");
    }

    @Test
    void badNamesAndUnknownTablesGetHivesExceptionsAndTheServerStaysUp() throws Exception {
        assertThatThrownBy(() -> thrift.get_partitions_pspec("sales", "nope", -1))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("sales.nope table not found");
        assertThatThrownBy(() -> thrift.get_partitions_pspec("sales", null, -1))
                .isInstanceOf(MetaException.class)
                .hasMessage("No table name given");
        assertThatThrownBy(() -> thrift.get_part_specs_by_filter(null, "events", "yr = 1", -1))
                .isInstanceOf(MetaException.class)
                .hasMessage("Database name cannot be null.");
        String huge = "t".repeat(200_000);
        assertThatThrownBy(() -> thrift.get_part_specs_by_filter("sales", huge, "yr = 1", -1))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid path: id 3 is longer than 4096 bytes");
        assertThatThrownBy(
                        () -> thrift.get_partition_values(new PartitionValuesRequest(huge, "events", List.of(REGION))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid path: id 2 is longer than 4096 bytes");
        assertThatThrownBy(() -> thrift.add_partitions_pspec(List.of(listSpec(huge, partition(huge, "x", "1")))))
                .isInstanceOf(InvalidObjectException.class);
        // A table without partition keys: an empty spec, as Hive answers.
        Table flat = table("flat", Map.of());
        flat.setPartitionKeys(List.of());
        client.createTable(flat);
        assertThat(thrift.get_partitions_pspec("sales", "flat", -1)
                        .get(0)
                        .getPartitionList()
                        .getPartitions())
                .isEmpty();
        assertThat(client.listPartitionNames("sales", "events", (short) -1)).hasSize(5);
    }
}
