package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.partition;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionListComposingSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRow;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.partition.spec.PartitionSpecProxy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on partition specs ({@code get_partitions_pspec}, {@code get_part_specs_by_filter},
 * {@code add_partitions_pspec}, read and written through the client's {@code PartitionSpecProxy}), partition values
 * ({@code get_partition_values}, Hive 3.1's {@code PartitionValuesRequest}) and {@code exchange_partition(s)}.
 */
class Hive3PartitionSpecCallsIT {
    private static final String DB = "h3_specs";

    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void events() throws Exception {
        client = hms.client();
        raw = hms.thrift();
        client.createDatabase(database(DB));
        client.createTable(partitioned("events"));
        client.add_partitions(new ArrayList<>(List.of(
                partition(DB, "events", "eu", "1"),
                partition(DB, "events", "eu", "10"),
                partition(DB, "events", "us", "2"),
                partition(DB, "events", "us", "1"))));
    }

    private static org.apache.hadoop.hive.metastore.api.Table partitioned(String name) {
        return table(
                DB,
                name,
                TableType.EXTERNAL_TABLE,
                new FieldSchema("region", "string", null),
                new FieldSchema("yr", "int", null));
    }

    private static List<String> values(PartitionSpecProxy specs) throws Exception {
        List<String> values = new ArrayList<>();
        PartitionSpecProxy.PartitionIterator iterator = specs.getPartitionIterator();
        while (iterator.hasNext()) {
            values.add(String.join("/", iterator.next().getValues()));
        }
        return values;
    }

    private static List<String> names(String table) throws Exception {
        return client.listPartitionNames(DB, table, (short) -1);
    }

    @Test
    void specsListEveryPartitionRootedAtTheTable() throws Exception {
        PartitionSpecProxy specs = client.listPartitionSpecs(DB, "events", -1);
        assertThat(values(specs)).containsExactlyInAnyOrder("eu/1", "eu/10", "us/2", "us/1");
        List<PartitionSpec> thrift = specs.toPartitionSpec();
        assertThat(thrift).isNotEmpty();
        assertThat(thrift.get(0).getDbName()).isEqualTo(DB);
        assertThat(thrift.get(0).getTableName()).isEqualTo("events");
        assertThat(values(client.listPartitionSpecs(DB, "events", 2))).hasSize(2);
        assertThat(raw.get_partitions_pspec(DB, "events", -1)).isNotEmpty();
        assertThatThrownBy(() -> client.listPartitionSpecs(DB, "nope", -1))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage(DB + ".nope table not found");
    }

    @Test
    void specsByFilterUseHivesFilterLanguage() throws Exception {
        assertThat(values(client.listPartitionSpecsByFilter(DB, "events", "yr < 10 and region like 'u%'", -1)))
                .containsExactlyInAnyOrder("us/2", "us/1");
        assertThat(values(client.listPartitionSpecsByFilter(DB, "events", "yr = 10", -1)))
                .containsExactly("eu/10");
        assertThatThrownBy(() -> client.listPartitionSpecsByFilter(DB, "events", "yr = = 1", -1))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Error parsing partition filter");
        assertThat(raw.get_part_specs_by_filter(DB, "events", "region = 'eu'", -1))
                .isNotEmpty();
    }

    @Test
    void addsPartitionsOfAListSpec() throws Exception {
        client.createTable(partitioned("loaded"));
        PartitionSpec spec = new PartitionSpec(DB, "loaded", null);
        spec.setPartitionList(new PartitionListComposingSpec(
                new ArrayList<>(List.of(partition(DB, "loaded", "eu", "1"), partition(DB, "loaded", "us", "2")))));
        assertThat(client.add_partitions_pspec(PartitionSpecProxy.Factory.get(spec)))
                .isEqualTo(2);
        assertThat(names("loaded")).containsExactly("region=eu/yr=1", "region=us/yr=2");
        String root = client.getTable(DB, "loaded").getSd().getLocation();
        assertThat(client.getPartition(DB, "loaded", List.of("eu", "1")).getSd().getLocation())
                .isEqualTo(root + "/region=eu/yr=1");

        // A partition already there: refused, and nothing of the spec added.
        PartitionSpec again = new PartitionSpec(DB, "loaded", null);
        again.setPartitionList(new PartitionListComposingSpec(
                new ArrayList<>(List.of(partition(DB, "loaded", "eu", "7"), partition(DB, "loaded", "eu", "1")))));
        assertThatThrownBy(() -> client.add_partitions_pspec(PartitionSpecProxy.Factory.get(again)))
                .isInstanceOf(org.apache.hadoop.hive.metastore.api.AlreadyExistsException.class)
                .hasMessageStartingWith("Partition already exists");
        assertThat(names("loaded")).containsExactly("region=eu/yr=1", "region=us/yr=2");
    }

    private static List<String> rows(List<PartitionValuesRow> rows) {
        return rows.stream().map(row -> String.join("/", row.getRow())).toList();
    }

    @Test
    void partitionValuesWithAndWithoutAFilter() throws Exception {
        PartitionValuesRequest regions =
                new PartitionValuesRequest(DB, "events", List.of(new FieldSchema("region", "string", null)));
        assertThat(rows(client.listPartitionValues(regions).getPartitionValues()))
                .containsExactly("eu", "us");
        PartitionValuesRequest filtered = new PartitionValuesRequest(
                DB, "events", List.of(new FieldSchema("region", "string", null), new FieldSchema("yr", "int", null)));
        filtered.setFilter("yr >= 2");
        assertThat(rows(client.listPartitionValues(filtered).getPartitionValues()))
                .containsExactly("eu/10", "us/2");

        PartitionValuesRequest unknown =
                new PartitionValuesRequest(DB, "nope", List.of(new FieldSchema("region", "string", null)));
        assertThatThrownBy(() -> client.listPartitionValues(unknown))
                .isInstanceOf(MetaException.class)
                .hasMessage(DB + ".nope table not found");
        PartitionValuesRequest badFilter =
                new PartitionValuesRequest(DB, "events", List.of(new FieldSchema("region", "string", null)));
        badFilter.setFilter("yr = = 1");
        assertThatThrownBy(() -> client.listPartitionValues(badFilter))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Error parsing partition filter");
    }

    @Test
    void exchangeMovesPartitionsAndTheirDirectories() throws Exception {
        client.createTable(partitioned("src"));
        client.createTable(partitioned("dst"));
        client.add_partitions(new ArrayList<>(List.of(
                partition(DB, "src", "eu", "1"), partition(DB, "src", "eu", "2"), partition(DB, "src", "us", "1"))));
        Path source = Path.of(URI.create(client.getTable(DB, "src").getSd().getLocation()));
        Path destination = Path.of(URI.create(client.getTable(DB, "dst").getSd().getLocation()));
        Files.writeString(source.resolve("region=eu/yr=1/data.txt"), "hello");

        List<Partition> moved = client.exchange_partitions(Map.of("region", "eu"), DB, "src", DB, "dst");
        assertThat(moved)
                .extracting(Partition::getValues)
                .containsExactlyInAnyOrder(List.of("eu", "1"), List.of("eu", "2"));
        assertThat(names("src")).containsExactly("region=us/yr=1");
        assertThat(names("dst")).containsExactly("region=eu/yr=1", "region=eu/yr=2");
        assertThat(destination.resolve("region=eu/yr=1/data.txt")).hasContent("hello");
        assertThat(source.resolve("region=eu")).doesNotExist();

        client.exchange_partition(Map.of("region", "us", "yr", "1"), DB, "src", DB, "dst");
        assertThat(names("src")).isEmpty();
        assertThat(names("dst")).containsExactly("region=eu/yr=1", "region=eu/yr=2", "region=us/yr=1");

        assertThatThrownBy(() -> client.exchange_partition(Map.of("region", "eu"), DB, "dst", DB, "nope"))
                .isInstanceOf(MetaException.class)
                .hasMessage("The destination table hive." + DB + ".nope not found");
        assertThatThrownBy(() -> client.exchange_partitions(Map.of("region", "xx"), DB, "dst", DB, "src"))
                .isInstanceOf(MetaException.class)
                .hasMessage("No partition is found with the values {region=xx} for the table dst");
        assertThat(names("dst")).hasSize(3);
    }
}
