package io.treecat.hms;

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
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code exchange_partition(s)} through Hive 4.1's {@code HiveMetaStoreClient} (raw Thrift for what the client cannot
 * send): the partitions and their directory move from the source table to the destination, and every condition Hive
 * checks refuses with Hive's MetaException and changes nothing, neither metadata nor files.
 */
class TestHiveExchangePartitions {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;
    private ThriftHiveMetastore.Client thrift;

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        thrift = hms.client();
        client.createDatabase(new Database("sales", null, null, new HashMap<>()));
        client.createTable(TestHivePartitionSpecs.table("src", Map.of()));
        client.createTable(TestHivePartitionSpecs.table("dst", Map.of()));
        Partition withStats = partition("src", "eu", "1");
        withStats.getParameters().put("numRows", "7");
        client.add_partitions(
                new ArrayList<>(List.of(withStats, partition("src", "eu", "2"), partition("src", "us", "1"))));
        Files.writeString(dir("src").resolve("region=eu/yr=1/data.txt"), "hello");
    }

    private static Partition partition(String table, String... values) {
        Partition partition = new Partition();
        partition.setDbName("sales");
        partition.setTableName(table);
        partition.setValues(new ArrayList<>(List.of(values)));
        partition.setParameters(new HashMap<>());
        return partition;
    }

    private Path dir(String table) throws Exception {
        return Path.of(URI.create(client.getTable("sales", table).getSd().getLocation()));
    }

    private List<String> names(String table) throws Exception {
        return client.listPartitionNames("sales", table, (short) -1);
    }

    @Test
    void movesThePartitionsOfAPartialSpecAndTheirDirectory() throws Exception {
        List<Partition> moved = client.exchange_partitions(Map.of("region", "eu"), "sales", "src", "sales", "dst");
        String dst = client.getTable("sales", "dst").getSd().getLocation();
        assertThat(moved)
                .extracting(
                        Partition::getValues,
                        Partition::getTableName,
                        partition -> partition.getSd().getLocation())
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(List.of("eu", "1"), "dst", dst + "/region=eu/yr=1"),
                        org.assertj.core.groups.Tuple.tuple(List.of("eu", "2"), "dst", dst + "/region=eu/yr=2"));
        assertThat(names("src")).containsExactly("region=us/yr=1");
        assertThat(names("dst")).containsExactly("region=eu/yr=1", "region=eu/yr=2");
        Partition exchanged = client.getPartition("sales", "dst", List.of("eu", "1"));
        assertThat(exchanged.getParameters()).containsEntry("numRows", "7");
        assertThat(exchanged.getSd().getLocation()).isEqualTo(dst + "/region=eu/yr=1");
        assertThat(dir("dst").resolve("region=eu/yr=1/data.txt")).hasContent("hello");
        assertThat(dir("src").resolve("region=eu")).doesNotExist();
        assertThat(dir("src").resolve("region=us/yr=1")).isDirectory();

        // The single form moves one partition and answers an empty Partition, as Hive's does.
        Partition answer = client.exchange_partition(Map.of("region", "us", "yr", "1"), "sales", "src", "sales", "dst");
        assertThat(answer).isEqualTo(new Partition());
        assertThat(names("src")).isEmpty();
        assertThat(names("dst")).containsExactly("region=eu/yr=1", "region=eu/yr=2", "region=us/yr=1");
        assertThat(dir("dst").resolve("region=us/yr=1")).isDirectory();
        // As in Hive, only the spec's directory moves; its emptied parent stays.
        assertThat(dir("src").resolve("region=us/yr=1")).doesNotExist();
    }

    @Test
    void refusesWhatHiveRefusesAndChangesNothing() throws Exception {
        Table otherColumns = TestHivePartitionSpecs.table("othercols", Map.of());
        otherColumns.getSd().setCols(List.of(new FieldSchema("id", "string", null)));
        client.createTable(otherColumns);
        Table otherKeys = TestHivePartitionSpecs.table("otherkeys", Map.of());
        otherKeys.setPartitionKeys(
                List.of(new FieldSchema("region", "string", null), new FieldSchema("day", "int", null)));
        client.createTable(otherKeys);
        client.add_partition(partition("dst", "us", "1"));

        String differentSchemas = "The tables have different schemas. Their partitions cannot be exchanged.";
        assertRefused(Map.of("region", "eu"), "src", "othercols", differentSchemas);
        assertRefused(Map.of("region", "eu"), "src", "otherkeys", differentSchemas);
        assertRefused(
                Map.of("region", "xx"),
                "src",
                "othercols",
                "No partition is found with the values {region=xx} for the table src");
        assertRefused(
                Map.of("region", "us"), "src", "dst", "The partition region=us/yr=1 already exists in the table dst");
        assertRefused(Map.of("region", "eu"), "src", "nope", "The destination table hive.sales.nope not found");
        assertRefused(Map.of("region", "eu"), "nope", "dst", "The source table hive.sales.nope not found");
        assertRefused(Map.of(), "src", "dst", "Invalid partition key & values; keys [], values []");
        assertRefused(Map.of("REGION", "eu"), "src", "dst", "Invalid partition key & values; keys [], values []");
        assertRefused(
                Map.of("region", "eu"), "src", "src", "The partition region=eu/yr=1 already exists in the table src");
        // As in Hive, the directory that moves is the spec's: with only yr given it is src/yr=2, which does not exist.
        assertRefused(
                Map.of("yr", "2"),
                "src",
                "dst",
                "Got exception: java.io.FileNotFoundException File "
                        + client.getTable("sales", "src").getSd().getLocation() + "/yr=2 does not exist");
        Files.createDirectories(dir("dst").resolve("region=eu"));
        assertRefused(
                Map.of("region", "eu"),
                "src",
                "dst",
                "Got exception: java.io.IOException Cannot rename the source path. The destination path already exists.");

        assertThatThrownBy(() -> thrift.exchange_partitions(null, "sales", "src", "sales", "dst"))
                .isInstanceOf(MetaException.class)
                .hasMessage("The DB and table name for the source and destination tables, and the partition specs must"
                        + " not be null.");
        assertThatThrownBy(() -> thrift.exchange_partitions(Map.of("region", "eu"), "sales", null, "sales", "dst"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("The DB and table name");
        assertThatThrownBy(() ->
                        thrift.exchange_partitions(Map.of("region", "eu"), "@hive#sales", "src", "@other#sales", "dst"))
                .isInstanceOf(MetaException.class)
                .hasMessage("You cannot move a partition across catalogs");
        String huge = "t".repeat(200_000);
        assertThatThrownBy(() -> thrift.exchange_partitions(Map.of("region", "eu"), "sales", huge, "sales", "dst"))
                // Not found, as Hive's lookup answers; the name cut in the message.
                .isInstanceOf(MetaException.class)
                .hasMessage("The source table hive.sales." + "t".repeat(32) + "… (200000 characters) not found");

        assertThat(names("src")).containsExactly("region=eu/yr=1", "region=eu/yr=2", "region=us/yr=1");
        assertThat(names("dst")).containsExactly("region=us/yr=1");
        assertThat(dir("src").resolve("region=eu/yr=1/data.txt")).hasContent("hello");
    }

    private void assertRefused(Map<String, String> spec, String source, String dest, String message) {
        assertThatThrownBy(() -> client.exchange_partitions(spec, "sales", source, "sales", dest))
                .isInstanceOf(MetaException.class)
                .hasMessage(message);
    }

    @Test
    void aMoveThatFailsAfterTheCommitSaysWhereTheDataIs() throws Exception {
        // The destination's directory is a file: the checks pass (nothing is at dst/region=eu), the rename cannot.
        Path dst = dir("dst");
        Files.delete(dst);
        Files.writeString(dst, "not a directory");
        String src = client.getTable("sales", "src").getSd().getLocation();
        String target = client.getTable("sales", "dst").getSd().getLocation() + "/region=eu";
        assertThatThrownBy(() -> client.exchange_partitions(Map.of("region", "eu"), "sales", "src", "sales", "dst"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("The partitions were exchanged to sales.dst, but moving their data from " + src
                        + "/region=eu to " + target + " failed (")
                .hasMessageEndingWith("): the data is still at " + src + "/region=eu; move it there by hand");
        assertThat(names("dst")).containsExactly("region=eu/yr=1", "region=eu/yr=2");
        assertThat(names("src")).containsExactly("region=us/yr=1");
        assertThat(dir("src").resolve("region=eu/yr=1/data.txt")).hasContent("hello");
    }
}
