package io.treecat.benchmarks.concurrency;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * The metadata of a TPC-DS warehouse as the paper's concurrency experiment uses it (§6.1): the 24
 * tables of TPC-DS under {@code /tpcds}. The 7 fact tables hold one partition per sale date ({@code
 * date=YYYY-MM-DD}, with {@code part_val}) and data files with min/max statistics on their
 * customer and item keys; the 17 dimension tables hold data files with min/max statistics on their
 * business key ({@code stats.bk}). Key spaces are those of TPC-DS at scale factor 100.
 *
 * @param days sale dates per fact table, from {@link #FIRST_DAY}
 * @param filesPerPartition data files per fact partition at the start
 */
public record TpcdsMetadata(int days, int filesPerPartition) {
    public static final String DATABASE = "tpcds";
    public static final LocalDate FIRST_DAY = LocalDate.of(1998, 1, 2);
    public static final List<String> FACT_TABLES = List.of(
            "store_sales",
            "store_returns",
            "catalog_sales",
            "catalog_returns",
            "web_sales",
            "web_returns",
            "inventory");
    public static final List<String> DIMENSION_TABLES = List.of(
            "call_center",
            "catalog_page",
            "customer",
            "customer_address",
            "customer_demographics",
            "date_dim",
            "household_demographics",
            "income_band",
            "item",
            "promotion",
            "reason",
            "ship_mode",
            "store",
            "time_dim",
            "warehouse",
            "web_page",
            "web_site");
    /** Customers at scale factor 100. */
    public static final long CUSTOMERS = 2_000_000;
    /** Items at scale factor 100. */
    public static final long ITEMS = 204_000;
    /** Rows of the other dimensions, a round figure: they are small and rarely written. */
    public static final long OTHER_DIMENSION_ROWS = 10_000;

    static final long MEGABYTE = 1 << 20;
    /** Files smaller than this are what optimize merges. */
    static final long SMALL_FILE = 32 * MEGABYTE;

    private static final int FILES_PER_DIMENSION = 20;
    private static final int BATCH = 5_000;

    public TpcdsMetadata {
        if (days < 1 || filesPerPartition < 1) {
            throw new IllegalArgumentException("days and filesPerPartition must be positive");
        }
    }

    public static ObjectPath table(String name) {
        return ObjectPath.of(DATABASE, name);
    }

    public static String partition(LocalDate day) {
        return "date=" + day;
    }

    public LocalDate lastDay() {
        return FIRST_DAY.plusDays(days - 1);
    }

    static long keySpace(String dimension) {
        return switch (dimension) {
            case "customer" -> CUSTOMERS;
            case "item" -> ITEMS;
            default -> OTHER_DIMENSION_ROWS;
        };
    }

    /** A fact table's data file: its size, and the key ranges of the rows it holds. */
    static BsonDocument factFile(
            String location, long size, long customerMin, long customerMax, long itemMin, long itemMax) {
        BsonDocument stats = new BsonDocument()
                .append("customer_sk", range(customerMin, customerMax))
                .append("item_sk", range(itemMin, itemMax));
        return new BsonDocument("location", new BsonString(location))
                .append("size", new BsonInt64(size))
                .append("records", new BsonInt64(size / 100))
                .append("stats", stats);
    }

    static BsonDocument dimensionFile(String location, long size, long keyMin, long keyMax) {
        return new BsonDocument("location", new BsonString(location))
                .append("size", new BsonInt64(size))
                .append("records", new BsonInt64(keyMax - keyMin + 1))
                .append("stats", new BsonDocument("bk", range(keyMin, keyMax)));
    }

    static BsonDocument range(long min, long max) {
        return new BsonDocument("min", new BsonInt64(min)).append("max", new BsonInt64(max));
    }

    /** Writes the whole catalog into an empty service, in commits of a few thousand objects. */
    public void load(CatalogService catalog, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        catalog.commit(WriteSet.of(new WriteOp.Add(
                ObjectPath.of(DATABASE), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'database'}"))));
        List<WriteOp> batch = new ArrayList<>();
        for (String dimension : DIMENSION_TABLES) {
            batch.add(new WriteOp.Add(
                    table(dimension),
                    ObjectKind.INNER,
                    BsonDocument.parse("{obj_type: 'table', kind: 'dimension', files: " + FILES_PER_DIMENSION + "}")));
        }
        for (String fact : FACT_TABLES) {
            batch.add(new WriteOp.Add(
                    table(fact),
                    ObjectKind.INNER,
                    BsonDocument.parse(
                            "{obj_type: 'table', kind: 'fact', files: " + (long) days * filesPerPartition + "}")));
        }
        catalog.commit(new WriteSet(batch));
        batch = new ArrayList<>();
        for (String dimension : DIMENSION_TABLES) {
            long space = keySpace(dimension);
            long width = space / FILES_PER_DIMENSION;
            for (int f = 0; f < FILES_PER_DIMENSION; f++) {
                String id = String.format("f%05d", f);
                batch.add(new WriteOp.Add(
                        table(dimension).child(id),
                        ObjectKind.LEAF,
                        dimensionFile(
                                location(dimension, id),
                                64 * MEGABYTE + random.nextLong(64 * MEGABYTE),
                                f * width,
                                (f + 1) * width - 1)));
            }
        }
        catalog.commit(new WriteSet(batch));
        for (String fact : FACT_TABLES) {
            batch = new ArrayList<>();
            for (int d = 0; d < days; d++) {
                LocalDate day = FIRST_DAY.plusDays(d);
                batch.add(new WriteOp.Add(
                        table(fact).child(partition(day)),
                        ObjectKind.INNER,
                        new BsonDocument("part_val", new BsonString(day.toString()))));
            }
            catalog.commit(new WriteSet(batch));
            batch = new ArrayList<>();
            for (int d = 0; d < days; d++) {
                ObjectPath partition = table(fact).child(partition(FIRST_DAY.plusDays(d)));
                for (int f = 0; f < filesPerPartition; f++) {
                    String id = String.format("f%05d", f);
                    long customer = random.nextLong(CUSTOMERS);
                    long item = random.nextLong(ITEMS);
                    batch.add(new WriteOp.Add(
                            partition.child(id),
                            ObjectKind.LEAF,
                            factFile(
                                    location(fact, partition.id() + "/" + id),
                                    SMALL_FILE + random.nextLong(96 * MEGABYTE),
                                    customer,
                                    Math.min(CUSTOMERS - 1, customer + random.nextLong(CUSTOMERS / 10)),
                                    item,
                                    Math.min(ITEMS - 1, item + random.nextLong(ITEMS / 10)))));
                    if (batch.size() == BATCH) {
                        catalog.commit(new WriteSet(batch));
                        batch = new ArrayList<>();
                    }
                }
            }
            if (!batch.isEmpty()) {
                catalog.commit(new WriteSet(batch));
            }
        }
    }

    static String location(String table, String file) {
        return "s3://warehouse/tpcds/" + table + "/" + file + ".parquet";
    }
}
