package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * The table of the partition-filter suite, created identically on both sides: {@code conformance.parts}, external,
 * partitioned by {@code region string}, {@code yr int} and {@code dt string} (a day, {@code yyyy-MM-dd}), with every
 * combination of {@link #REGIONS}, {@link #YEARS} and {@link #DAYS}, plus a few partitions holding Hive's default
 * partition value in one key. Locations are left to each server (each puts the table in its own warehouse), so only
 * names and values are compared.
 *
 * <p>The values are chosen to tell evaluators apart: {@code _} and {@code %} inside values (LIKE wildcards, and
 * {@code %} is escaped in partition names), upper and lower case, integers whose string order differs from their
 * numeric order ({@code 9 < 10}, {@code -1}), and days that compare the same as strings and as dates.
 */
final class PartitionedTable {
    static final String DATABASE = "conformance";
    static final String TABLE = "parts";
    static final String DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";
    static final List<String> KEYS = List.of("region", "yr", "dt");
    static final List<String> REGIONS = List.of("eu", "EU", "us", "us_east", "usXeast", "50%off", "50_off");
    static final List<String> YEARS = List.of("-1", "9", "10", "2023", "2024");
    static final List<String> DAYS = List.of("2023-12-31", "2024-01-01", "2024-01-15", "2024-02-29");
    /** One default value in each key; added apart from the rest, because a server may refuse them. */
    static final List<List<String>> DEFAULT_PARTITIONS = List.of(
            List.of(DEFAULT_PARTITION, "2024", "2024-01-01"),
            List.of("eu", DEFAULT_PARTITION, "2024-01-01"),
            List.of("us", DEFAULT_PARTITION, "2024-01-15"),
            List.of("us", "10", DEFAULT_PARTITION));

    private PartitionedTable() {}

    static Database database() {
        Database database = new Database(DATABASE, "differential tests", null, new HashMap<>());
        database.setOwnerName("conformance");
        return database;
    }

    static Table table() {
        Table table = new Table();
        table.setDbName(DATABASE);
        table.setTableName(TABLE);
        table.setOwner("conformance");
        table.setSd(storage());
        table.setPartitionKeys(List.of(
                new FieldSchema("region", "string", null),
                new FieldSchema("yr", "int", null),
                new FieldSchema("dt", "string", null)));
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE")));
        table.setTableType("EXTERNAL_TABLE");
        return table;
    }

    /** Every combination of region, year and day: the partitions both servers must accept. */
    static List<List<String>> regularValues() {
        List<List<String>> values = new ArrayList<>();
        for (String region : REGIONS) {
            for (String year : YEARS) {
                for (String day : DAYS) {
                    values.add(List.of(region, year, day));
                }
            }
        }
        return values;
    }

    static List<Partition> partitions(List<List<String>> values) {
        List<Partition> partitions = new ArrayList<>();
        for (List<String> partitionValues : values) {
            Partition partition = new Partition();
            partition.setDbName(DATABASE);
            partition.setTableName(TABLE);
            partition.setValues(new ArrayList<>(partitionValues));
            // No location: each server puts the partition under the table, escaping the name as it does.
            partition.setSd(storage());
            partition.setParameters(new HashMap<>());
            partitions.add(partition);
        }
        return partitions;
    }

    /** What the suite compares of a list of partitions: their names, built here from the values, sorted. */
    static List<String> names(Collection<Partition> partitions) {
        TreeSet<String> names = new TreeSet<>();
        for (Partition partition : partitions) {
            names.add(name(partition.getValues()));
        }
        return List.copyOf(names);
    }

    /** {@code region=eu/yr=9/dt=2024-01-01}, unescaped: readable in reports, and independent of a server's escaping. */
    static String name(List<String> values) {
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                name.append('/');
            }
            name.append(i < KEYS.size() ? KEYS.get(i) : "?").append('=').append(values.get(i));
        }
        return name.toString();
    }

    private static StorageDescriptor storage() {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null), new FieldSchema("payload", "string", null)));
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.setCompressed(false);
        sd.setNumBuckets(-1);
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
        serde.setParameters(new HashMap<>(Map.of("serialization.format", "1")));
        sd.setSerdeInfo(serde);
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setParameters(new HashMap<>());
        return sd;
    }
}
