package io.treecat.benchmarks;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import java.io.IOException;
import java.io.Writer;
import java.time.LocalDate;
import java.util.List;
import java.util.SplittableRandom;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * A deterministic catalog shaped like the paper's TPC-DS experiment (§6): one database {@code
 * /tpcds}, the fact tables {@code store_sales} and {@code catalog_sales}, one inner object per sale
 * date ({@code date=YYYY-MM-DD}, with {@code part_val}), and under each date {@value
 * #FILES_PER_PARTITION} data-file leaves with a location, a size, a record count and per-column
 * min/max statistics.
 *
 * <p>{@code store_sales} has {@value #STORE_SALES_DAYS} days from 1998-01-01, so 499,776 files;
 * {@code catalog_sales} holds the rest of the {@value #LEAVES} leaves, its last day partly filled.
 * Objects come parents first and, within a parent, in id order, as {@code BulkLoader} needs.
 */
public final class TpcdsCatalog {
    public static final int FILES_PER_PARTITION = 456;
    public static final int STORE_SALES_DAYS = 1096;
    public static final long LEAVES = 1_000_000;
    public static final LocalDate FIRST_DAY = LocalDate.of(1998, 1, 1);
    public static final String DATABASE = "tpcds";
    public static final String STORE_SALES = "store_sales";
    public static final String CATALOG_SALES = "catalog_sales";
    /** TPC-DS {@code d_date_sk} of 1998-01-01. */
    private static final long FIRST_DATE_SK = 2_450_815;

    /** Receives the generated objects in load order. */
    @FunctionalInterface
    public interface ObjectSink {
        void accept(ObjectPath path, ObjectKind kind, BsonDocument value);
    }

    private record Table(String name, String prefix, List<String> columns, long files) {}

    private static final Table STORE_SALES_TABLE = new Table(
            STORE_SALES,
            "ss",
            List.of(
                    "ss_sold_date_sk",
                    "ss_item_sk",
                    "ss_customer_sk",
                    "ss_store_sk",
                    "ss_quantity",
                    "ss_sales_price",
                    "ss_net_profit"),
            (long) STORE_SALES_DAYS * FILES_PER_PARTITION);
    private static final Table CATALOG_SALES_TABLE = new Table(
            CATALOG_SALES,
            "cs",
            List.of(
                    "cs_sold_date_sk",
                    "cs_item_sk",
                    "cs_bill_customer_sk",
                    "cs_call_center_sk",
                    "cs_quantity",
                    "cs_sales_price",
                    "cs_net_profit"),
            LEAVES - (long) STORE_SALES_DAYS * FILES_PER_PARTITION);

    private TpcdsCatalog() {}

    /** Leaves plus inner objects (database, tables, date partitions). */
    public static long objectCount() {
        return LEAVES + 1 + 2 + days(STORE_SALES_TABLE) + days(CATALOG_SALES_TABLE);
    }

    public static long storeSalesFiles() {
        return STORE_SALES_TABLE.files();
    }

    public static String partitionId(LocalDate day) {
        return "date=" + day;
    }

    public static ObjectPath partitionPath(String table, LocalDate day) {
        return ObjectPath.of(DATABASE, table, partitionId(day));
    }

    /** Emits every object, parents first. */
    public static void generate(ObjectSink sink) {
        requireNonNull(sink, "sink is null");
        ObjectPath database = ObjectPath.of(DATABASE);
        sink.accept(
                database,
                ObjectKind.INNER,
                new BsonDocument("obj_type", new BsonString("database"))
                        .append("owner", new BsonString("lake_admin"))
                        .append("location", new BsonString("s3://tpcds-lake/")));
        // Tables in id order: catalog_sales sorts before store_sales.
        for (Table table : List.of(CATALOG_SALES_TABLE, STORE_SALES_TABLE)) {
            generateTable(sink, database, table);
        }
    }

    private static long days(Table table) {
        return (table.files() + FILES_PER_PARTITION - 1) / FILES_PER_PARTITION;
    }

    private static void generateTable(ObjectSink sink, ObjectPath database, Table table) {
        ObjectPath tablePath = database.child(table.name());
        sink.accept(
                tablePath,
                ObjectKind.INNER,
                new BsonDocument("obj_type", new BsonString("table"))
                        .append("format", new BsonString("parquet"))
                        .append("location", new BsonString("s3://tpcds-lake/" + table.name() + "/"))
                        .append("partition_key", new BsonString(table.prefix() + "_sold_date")));
        SplittableRandom random = new SplittableRandom(table.name().hashCode());
        long remaining = table.files();
        for (int day = 0; remaining > 0; day++) {
            LocalDate date = FIRST_DAY.plusDays(day);
            ObjectPath partition = tablePath.child(partitionId(date));
            sink.accept(
                    partition,
                    ObjectKind.INNER,
                    new BsonDocument("obj_type", new BsonString("partition"))
                            .append("part_val", new BsonString(date.toString())));
            int files = (int) Math.min(FILES_PER_PARTITION, remaining);
            for (int file = 0; file < files; file++) {
                // Zero-padded so that id order is file order.
                String id = String.format("part-%05d-%016x.parquet", file, random.nextLong());
                sink.accept(partition.child(id), ObjectKind.LEAF, fileValue(table, date, day, id, random));
            }
            remaining -= files;
        }
    }

    private static BsonDocument fileValue(Table table, LocalDate date, int day, String id, SplittableRandom random) {
        long records = 50_000 + random.nextInt(250_000);
        long dateSk = FIRST_DATE_SK + day;
        int itemMin = 1 + random.nextInt(100_000);
        int customerMin = 1 + random.nextInt(1_000_000);
        int quantityMin = 1 + random.nextInt(10);
        double priceMin = random.nextInt(100) / 100.0;
        double profitMin = -random.nextInt(1_000_000) / 100.0;
        BsonDocument stats = new BsonDocument()
                .append(table.columns().get(0), minMax(new BsonInt64(dateSk), new BsonInt64(dateSk)))
                .append(
                        table.columns().get(1),
                        minMax(new BsonInt32(itemMin), new BsonInt32(itemMin + random.nextInt(200_000))))
                .append(
                        table.columns().get(2),
                        minMax(new BsonInt32(customerMin), new BsonInt32(customerMin + random.nextInt(2_000_000))))
                .append(
                        table.columns().get(3),
                        minMax(new BsonInt32(1 + random.nextInt(20)), new BsonInt32(20 + random.nextInt(1_000))))
                .append(table.columns().get(4), minMax(new BsonInt32(quantityMin), new BsonInt32(quantityMin + 90)))
                .append(
                        table.columns().get(5),
                        minMax(new BsonDouble(priceMin), new BsonDouble(priceMin + random.nextInt(30_000) / 100.0)))
                .append(
                        table.columns().get(6),
                        minMax(new BsonDouble(profitMin), new BsonDouble(random.nextInt(1_000_000) / 100.0)));
        return new BsonDocument("obj_type", new BsonString("file"))
                .append(
                        "location",
                        new BsonString("s3://tpcds-lake/" + table.name() + "/" + table.prefix() + "_sold_date=" + date
                                + "/" + id))
                .append("file_format", new BsonString("parquet"))
                .append("file_size", new BsonInt64(records * 48 + random.nextInt(1 << 20)))
                .append("record_count", new BsonInt64(records))
                .append("stats", stats);
    }

    private static BsonDocument minMax(org.bson.BsonValue min, org.bson.BsonValue max) {
        return new BsonDocument("min", min).append("max", max);
    }

    /** Writes the catalog as {@code BulkLoader} JSON lines (relaxed Extended JSON values). */
    public static void writeJsonLines(Writer out) throws IOException {
        JsonWriterSettings settings =
                JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
        IOException[] failure = new IOException[1];
        generate((path, kind, value) -> {
            if (failure[0] != null) {
                return;
            }
            try {
                out.write("{\"path\": \"");
                out.write(path.toString());
                out.write("\", \"kind\": \"");
                out.write(kind == ObjectKind.LEAF ? "leaf" : "inner");
                out.write("\", \"value\": ");
                out.write(value.toJson(settings));
                out.write("}\n");
            } catch (IOException e) {
                failure[0] = e;
            }
        });
        if (failure[0] != null) {
            throw failure[0];
        }
    }
}
