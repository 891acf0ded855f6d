package io.treecat.benchmarks.hms;

import io.treecat.benchmarks.peers.HivePeer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * The objects and filters of the HMS benchmark, built the same way for both servers (only the
 * locations differ, each under its own server's warehouse).
 *
 * <p>One external Parquet table {@code bench.events} partitioned by {@code dt} (a day,
 * {@code YYYY-MM-DD}, {@value #DAYS} days from 2020-01-01) and {@code bucket} ({@code 000}…). Both
 * keys are strings, the type every HMS filter path handles (Hive's JDO fallback refuses filters on
 * integer keys unless told otherwise). 10,000 partitions are {@value #DAYS} days × 10 buckets;
 * 100,000 add buckets 010–099 to every day.
 */
final class HmsWorkload {
    static final String DATABASE = "bench";
    static final String TABLE = "events";
    static final int DAYS = 1000;
    static final int WIDE_DAYS = 100;
    private static final LocalDate FIRST_DAY = LocalDate.of(2020, 1, 1);

    private HmsWorkload() {}

    static String day(int index) {
        return FIRST_DAY.plusDays(index).toString();
    }

    static String bucket(int index) {
        return String.format("%03d", index);
    }

    static Database database(String location) {
        Database database = new Database(DATABASE, "HMS benchmark", location, new HashMap<>());
        database.setOwnerName("bench");
        return database;
    }

    static Table table(String location) {
        StorageDescriptor sd = storage(location);
        Table table = new Table();
        table.setDbName(DATABASE);
        table.setTableName(TABLE);
        table.setOwner("bench");
        table.setCreateTime((int) (System.currentTimeMillis() / 1000));
        table.setSd(sd);
        table.setPartitionKeys(
                List.of(new FieldSchema("dt", "string", null), new FieldSchema("bucket", "string", null)));
        Map<String, String> parameters = new HashMap<>();
        parameters.put("EXTERNAL", "TRUE");
        table.setParameters(parameters);
        table.setTableType("EXTERNAL_TABLE");
        return table;
    }

    private static StorageDescriptor storage(String location) {
        return HivePeer.parquetStorage(
                List.of(
                        new FieldSchema("id", "bigint", null),
                        new FieldSchema("payload", "string", null),
                        new FieldSchema("amount", "double", null)),
                location);
    }

    /** Partition {@code (dt=day(d), bucket=bucket(b))}, its directory under the table's location. */
    static Partition partition(String tableLocation, int day, int bucket) {
        String dt = day(day);
        String b = bucket(bucket);
        Partition partition = new Partition();
        partition.setDbName(DATABASE);
        partition.setTableName(TABLE);
        partition.setValues(List.of(dt, b));
        partition.setSd(storage(tableLocation + "/dt=" + dt + "/bucket=" + b));
        partition.setParameters(new HashMap<>());
        int now = (int) (System.currentTimeMillis() / 1000);
        partition.setCreateTime(now);
        partition.setLastAccessTime(now);
        return partition;
    }

    /** The (day, bucket) pairs that take the table from {@code from} to {@code to} partitions, in load order. */
    static List<int[]> keys(int from, int to) {
        List<int[]> keys = new ArrayList<>();
        int fromBuckets = from / DAYS;
        int toBuckets = to / DAYS;
        if (from % DAYS != 0 || to % DAYS != 0) {
            throw new IllegalArgumentException("Sizes must be multiples of " + DAYS + ": " + from + ", " + to);
        }
        for (int day = 0; day < DAYS; day++) {
            for (int bucket = fromBuckets; bucket < toBuckets; bucket++) {
                keys.add(new int[] {day, bucket});
            }
        }
        return keys;
    }

    /** A filter, the partitions it must return at a given size, and a check on each returned one. */
    record Filter(String text, int expected, java.util.function.Predicate<List<String>> matches) {}

    /** One partition: a given day and bucket. Call {@code i} rotates through days and buckets. */
    static Filter narrow(int i, int partitions) {
        int buckets = partitions / DAYS;
        String dt = day((i * 37) % DAYS);
        String b = bucket((i * 7) % buckets);
        return new Filter(
                "dt = '" + dt + "' and bucket = '" + b + "'",
                1,
                values -> values.get(0).equals(dt) && values.get(1).equals(b));
    }

    /** One day: every bucket of it (10 or 100 partitions). */
    static Filter day(int i, int partitions) {
        String dt = day((i * 37) % DAYS);
        return new Filter(
                "dt = '" + dt + "'", partitions / DAYS, values -> values.get(0).equals(dt));
    }

    /** {@value #WIDE_DAYS} days, a tenth of the table (1,000 or 10,000 partitions). */
    static Filter wide(int i, int partitions) {
        int start = (i * 97) % (DAYS - WIDE_DAYS);
        String low = day(start);
        String high = day(start + WIDE_DAYS);
        return new Filter(
                "dt >= '" + low + "' and dt < '" + high + "'",
                WIDE_DAYS * (partitions / DAYS),
                values -> values.get(0).compareTo(low) >= 0 && values.get(0).compareTo(high) < 0);
    }
}
