package io.treecat.hms;

import io.treecat.core.error.CatalogException;
import io.treecat.lakehouse.catalog.HiveNames;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;

/**
 * The translation between a Hive {@link Table} and the lake's {@link TableEntry} (DESIGN §7). The
 * entry keeps Hive's type (or {@value LakeKeys#ICEBERG_TABLE_TYPE}), the location, the Iceberg
 * pointer for Iceberg tables (the field the Iceberg REST side reads and swaps), and the whole Hive
 * struct in {@link TableEntry#hiveTable()}, so every field round-trips. The entry's pointer wins over
 * the struct's copy, so a REST commit is seen by Hive clients.
 *
 * <p>An entry without a Hive struct was created over REST: Hive clients see it as Iceberg's own
 * HiveCatalog stores a table, {@code EXTERNAL_TABLE} with parameters {@code table_type=ICEBERG} and
 * {@code metadata_location}.
 */
final class HmsTables {
    static final String EXTERNAL_TABLE = "EXTERNAL_TABLE";
    /** Hive's table parameter holding a table's comment. */
    static final String COMMENT = "comment";

    private HmsTables() {}

    /** Whether a Hive table is an Iceberg table: Iceberg's HiveCatalog marks it with a parameter. */
    static boolean isIceberg(Table table) {
        return table.getParameters() != null
                && LakeKeys.ICEBERG_TABLE_TYPE.equalsIgnoreCase(
                        table.getParameters().get(LakeKeys.TABLE_TYPE));
    }

    /** The Iceberg pointer a Hive table's parameters carry; null for none. */
    static String metadataLocation(Table table) {
        return table.getParameters() == null ? null : table.getParameters().get(LakeKeys.METADATA_LOCATION);
    }

    /** The entry for {@code table}: a new one, or {@code previous} with Hive's fields replaced and the rest (REST's, statistics) kept. */
    static TableEntry entry(Table table, TableEntry previous) throws MetaException {
        byte[] struct = HmsStructs.encode(table, "table " + table.getDbName() + "." + table.getTableName());
        String type = isIceberg(table) ? LakeKeys.ICEBERG_TABLE_TYPE : String.valueOf(table.getTableType());
        String location = table.getSd() == null ? null : table.getSd().getLocation();
        return previous == null
                ? TableEntry.hive(struct, type, location, metadataLocation(table))
                : previous.withHive(struct, type, location, metadataLocation(table));
    }

    /**
     * Hive's checks of a new or altered table's columns and partition keys ({@link HiveNames#checkColumns}), answered
     * as Hive 4.0.1 answers them: a name given twice as its store's unique key failing, a MetaException; the rest
     * with the call's own type ({@code invalid}: InvalidObjectException on create, InvalidOperationException on
     * alter). Partition keys are checked when {@code withKeys}.
     */
    static void checkColumns(Table table, boolean withKeys, Function<String, TException> invalid) throws TException {
        try {
            HiveNames.checkColumns(
                    columns(table.getSd() == null ? null : table.getSd().getCols()),
                    withKeys ? columns(table.getPartitionKeys()) : List.of());
        } catch (CatalogException e) {
            if (HiveNames.NAMED_TWICE.equals(e.context().get(HiveNames.PROBLEM))) {
                throw new MetaException(e.getMessage());
            }
            throw invalid.apply(e.getMessage());
        }
    }

    /** A table's location; null for none (a view, a table without a storage descriptor). */
    static String location(Table table) {
        return table.getSd() == null ? null : table.getSd().getLocation();
    }

    /** Columns (or partition keys) as the lake's Hive name rule reads them ({@link HiveNames#checkColumns}); null: none. */
    static List<HiveNames.Column> columns(List<FieldSchema> fields) {
        if (fields == null) {
            return List.of();
        }
        List<HiveNames.Column> columns = new ArrayList<>(fields.size());
        for (FieldSchema field : fields) {
            columns.add(field == null ? null : new HiveNames.Column(field.getName(), field.getType()));
        }
        return columns;
    }

    /** The Hive table an entry stands for. */
    static Table table(String db, String name, TableEntry entry) throws MetaException {
        return table(db, name, entry.hiveView());
    }

    /** The Hive table a stored table's {@link TableEntry.HiveView} stands for. */
    static Table table(String db, String name, TableEntry.HiveView entry) throws MetaException {
        Table table = entry.hiveTable() != null
                ? HmsStructs.decode(new Table(), entry.hiveTable(), "the stored table " + db + "." + name)
                : icebergTable(entry.location());
        table.setDbName(db);
        table.setTableName(name);
        table.setCatName(HmsNames.HIVE_CATALOG);
        if (entry.metadataLocation() != null) {
            if (table.getParameters() == null) {
                table.setParameters(new HashMap<>());
            }
            table.getParameters().put(LakeKeys.METADATA_LOCATION, entry.metadataLocation());
        }
        return table;
    }

    /** A table made over REST, as Iceberg's HiveCatalog would have registered it. */
    private static Table icebergTable(String location) {
        Map<String, String> parameters = new HashMap<>();
        parameters.put(LakeKeys.TABLE_TYPE, LakeKeys.ICEBERG_TABLE_TYPE);
        parameters.put(HmsDataFiles.EXTERNAL, "TRUE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of());
        sd.setLocation(location);
        sd.setInputFormat("org.apache.hadoop.mapred.FileInputFormat");
        sd.setOutputFormat("org.apache.hadoop.mapred.FileOutputFormat");
        sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setParameters(new HashMap<>());
        Table table = new Table();
        table.setTableType(EXTERNAL_TABLE);
        table.setParameters(parameters);
        table.setSd(sd);
        table.setPartitionKeys(List.of());
        table.setOwner("");
        return table;
    }
}
