package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * The structs the differential ITs send both sides, built the way engines build them (Spark's and Trino's Hive
 * clients fill every storage-descriptor field). Each call builds a new struct: Thrift structs are mutable and a
 * server's answer must not depend on what the other side's call did to its argument.
 */
final class Structs {
    static final String OWNER = "differential";

    private Structs() {}

    static Database database(String name) {
        Database database =
                new Database(name, "a differential database", null, new HashMap<>(Map.of("purpose", "differential")));
        database.setOwnerName(OWNER);
        database.setOwnerType(PrincipalType.USER);
        return database;
    }

    /** An external Parquet table with columns {@code id bigint, payload string}, partitioned by {@code keys} (each {@code name type}). */
    static Table table(String db, String name, String... keys) {
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setOwner(OWNER);
        table.setSd(storage());
        List<FieldSchema> partitionKeys = new ArrayList<>();
        for (String key : keys) {
            String[] parts = key.split(" ");
            partitionKeys.add(new FieldSchema(parts[0], parts[1], null));
        }
        table.setPartitionKeys(partitionKeys);
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE", "comment", "a differential table")));
        table.setTableType("EXTERNAL_TABLE");
        return table;
    }

    static Partition partition(String db, String table, String... values) {
        Partition partition = new Partition();
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setValues(new ArrayList<>(List.of(values)));
        partition.setSd(storage());
        partition.setParameters(new HashMap<>());
        return partition;
    }

    static StorageDescriptor storage() {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(
                List.of(new FieldSchema("id", "bigint", "the key"), new FieldSchema("payload", "string", null))));
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
        sd.setStoredAsSubDirectories(false);
        return sd;
    }
}
