package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.txn.Transaction;
import io.treecat.core.version.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.GetAllFunctionsResponse;
import org.apache.hadoop.hive.metastore.api.GetFunctionsRequest;
import org.apache.hadoop.hive.metastore.api.GetFunctionsResponse;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Hive's permanent functions on the tree. A database's functions live under one reserved child of
 * the database, so they never share a level with its tables:
 *
 * <pre>
 * /&lt;catalog&gt;/&lt;db&gt;/.functions          obj_type=hms_functions, made with the first function, removed with the last
 * /&lt;catalog&gt;/&lt;db&gt;/.functions/&lt;fn&gt;     obj_type=function: class_name, function_type, owner, and
 *                                   hms_function, the whole Function struct Thrift-binary encoded
 * </pre>
 *
 * A Hive name is letters, digits and underscores, so {@code .functions} is never a Hive table; the
 * Iceberg REST side lists tables and namespaces by {@code obj_type}, so it never shows the container.
 * Dropping a database with cascade drops its functions with it (they are below it in the tree).
 * Each call is one TreeCat transaction through the handler's runner.
 */
final class HmsFunctions {
  static final String FUNCTIONS = ".functions";
  static final String CONTAINER = "hms_functions";
  static final String FUNCTION = "function";
  static final String HMS_FUNCTION = "hms_function";
  private static final Pattern NAME = Pattern.compile("[\\w_]+");

  private final TreeCatHmsHandler handler;

  HmsFunctions(TreeCatHmsHandler handler) {
    this.handler = requireNonNull(handler, "handler is null");
  }

  private ObjectPath container(String db) {
    return handler.dbPath(db).child(FUNCTIONS);
  }

  private ObjectPath path(String db, String name) {
    return container(db).child(name);
  }

  private static String name(String name) throws InvalidObjectException {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidObjectException("Invalid function name: '" + name + "' (letters, digits and underscores)");
    }
    return HmsNames.normalize(name);
  }

  void create(Function function) throws TException {
    if (function == null) {
      throw new InvalidObjectException("No function given");
    }
    handler.names().checkCatalog(function.getCatName());
    String db = handler.db(function.getDbName());
    String name = name(function.getFunctionName());
    if (function.getClassName() == null || function.getClassName().isEmpty()) {
      throw new InvalidObjectException("Function " + db + "." + name + " needs a class name");
    }
    Function created = function.deepCopy();
    created.setDbName(db);
    created.setFunctionName(name);
    created.setCatName(HmsNames.HIVE_CATALOG);
    if (created.getCreateTime() == 0) {
      created.setCreateTime((int) (System.currentTimeMillis() / 1000));
    }
    handler.write("create_function", (txn, writes) -> {
      handler.requireDatabase(txn, db);
      Optional<CatalogObject> container = handler.get(txn, container(db));
      if (container.isEmpty()) {
        writes.add(new WriteOp.Add(container(db), ObjectKind.INNER, new BsonDocument(HmsTables.OBJ_TYPE, new BsonString(CONTAINER))));
      } else if (handler.get(txn, path(db, name)).isPresent()) {
        throw new AlreadyExistsException("Function " + name + " already exists");
      }
      writes.add(new WriteOp.Add(path(db, name), ObjectKind.INNER, value(created)));
      return null;
    });
  }

  Function get(String dbName, String functionName) throws TException {
    String db = handler.db(dbName);
    String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
    return handler.read("get_function", (txn, writes) -> require(txn, db, name));
  }

  private Function require(Transaction txn, String db, String name) throws TException {
    Optional<CatalogObject> object = handler.get(txn, path(db, name));
    if (object.isEmpty() || !FUNCTION.equals(HmsTables.string(object.get().value(), HmsTables.OBJ_TYPE))) {
      throw new NoSuchObjectException("Function " + db + "." + name + " does not exist");
    }
    return function(db, name, object.get().value());
  }

  void drop(String dbName, String functionName) throws TException {
    String db = handler.db(dbName);
    String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
    handler.write("drop_function", (txn, writes) -> {
      require(txn, db, name);
      // The container goes with the last function, so an emptied database can be dropped without cascade.
      if (handler.children(txn, container(db), FUNCTION).size() == 1) {
        writes.add(new WriteOp.Remove(container(db)));
      } else {
        writes.add(new WriteOp.Remove(path(db, name)));
      }
      return null;
    });
  }

  /** Replaces the function; a new name or database in {@code newFunction} renames it (within the catalog). */
  void alter(String dbName, String functionName, Function newFunction) throws TException {
    if (newFunction == null) {
      throw new InvalidOperationException("No new function given");
    }
    String db = handler.db(dbName);
    String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
    String newDb = newFunction.getDbName() == null ? db : handler.db(newFunction.getDbName());
    String newName;
    try {
      newName = newFunction.getFunctionName() == null ? name : name(newFunction.getFunctionName());
    } catch (InvalidObjectException e) {
      throw new InvalidOperationException(e.getMessage());
    }
    if (newFunction.getClassName() == null || newFunction.getClassName().isEmpty()) {
      throw new InvalidOperationException("Function " + newDb + "." + newName + " needs a class name");
    }
    handler.write("alter_function", (txn, writes) -> {
      Optional<CatalogObject> object = handler.get(txn, path(db, name));
      if (object.isEmpty()) {
        // Hive's own message for this case.
        throw new MetaException("function " + name + " doesn't exist");
      }
      Function old = function(db, name, object.get().value());
      Function altered = newFunction.deepCopy();
      altered.setDbName(newDb);
      altered.setFunctionName(newName);
      altered.setCatName(HmsNames.HIVE_CATALOG);
      altered.setCreateTime(old.getCreateTime());
      if (newDb.equals(db) && newName.equals(name)) {
        writes.add(new WriteOp.Update(path(db, name), ObjectKind.INNER, value(altered)));
        return null;
      }
      handler.requireDatabase(txn, newDb);
      if (handler.get(txn, path(newDb, newName)).isPresent()) {
        throw new InvalidOperationException("Function " + newDb + "." + newName + " already exists");
      }
      if (handler.get(txn, container(newDb)).isEmpty()) {
        writes.add(new WriteOp.Add(container(newDb), ObjectKind.INNER, new BsonDocument(HmsTables.OBJ_TYPE, new BsonString(CONTAINER))));
      }
      if (!newDb.equals(db) && handler.children(txn, container(db), FUNCTION).size() == 1) {
        writes.add(new WriteOp.Remove(container(db)));
      } else {
        writes.add(new WriteOp.Remove(path(db, name)));
      }
      writes.add(new WriteOp.Add(path(newDb, newName), ObjectKind.INNER, value(altered)));
      return null;
    });
  }

  /** The names in {@code db} matching the Hive pattern, in id order; none for a missing database, as Hive answers. */
  List<String> names(String dbName, String pattern) throws TException {
    String db = handler.db(dbName);
    Pattern matcher = HmsNames.pattern(pattern);
    return handler.read("get_functions", (txn, writes) -> {
      List<String> result = new ArrayList<>();
      for (CatalogObject row : handler.children(txn, container(db), FUNCTION)) {
        if (matcher.matcher(row.id()).matches()) {
          result.add(row.id());
        }
      }
      return result;
    });
  }

  GetFunctionsResponse list(GetFunctionsRequest request) throws TException {
    handler.names().checkCatalog(request.getCatalogName());
    String db = handler.db(request.getDbName());
    Pattern matcher = HmsNames.pattern(request.getPattern());
    return handler.read("get_functions_req", (txn, writes) -> {
      GetFunctionsResponse response = new GetFunctionsResponse();
      for (CatalogObject row : handler.children(txn, container(db), FUNCTION)) {
        if (!matcher.matcher(row.id()).matches()) {
          continue;
        }
        if (request.isReturnNames()) {
          response.addToFunction_names(row.id());
        } else {
          response.addToFunctions(function(db, row.id(), row.value()));
        }
      }
      if (request.isReturnNames() && !response.isSetFunction_names()) {
        response.setFunction_names(new ArrayList<>());
      } else if (!request.isReturnNames() && !response.isSetFunctions()) {
        response.setFunctions(new ArrayList<>());
      }
      return response;
    });
  }

  /** Every function of every database of the catalog (Hive's {@code get_all_functions}). */
  GetAllFunctionsResponse all() throws TException {
    return handler.read("get_all_functions", (txn, writes) -> {
      List<Function> functions = new ArrayList<>();
      for (CatalogObject db : handler.children(txn, ObjectPath.of(handler.catalog()), TreeCatHmsHandler.NAMESPACE)) {
        for (CatalogObject row : handler.children(txn, container(db.id()), FUNCTION)) {
          functions.add(function(db.id(), row.id(), row.value()));
        }
      }
      GetAllFunctionsResponse response = new GetAllFunctionsResponse();
      response.setFunctions(functions);
      return response;
    });
  }

  private static BsonDocument value(Function function) throws MetaException {
    BsonDocument value = new BsonDocument(HmsTables.OBJ_TYPE, new BsonString(FUNCTION));
    value.put("class_name", new BsonString(function.getClassName()));
    if (function.getFunctionType() != null) {
      value.put("function_type", new BsonString(function.getFunctionType().name()));
    }
    if (function.getOwnerName() != null) {
      value.put("owner", new BsonString(function.getOwnerName()));
    }
    try {
      value.put(HMS_FUNCTION, new BsonBinary(new TSerializer(new TBinaryProtocol.Factory()).serialize(function)));
    } catch (TException e) {
      throw new MetaException("Cannot encode function " + function.getDbName() + "." + function.getFunctionName() + ": " + e.getMessage());
    }
    return value;
  }

  private static Function function(String db, String name, BsonDocument value) throws MetaException {
    BsonValue encoded = value.get(HMS_FUNCTION);
    if (encoded == null || !encoded.isBinary()) {
      throw new MetaException("The stored function " + db + "." + name + " has no " + HMS_FUNCTION);
    }
    Function function = new Function();
    try {
      new TDeserializer(new TBinaryProtocol.Factory()).deserialize(function, encoded.asBinary().getData());
    } catch (TException e) {
      throw new MetaException("Cannot decode the stored function " + db + "." + name + ": " + e.getMessage());
    }
    function.setDbName(db);
    function.setFunctionName(name);
    function.setCatName(HmsNames.HIVE_CATALOG);
    return function;
  }
}
