package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetFieldsRequest;
import org.apache.hadoop.hive.metastore.api.GetFieldsResponse;
import org.apache.hadoop.hive.metastore.api.GetSchemaRequest;
import org.apache.hadoop.hive.metastore.api.GetSchemaResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.apache.thrift.TException;

/**
 * A table's columns as DESCRIBE asks for them ({@code get_fields}: the storage descriptor's columns;
 * {@code get_schema}: those and then the partition keys), with Hive's answers: the table name may carry a column
 * path ({@code t.col}: only {@code t} counts), an unknown database or table is an {@code UnknownTableException}
 * (Hive's store finds no table either way), and a table whose SerDe does not keep its schema in the metastore is a
 * {@code MetaException}: Hive asks the SerDe, which a metastore without the SerDe's classes (Hive's standalone one, and
 * this one) cannot load. The SerDes that keep their schema in the metastore are Hive 4's default list, Iceberg's
 * included; a table made over Iceberg REST shows Hive's {@code LazySimpleSerDe} and no columns ({@link HmsTables}).
 */
final class HmsSchemaCalls {
    /** Hive 4's {@code metastore.serdes.using.metastore.for.schema} default. */
    static final Set<String> METASTORE_SCHEMA_SERDES = Set.of(
            "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
            "org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe",
            "org.apache.hadoop.hive.serde2.MetadataTypedColumnsetSerDe",
            "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe",
            "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            "org.apache.hadoop.hive.serde2.lazybinary.LazyBinarySerDe",
            "org.apache.hadoop.hive.serde2.OpenCSVSerde",
            "org.apache.iceberg.mr.hive.HiveIcebergSerDe");

    private final HmsCalls calls;

    HmsSchemaCalls(HmsCalls calls) {
        this.calls = requireNonNull(calls, "calls is null");
    }

    public List<FieldSchema> get_fields(String db, String tableName) throws TException {
        return fields(db, tableName, false);
    }

    public List<FieldSchema> get_fields_with_environment_context(
            String db, String tableName, EnvironmentContext context) throws TException {
        return fields(db, tableName, false);
    }

    public GetFieldsResponse get_fields_req(GetFieldsRequest request) throws TException {
        calls.names().checkCatalog(request.getCatName());
        return new GetFieldsResponse(fields(request.getDbName(), request.getTblName(), false));
    }

    public List<FieldSchema> get_schema(String db, String tableName) throws TException {
        return fields(db, tableName, true);
    }

    public List<FieldSchema> get_schema_with_environment_context(
            String db, String tableName, EnvironmentContext context) throws TException {
        return fields(db, tableName, true);
    }

    public GetSchemaResponse get_schema_req(GetSchemaRequest request) throws TException {
        calls.names().checkCatalog(request.getCatName());
        return new GetSchemaResponse(fields(request.getDbName(), request.getTblName(), true));
    }

    private List<FieldSchema> fields(String dbName, String tableName, boolean withPartitionKeys) throws TException {
        if (tableName == null) {
            throw new MetaException("No table name given");
        }
        // Hive reads the table name up to the first '.': DESCRIBE t.col asks for t.
        String base = tableName.split("\\.", -1)[0];
        String db;
        try {
            db = calls.db(dbName);
        } catch (NoSuchObjectException e) {
            throw new UnknownTableException(dbName + "." + base + " table not found");
        }
        String name = HmsNames.normalize(base);
        if (name.isEmpty() || !HmsNames.fits(db) || !HmsNames.fits(name)) {
            throw new UnknownTableException(HmsNames.HIVE_CATALOG + "." + db + "." + name + " table not found");
        }
        Table table = calls.read(Action.LOAD_TABLE, calls.tablePath(db, name), txn -> {
            try {
                return calls.requireTable(txn, db, name);
            } catch (NoSuchObjectException e) {
                throw new UnknownTableException(HmsNames.HIVE_CATALOG + "." + db + "." + name + " table not found");
            }
        });
        List<FieldSchema> fields = new ArrayList<>(columns(table));
        if (withPartitionKeys && table.getPartitionKeys() != null) {
            fields.addAll(table.getPartitionKeys());
        }
        return fields;
    }

    /** The columns the metastore keeps, unless only the table's SerDe knows them. */
    private static List<FieldSchema> columns(Table table) throws MetaException {
        if (table.getSd() == null) {
            throw new MetaException(
                    "Table " + table.getDbName() + "." + table.getTableName() + " has no storage descriptor");
        }
        String serde = table.getSd().getSerdeInfo() == null
                ? null
                : table.getSd().getSerdeInfo().getSerializationLib();
        if (serde != null && !METASTORE_SCHEMA_SERDES.contains(serde)) {
            throw new MetaException("Storage schema reading not supported: the columns of " + table.getDbName() + "."
                    + table.getTableName() + " are known to its SerDe " + serde
                    + ", which this metastore does not run");
        }
        return table.getSd().getCols() == null ? List.of() : table.getSd().getCols();
    }
}
