package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.version.WriteOp;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.thrift.TException;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * {@code alter_database} (Iceberg's HiveCatalog {@code setProperties}/{@code removeProperties} on a
 * namespace) with Hive's merge rules: the parameters are replaced when given, the description,
 * location and owner when given, the rest kept. A database is not renamed. The result is the
 * namespace's {@code properties}, which the Iceberg REST side reads too.
 */
final class HmsDatabaseChanges {
  private final TreeCatHmsHandler handler;

  HmsDatabaseChanges(TreeCatHmsHandler handler) {
    this.handler = requireNonNull(handler, "handler is null");
  }

  void alter(String method, String dbName, Database changed) throws TException {
    if (changed == null) {
      throw new MetaException("No new database given");
    }
    String db = handler.db(dbName);
    if (changed.getName() != null && !changed.getName().isEmpty() && !HmsNames.normalize(changed.getName()).equals(db)) {
      throw new InvalidOperationException("A database cannot be renamed (" + db + " to " + changed.getName() + ")");
    }
    handler.write(method, (txn, writes) -> {
      Database old = handler.requireDatabase(txn, db);
      CatalogObject object = handler.get(txn, handler.dbPath(db)).orElseThrow();
      Map<String, String> parameters = changed.getParameters() != null ? changed.getParameters() : old.getParameters();
      BsonDocument properties = new BsonDocument();
      if (parameters != null) {
        parameters.forEach((k, v) -> properties.put(k, new BsonString(v)));
      }
      String description = notBlank(changed.getDescription()) ? changed.getDescription() : old.getDescription();
      if (description != null) {
        properties.put(TreeCatHmsHandler.COMMENT, new BsonString(description));
      }
      String location = notBlank(changed.getLocationUri()) ? changed.getLocationUri() : old.getLocationUri();
      properties.put(HmsTables.LOCATION, new BsonString(location));
      String owner = changed.getOwnerName() != null ? changed.getOwnerName() : old.getOwnerName();
      if (owner != null) {
        properties.put(TreeCatHmsHandler.OWNER, new BsonString(owner));
      }
      if (changed.getOwnerType() != null || old.getOwnerType() != null) {
        properties.put(TreeCatHmsHandler.OWNER_TYPE, new BsonString((changed.getOwnerType() != null ? changed.getOwnerType() : old.getOwnerType()).name()));
      }
      BsonDocument value = new BsonDocument();
      value.putAll(object.value());
      value.put(TreeCatHmsHandler.PROPERTIES, properties);
      writes.add(new WriteOp.Update(handler.dbPath(db), ObjectKind.INNER, value));
      return null;
    });
  }

  private static boolean notBlank(String value) {
    return value != null && !value.isBlank();
  }
}
