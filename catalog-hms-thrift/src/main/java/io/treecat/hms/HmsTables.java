package io.treecat.hms;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A Hive {@link Table} on a TreeCat table object (DESIGN §7). The object keeps {@code obj_type=table},
 * {@code table_type} (Hive's type, or {@code ICEBERG}), {@code location}, {@code metadata_location}
 * for Iceberg tables (the field the Iceberg REST side reads and swaps), and the whole Hive struct,
 * Thrift-binary encoded, in {@code hms_table}, so every field round-trips. The top-level
 * {@code metadata_location} wins over the struct's copy, so a REST commit is seen by Hive clients.
 *
 * <p>A table object without {@code hms_table} was created over REST: Hive clients see it as Iceberg's
 * own HiveCatalog stores a table, {@code EXTERNAL_TABLE} with parameters {@code table_type=ICEBERG}
 * and {@code metadata_location}.
 */
final class HmsTables {
  static final String OBJ_TYPE = "obj_type";
  static final String TABLE = "table";
  static final String TABLE_TYPE = "table_type";
  static final String LOCATION = "location";
  static final String METADATA_LOCATION = "metadata_location";
  static final String HMS_TABLE = "hms_table";
  static final String ICEBERG = "ICEBERG";
  static final String EXTERNAL_TABLE = "EXTERNAL_TABLE";

  private HmsTables() {}

  static boolean isIceberg(Table table) {
    return table.getParameters() != null && ICEBERG.equalsIgnoreCase(table.getParameters().get(TABLE_TYPE));
  }

  /** The object value for {@code table}, keeping fields of {@code previous} (if any) that are not Hive's. */
  static BsonDocument value(Table table, BsonDocument previous) throws MetaException {
    BsonDocument value = new BsonDocument();
    if (previous != null) {
      value.putAll(previous); // stored values are immutable RawBsonDocuments
    }
    value.put(OBJ_TYPE, new BsonString(TABLE));
    value.put(TABLE_TYPE, new BsonString(isIceberg(table) ? ICEBERG : String.valueOf(table.getTableType())));
    if (table.getSd() != null && table.getSd().getLocation() != null) {
      value.put(LOCATION, new BsonString(table.getSd().getLocation()));
    }
    String metadataLocation = table.getParameters() == null ? null : table.getParameters().get(METADATA_LOCATION);
    if (metadataLocation != null) {
      value.put(METADATA_LOCATION, new BsonString(metadataLocation));
    } else {
      value.remove(METADATA_LOCATION);
    }
    try {
      value.put(HMS_TABLE, new BsonBinary(new TSerializer(new TBinaryProtocol.Factory()).serialize(table)));
    } catch (TException e) {
      throw new MetaException("Cannot encode table " + table.getDbName() + "." + table.getTableName() + ": " + e.getMessage());
    }
    return value;
  }

  /** The Hive table a table object stands for. */
  static Table table(String db, String name, BsonDocument value) throws MetaException {
    Table table;
    BsonValue encoded = value.get(HMS_TABLE);
    if (encoded != null && encoded.isBinary()) {
      table = new Table();
      try {
        new TDeserializer(new TBinaryProtocol.Factory()).deserialize(table, encoded.asBinary().getData());
      } catch (TException e) {
        throw new MetaException("Cannot decode the stored table " + db + "." + name + ": " + e.getMessage());
      }
    } else {
      table = icebergTable(value);
    }
    table.setDbName(db);
    table.setTableName(name);
    table.setCatName(HmsNames.HIVE_CATALOG);
    String metadataLocation = string(value, METADATA_LOCATION);
    if (metadataLocation != null) {
      if (table.getParameters() == null) {
        table.setParameters(new HashMap<>());
      }
      table.getParameters().put(METADATA_LOCATION, metadataLocation);
    }
    return table;
  }

  /** A table made over REST, as Iceberg's HiveCatalog would have registered it. */
  private static Table icebergTable(BsonDocument value) {
    Map<String, String> parameters = new HashMap<>();
    parameters.put(TABLE_TYPE, ICEBERG);
    parameters.put("EXTERNAL", "TRUE");
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(List.of());
    sd.setLocation(string(value, LOCATION));
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

  static String string(BsonDocument value, String key) {
    BsonValue v = value.get(key);
    return v != null && v.isString() ? v.asString().getValue() : null;
  }
}
