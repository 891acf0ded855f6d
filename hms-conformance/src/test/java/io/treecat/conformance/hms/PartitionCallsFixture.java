package io.treecat.conformance.hms;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionListComposingSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpecWithSharedSD;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.PartitionWithoutSD;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TException;

/**
 * The tables of {@link PartitionCallsDifferentialIT}, created identically on both sides in database {@value #DB}, and
 * the requests and specs its calls send. {@code vals} (keys {@code region string, yr int}; 12 partitions whose values
 * Hive does not escape), {@code escaped} (a value Hive escapes), {@code flat} (no partition keys), {@code grouped}
 * (grouping enabled; a partition of another input format and one outside the table), {@code specs} (empty, for
 * {@code add_partitions_pspec}), {@code src}, {@code dst}, {@code othercols}, {@code otherkeys} (for exchanges).
 */
final class PartitionCallsFixture {
    static final String DB = "pcalls";
    static final FieldSchema REGION = new FieldSchema("region", "string", null);
    static final FieldSchema YR = new FieldSchema("yr", "int", null);

    private PartitionCallsFixture() {}

    static void create(Differential differential) {
        differential.setUp("create_database " + DB, (client, peer) -> {
            client.create_database(new Database(DB, "partition calls", null, new HashMap<>()));
            return null;
        });
        createTable(differential, table("vals", List.of(REGION, YR), Map.of()));
        List<Partition> vals = new ArrayList<>();
        for (String region : List.of("a", "b", "us", "us_east")) {
            for (String yr : List.of("9", "10", "2024")) {
                vals.add(partition("vals", region, yr));
            }
        }
        differential.setUp("add_partitions vals", (client, peer) -> client.add_partitions(vals));
        createTable(differential, table("escaped", List.of(REGION), Map.of()));
        differential.setUp(
                "add_partitions escaped",
                (client, peer) ->
                        client.add_partitions(List.of(partition("escaped", "50%off"), partition("escaped", "plain"))));
        createTable(differential, table("flat", List.of(), Map.of()));
        createTable(
                differential,
                table("grouped", List.of(REGION, YR), Map.of("hive.hcatalog.partition.spec.grouping.enabled", "true")));
        differential.setUp("add_partitions grouped", (client, peer) -> {
            Partition otherFormat = partition("grouped", "f", "1");
            otherFormat.getSd().setInputFormat("org.example.OtherInputFormat");
            Partition elsewhere = partition("grouped", "o", "1");
            elsewhere.getSd().setLocation(PartitionShapes.location(client, DB, "grouped") + "_elsewhere/o");
            return client.add_partitions(
                    List.of(partition("grouped", "a", "1"), partition("grouped", "a", "2"), otherFormat, elsewhere));
        });
        createTable(differential, table("specs", List.of(REGION, YR), Map.of()));
        for (String name : List.of("src", "dst")) {
            createTable(differential, table(name, List.of(REGION, YR), Map.of()));
        }
        Table otherColumns = table("othercols", List.of(REGION, YR), Map.of());
        otherColumns.getSd().setCols(List.of(new FieldSchema("id", "string", null)));
        createTable(differential, otherColumns);
        createTable(differential, table("otherkeys", List.of(REGION, new FieldSchema("day", "int", null)), Map.of()));
        differential.setUp(
                "add_partitions src",
                (client, peer) -> client.add_partitions(List.of(
                        partition("src", "eu", "1"),
                        partition("src", "eu", "2"),
                        partition("src", "us", "1"),
                        partition("src", "w", "1"),
                        partition("src", "z", "1"))));
        differential.setUp(
                "add_partitions dst", (client, peer) -> client.add_partitions(List.of(partition("dst", "z", "1"))));
    }

    static void createTable(Differential differential, Table table) {
        differential.setUp("create_table " + table.getTableName(), (client, peer) -> {
            client.create_table(table);
            return null;
        });
    }

    static Table table(String name, List<FieldSchema> keys, Map<String, String> parameters) {
        Table table = PartitionedTable.table();
        table.setDbName(DB);
        table.setTableName(name);
        table.setPartitionKeys(keys);
        table.setTableType("MANAGED_TABLE");
        table.setParameters(new HashMap<>(parameters));
        return table;
    }

    static Partition partition(String table, String... values) {
        Partition partition =
                PartitionedTable.partitions(List.of(List.of(values))).get(0);
        partition.setDbName(DB);
        partition.setTableName(table);
        partition.setCatName("hive");
        return partition;
    }

    static PartitionValuesRequest values(String table, FieldSchema... keys) {
        return new PartitionValuesRequest(DB, table, List.of(keys));
    }

    /** A list spec for table {@code specs} (as the client sends it: catalog set on the spec and each partition). */
    static PartitionSpec list(Partition... partitions) {
        return list("specs", partitions);
    }

    static PartitionSpec list(String table, Partition... partitions) {
        PartitionSpec spec = new PartitionSpec(DB, table, null);
        spec.setCatName("hive");
        spec.setPartitionList(new PartitionListComposingSpec(List.of(partitions)));
        return spec;
    }

    /** A shared-descriptor spec for table {@code specs} on this server: pairs of values and relative paths. */
    static PartitionSpec shared(ThriftHiveMetastore.Client client, Object... valuesAndPaths) throws TException {
        String root = PartitionShapes.location(client, DB, "specs");
        StorageDescriptor sd = partition("specs", "x", "1").getSd();
        sd.setLocation(root);
        List<PartitionWithoutSD> members = new ArrayList<>();
        for (int i = 0; i < valuesAndPaths.length; i += 2) {
            PartitionWithoutSD member = new PartitionWithoutSD();
            @SuppressWarnings("unchecked")
            List<String> values = (List<String>) valuesAndPaths[i];
            member.setValues(values);
            member.setRelativePath((String) valuesAndPaths[i + 1]);
            member.setParameters(new HashMap<>(Map.of("origin", "pspec")));
            members.add(member);
        }
        PartitionSpec spec = new PartitionSpec(DB, "specs", root);
        spec.setCatName("hive");
        spec.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(members, sd));
        return spec;
    }

    static void createDirectories(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void writeString(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path directory(ThriftHiveMetastore.Client client, String table) throws TException {
        return Path.of(URI.create(PartitionShapes.location(client, DB, table)));
    }
}
