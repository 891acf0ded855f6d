package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import com.facebook.fb303.fb_status;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.AlterDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.AlterTableRequest;
import org.apache.hadoop.hive.metastore.api.AlterTableResponse;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.CreateDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.CreateTableRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.DropTableRequest;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.GetAllFunctionsResponse;
import org.apache.hadoop.hive.metastore.api.GetDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.GetFunctionsRequest;
import org.apache.hadoop.hive.metastore.api.GetFunctionsResponse;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTableResult;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesResult;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.apache.hadoop.hive.metastore.api.UnknownDBException;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TException;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HMS calls TreeCat serves, on the tree (DESIGN §7). Every public method here that has the name
 * and parameter types of a call of {@code ThriftHiveMetastore.Iface} is served (through a proxy, so
 * this class needs none of the other 280-odd methods); {@link TreeCatHmsServer} answers every other
 * call with {@code TApplicationException(UNKNOWN_METHOD)}.
 *
 * <p>A database is a first-level namespace {@code /<catalog>/<db>} (obj_type=namespace, Iceberg's
 * {@code properties}: {@code comment}, {@code location}, owner keys, the Hive parameters). A table is
 * {@code /<catalog>/<db>/<table>} (see {@link HmsTables}). Each call is one TreeCat transaction that
 * reads what it checks through the transaction, so a concurrent writer of the same objects makes one
 * commit fail validation (COMMIT_CONFLICT, answered as a MetaException).
 */
final class TreeCatHmsHandler {
  private static final Logger LOG = LoggerFactory.getLogger(TreeCatHmsHandler.class);

  static final String NAMESPACE = "namespace";
  static final String CATALOG = "catalog";
  static final String PROPERTIES = "properties";
  static final String COMMENT = "comment";
  static final String OWNER = "hive.metastore.database.owner";
  static final String OWNER_TYPE = "hive.metastore.database.owner-type";
  static final String EXPECTED_KEY = "expected_parameter_key";
  static final String EXPECTED_VALUE = "expected_parameter_value";

  private final CatalogService service;
  private final String catalog;
  private final String warehouse;
  private final HmsNames names;
  private final HmsPartitionCalls partitionCalls;
  private final long aliveSince = System.currentTimeMillis() / 1000;
  private final HmsLocks locks;
  private final HmsFunctions functions;

  TreeCatHmsHandler(CatalogService service, HmsServerConfig config) {
    this.service = requireNonNull(service, "service is null");
    this.catalog = config.catalog();
    this.warehouse = config.warehouse();
    this.names = new HmsNames(config.catalog());
    this.partitionCalls = new HmsPartitionCalls(this, new HmsPartitions(service, config.catalog()), names);
    this.locks = new HmsLocks(Clock.systemUTC(), config.lockTimeout(), names);
    this.functions = new HmsFunctions(this);
  }

  // ---- plumbing

  @FunctionalInterface
  interface Body<T> {
    T apply(Transaction txn, List<WriteOp> writes) throws Exception;
  }

  /** Runs one call as one transaction: writes the body adds are committed, none means read-only. */
  private <T> T call(String method, TransactionMode mode, Body<T> body) throws TException {
    Transaction txn;
    try {
      txn = service.begin(mode, ReadPoint.LATEST);
    } catch (RuntimeException e) {
      throw HmsErrors.map(method, e);
    }
    boolean committed = false;
    try {
      List<WriteOp> writes = new ArrayList<>();
      T result = body.apply(txn, writes);
      if (!writes.isEmpty()) {
        service.commit(txn.id(), new WriteSet(writes));
        committed = true;
      }
      return result;
    } catch (Exception e) {
      throw HmsErrors.map(method, e);
    } finally {
      if (!committed) {
        try {
          service.abort(txn.id());
        } catch (RuntimeException e) {
          LOG.debug("Abort of {} failed", txn.id(), e);
        }
      }
    }
  }

  <T> T read(String method, Body<T> body) throws TException {
    return call(method, TransactionMode.READ_ONLY, body);
  }

  <T> T write(String method, Body<T> body) throws TException {
    return call(method, TransactionMode.READ_WRITE, body);
  }

  Optional<CatalogObject> get(Transaction txn, ObjectPath path) {
    return service.get(txn.id(), path);
  }

  static boolean isType(Optional<CatalogObject> object, String type) {
    return object.isPresent() && type.equals(HmsTables.string(object.get().value(), HmsTables.OBJ_TYPE));
  }

  ObjectPath dbPath(String db) {
    return ObjectPath.of(catalog, db);
  }

  String db(String name) throws NoSuchObjectException {
    String db = names.database(name);
    if (db == null || db.isEmpty()) {
      throw new NoSuchObjectException("No database name in '" + name + "'");
    }
    return db;
  }

  private static String quote(String id) {
    return id.replace("\\", "\\\\").replace("'", "\\'");
  }

  /** The ids of the children of {@code parent} with the given obj_type, in id order, read in {@code txn}. */
  List<CatalogObject> children(Transaction txn, ObjectPath parent, String type) {
    StringBuilder query = new StringBuilder();
    for (String id : parent.ids()) {
      query.append("/[obj_id='").append(quote(id)).append("']");
    }
    query.append("/[obj_type='").append(type).append("']");
    QueryRequest request = QueryRequest.of(query.toString()).withResults(ChildKinds.INNER).withLimit(QueryRequest.MAX_LIMIT);
    List<CatalogObject> rows = new ArrayList<>();
    while (true) {
      QueryPage page = service.query(txn.id(), request);
      rows.addAll(page.rows());
      if (page.continuation().isEmpty()) {
        return rows;
      }
      request = request.withPageToken(page.continuation().get());
    }
  }

  Database requireDatabase(Transaction txn, String db) throws NoSuchObjectException {
    Optional<CatalogObject> object = get(txn, dbPath(db));
    if (!isType(object, NAMESPACE)) {
      throw new NoSuchObjectException("Database " + db + " does not exist");
    }
    return database(db, object.get().value());
  }

  // ---- fb303 (FacebookService): Spark sends shutdown on close, which must not stop the server.

  public String getName() {
    return "treecat";
  }

  public String getVersion() {
    return "4.1.0";
  }

  public fb_status getStatus() {
    return fb_status.ALIVE;
  }

  public String getStatusDetails() {
    return "TreeCat HMS: serving catalog '" + catalog + "'";
  }

  public Map<String, Long> getCounters() {
    return Map.of();
  }

  public long getCounter(String key) {
    return 0;
  }

  public void setOption(String key, String value) {}

  public String getOption(String key) {
    return "";
  }

  public Map<String, String> getOptions() {
    return Map.of();
  }

  public String getCpuProfile(int profileDurationInSec) {
    return "";
  }

  public long aliveSince() {
    return aliveSince;
  }

  public void reinitialize() {}

  public void shutdown() {
    LOG.debug("Ignoring fb303 shutdown from a client");
  }

  // ---- session

  public List<String> set_ugi(String user, List<String> groups) {
    return groups == null ? List.of() : groups;
  }

  // ---- databases

  private Database database(String db, BsonDocument value) {
    Map<String, String> parameters = new LinkedHashMap<>();
    BsonValue properties = value.get(PROPERTIES);
    if (properties != null && properties.isDocument()) {
      properties.asDocument().forEach((k, v) -> parameters.put(k, v.isString() ? v.asString().getValue() : v.toString()));
    }
    Database database = new Database();
    database.setName(db);
    database.setCatalogName(HmsNames.HIVE_CATALOG);
    database.setDescription(parameters.remove(COMMENT));
    String location = parameters.remove(HmsTables.LOCATION);
    database.setLocationUri(location != null ? location : defaultLocation(db));
    String owner = parameters.remove(OWNER);
    if (owner != null) {
      database.setOwnerName(owner);
    }
    String ownerType = parameters.remove(OWNER_TYPE);
    if (ownerType != null) {
      database.setOwnerType(PrincipalType.valueOf(ownerType));
    }
    database.setParameters(parameters);
    return database;
  }

  private String defaultLocation(String db) {
    return warehouse + "/" + catalog + "/" + db;
  }

  public void create_database(Database database) throws TException {
    createDatabase("create_database", database);
  }

  public void create_database_req(CreateDatabaseRequest request) throws TException {
    Database database = new Database();
    database.setName(request.getDatabaseName());
    database.setDescription(request.getDescription());
    database.setLocationUri(request.getLocationUri());
    database.setParameters(request.getParameters());
    database.setOwnerName(request.getOwnerName());
    database.setOwnerType(request.getOwnerType());
    database.setCatalogName(request.getCatalogName());
    createDatabase("create_database_req", database);
  }

  private void createDatabase(String method, Database database) throws TException {
    requireNonNull(database, "database");
    names.checkCatalog(database.getCatalogName());
    String db = db(database.getName());
    String location = database.getLocationUri() == null || database.getLocationUri().isEmpty() ? defaultLocation(db) : database.getLocationUri();
    write(method, (txn, writes) -> {
      ObjectPath root = ObjectPath.of(catalog);
      Optional<CatalogObject> catalogObject = get(txn, root);
      if (catalogObject.isEmpty()) {
        writes.add(new WriteOp.Add(root, ObjectKind.INNER, new BsonDocument(HmsTables.OBJ_TYPE, new BsonString(CATALOG))
            .append(HmsTables.LOCATION, new BsonString(warehouse + "/" + catalog))));
      } else if (!isType(catalogObject, CATALOG)) {
        throw new MetaException("/" + catalog + " is not a catalog");
      }
      Optional<CatalogObject> existing = get(txn, dbPath(db));
      if (existing.isPresent()) {
        throw new AlreadyExistsException("Database " + db + " already exists");
      }
      BsonDocument properties = new BsonDocument();
      if (database.getParameters() != null) {
        database.getParameters().forEach((k, v) -> properties.put(k, new BsonString(v)));
      }
      if (database.getDescription() != null) {
        properties.put(COMMENT, new BsonString(database.getDescription()));
      }
      properties.put(HmsTables.LOCATION, new BsonString(location));
      if (database.getOwnerName() != null) {
        properties.put(OWNER, new BsonString(database.getOwnerName()));
      }
      if (database.getOwnerType() != null) {
        properties.put(OWNER_TYPE, new BsonString(database.getOwnerType().name()));
      }
      writes.add(new WriteOp.Add(dbPath(db), ObjectKind.INNER, new BsonDocument(HmsTables.OBJ_TYPE, new BsonString(NAMESPACE)).append(PROPERTIES, properties)));
      return null;
    });
    createDirectories(location);
  }

  /** Clients check that a database's location exists; make it for local warehouses. */
  static void createDirectories(String location) {
    try {
      URI uri = URI.create(location);
      if ("file".equals(uri.getScheme())) {
        Files.createDirectories(Path.of(uri));
      }
    } catch (IllegalArgumentException | IOException | java.nio.file.FileSystemNotFoundException e) {
      LOG.warn("Could not create the directory {}", location, e);
    }
  }

  public Database get_database(String name) throws TException {
    String db = db(name);
    return read("get_database", (txn, writes) -> requireDatabase(txn, db));
  }

  public Database get_database_req(GetDatabaseRequest request) throws TException {
    names.checkCatalog(request.getCatalogName());
    String db = db(request.getName());
    return read("get_database_req", (txn, writes) -> requireDatabase(txn, db));
  }

  public List<String> get_all_databases() throws TException {
    return get_databases("*");
  }

  public List<String> get_databases(String pattern) throws TException {
    String dbPattern;
    try {
      dbPattern = pattern != null && pattern.startsWith("@") ? names.database(pattern) : pattern;
    } catch (NoSuchObjectException e) {
      throw new MetaException(e.getMessage());
    }
    Pattern matcher = HmsNames.pattern(dbPattern);
    return read("get_databases", (txn, writes) -> {
      List<String> result = new ArrayList<>();
      for (CatalogObject row : children(txn, ObjectPath.of(catalog), NAMESPACE)) {
        if (matcher.matcher(row.id()).matches()) {
          result.add(row.id());
        }
      }
      return result;
    });
  }

  public void drop_database(String name, boolean deleteData, boolean cascade) throws TException {
    dropDatabase("drop_database", name, deleteData, cascade, false);
  }

  public void drop_database_req(DropDatabaseRequest request) throws TException {
    names.checkCatalog(request.getCatalogName());
    dropDatabase("drop_database_req", request.getName(), request.isDeleteData(), request.isCascade(), request.isIgnoreUnknownDb());
  }

  private void dropDatabase(String method, String name, boolean deleteData, boolean cascade, boolean ignoreUnknown) throws TException {
    String db = db(name);
    HmsDataFiles.Plan doomed = write(method, (txn, writes) -> {
      if (ignoreUnknown && !isType(get(txn, dbPath(db)), NAMESPACE)) {
        return new HmsDataFiles.Plan();
      }
      Database database = requireDatabase(txn, db);
      if (!cascade) {
        // Hive's messages: tables first, then a database holding only functions.
        List<CatalogObject> children = service.query(txn.id(),
            QueryRequest.of("/[obj_id='" + quote(catalog) + "']/[obj_id='" + quote(db) + "']/*").withLimit(2)).rows();
        if (children.stream().anyMatch(child -> !HmsFunctions.FUNCTIONS.equals(child.id()))) {
          throw new InvalidOperationException("Database " + db + " is not empty. One or more tables exist.");
        }
        if (!children.isEmpty()) {
          throw new InvalidOperationException("Database " + db + " is not empty. One or more functions exist.");
        }
      }
      writes.add(new WriteOp.Remove(dbPath(db)));
      if (!deleteData) {
        return new HmsDataFiles.Plan();
      }
      List<HmsDataFiles.Plan> tables = new ArrayList<>();
      for (CatalogObject row : children(txn, dbPath(db), HmsTables.TABLE)) {
        tables.add(dataOf(txn, HmsTables.table(db, row.id(), row.value())));
      }
      return HmsDataFiles.database(database.getLocationUri(), tables);
    });
    // Only after the commit: a refused or failed drop deletes nothing.
    doomed.run();
  }

  // ---- tables

  public List<String> get_all_tables(String name) throws TException {
    return get_tables(name, "*");
  }

  public List<String> get_tables(String name, String pattern) throws TException {
    String db = db(name);
    Pattern matcher = HmsNames.pattern(pattern);
    return read("get_tables", (txn, writes) -> {
      List<String> result = new ArrayList<>();
      for (CatalogObject row : children(txn, dbPath(db), HmsTables.TABLE)) {
        if (matcher.matcher(row.id()).matches()) {
          result.add(row.id());
        }
      }
      return result;
    });
  }

  public List<String> get_tables_by_type(String name, String pattern, String tableType) throws TException {
    String db = db(name);
    Pattern matcher = HmsNames.pattern(pattern);
    return read("get_tables_by_type", (txn, writes) -> {
      List<String> result = new ArrayList<>();
      for (CatalogObject row : children(txn, dbPath(db), HmsTables.TABLE)) {
        if (matcher.matcher(row.id()).matches()
            && (tableType == null || tableType.isEmpty() || tableType.equals(HmsTables.table(db, row.id(), row.value()).getTableType()))) {
          result.add(row.id());
        }
      }
      return result;
    });
  }

  public List<TableMeta> get_table_meta(String dbPatterns, String tablePatterns, List<String> tableTypes) throws TException {
    String dbPattern;
    try {
      dbPattern = dbPatterns != null && dbPatterns.startsWith("@") ? names.database(dbPatterns) : dbPatterns;
    } catch (NoSuchObjectException e) {
      throw new MetaException(e.getMessage());
    }
    Pattern dbMatcher = HmsNames.pattern(dbPattern);
    Pattern tableMatcher = HmsNames.pattern(tablePatterns);
    return read("get_table_meta", (txn, writes) -> {
      List<TableMeta> result = new ArrayList<>();
      for (CatalogObject dbRow : children(txn, ObjectPath.of(catalog), NAMESPACE)) {
        if (!dbMatcher.matcher(dbRow.id()).matches()) {
          continue;
        }
        for (CatalogObject row : children(txn, dbRow.path(), HmsTables.TABLE)) {
          if (!tableMatcher.matcher(row.id()).matches()) {
            continue;
          }
          Table table = HmsTables.table(dbRow.id(), row.id(), row.value());
          if (tableTypes != null && !tableTypes.isEmpty() && !tableTypes.contains(table.getTableType())) {
            continue;
          }
          TableMeta meta = new TableMeta(dbRow.id(), row.id(), table.getTableType());
          meta.setCatName(HmsNames.HIVE_CATALOG);
          if (table.getParameters() != null && table.getParameters().get(COMMENT) != null) {
            meta.setComments(table.getParameters().get(COMMENT));
          }
          result.add(meta);
        }
      }
      return result;
    });
  }

  public GetTableResult get_table_req(GetTableRequest request) throws TException {
    names.checkCatalog(request.getCatName());
    String db = db(request.getDbName());
    String name = HmsNames.normalize(request.getTblName());
    return read("get_table_req", (txn, writes) -> new GetTableResult(requireTable(txn, db, name)));
  }

  public GetTablesResult get_table_objects_by_name_req(GetTablesRequest request) throws TException {
    names.checkCatalog(request.getCatName());
    return new GetTablesResult(legacyGetTableObjectsByName(request.getDbName(), request.getTblNames() == null ? List.of() : request.getTblNames()));
  }

  /** {@code get_table} of the Hive 2.3/3.1 IDL (see {@link LegacyCalls}). */
  Table legacyGetTable(String dbName, String tableName) throws TException {
    String db = db(dbName);
    String name = HmsNames.normalize(requireNonNull(tableName, "tbl_name"));
    return read("get_table_req", (txn, writes) -> requireTable(txn, db, name));
  }

  /** {@code get_table_objects_by_name} of the Hive 2.3/3.1 IDL: the tables that exist, in the order asked. */
  List<Table> legacyGetTableObjectsByName(String dbName, List<String> tableNames) throws TException {
    if (dbName == null || dbName.isEmpty()) {
      throw new UnknownDBException("DB name is null or empty");
    }
    String db;
    try {
      db = db(dbName);
    } catch (NoSuchObjectException e) {
      throw new UnknownDBException(e.getMessage());
    }
    return read("get_table_objects_by_name_req", (txn, writes) -> {
      List<Table> tables = new ArrayList<>();
      for (String tableName : tableNames) {
        if (tableName == null) {
          continue;
        }
        String name = HmsNames.normalize(tableName);
        Optional<CatalogObject> object = get(txn, dbPath(db).child(name));
        if (isType(object, HmsTables.TABLE)) {
          tables.add(HmsTables.table(db, name, object.get().value()));
        }
      }
      return tables;
    });
  }

  Table requireTable(Transaction txn, String db, String name) throws NoSuchObjectException, MetaException {
    Optional<CatalogObject> object = get(txn, dbPath(db).child(name));
    if (!isType(object, HmsTables.TABLE)) {
      throw new NoSuchObjectException(db + "." + name + " table not found");
    }
    return HmsTables.table(db, name, object.get().value());
  }

  public void create_table_req(CreateTableRequest request) throws TException {
    createTable("create_table_req", request.getTable());
  }

  public void create_table(Table table) throws TException {
    createTable("create_table", table);
  }

  public void create_table_with_environment_context(Table table, EnvironmentContext context) throws TException {
    createTable("create_table_with_environment_context", table);
  }

  private void createTable(String method, Table table) throws TException {
    if (table == null || table.getTableName() == null || table.getTableName().isEmpty()) {
      throw new InvalidObjectException("A table needs a name");
    }
    names.checkCatalog(table.getCatName());
    String db = db(table.getDbName());
    String name = HmsNames.normalize(table.getTableName());
    Table created = table.deepCopy();
    created.setDbName(db);
    created.setTableName(name);
    created.setCatName(HmsNames.HIVE_CATALOG);
    if (created.getCreateTime() == 0) {
      created.setCreateTime((int) (System.currentTimeMillis() / 1000));
    }
    if (created.getParameters() == null) {
      created.setParameters(new HashMap<>());
    }
    write(method, (txn, writes) -> {
      Database database = requireDatabase(txn, db);
      ObjectPath path = dbPath(db).child(name);
      if (get(txn, path).isPresent()) {
        throw new AlreadyExistsException("Table hive." + db + "." + name + " already exists");
      }
      if (created.getSd() != null && (created.getSd().getLocation() == null || created.getSd().getLocation().isEmpty())) {
        created.getSd().setLocation(database.getLocationUri() + "/" + name);
      }
      writes.add(new WriteOp.Add(path, ObjectKind.INNER, HmsTables.value(created, null)));
      return null;
    });
    // Hive's metastore makes a new table's directory (a view has none); Spark reads an unpartitioned
    // table's path before its first INSERT and fails if it is missing.
    if (created.getSd() != null && created.getSd().getLocation() != null && !"VIRTUAL_VIEW".equals(created.getTableType())) {
      createDirectories(created.getSd().getLocation());
    }
  }

  public void drop_table_req(DropTableRequest request) throws TException {
    names.checkCatalog(request.getCatalogName());
    dropTable("drop_table_req", request.getDbName(), request.getTableName(), request.isDeleteData());
  }

  public void drop_table(String dbName, String name, boolean deleteData) throws TException {
    dropTable("drop_table", dbName, name, deleteData);
  }

  public void drop_table_with_environment_context(String dbName, String name, boolean deleteData, EnvironmentContext context) throws TException {
    dropTable("drop_table_with_environment_context", dbName, name, deleteData);
  }

  private void dropTable(String method, String dbName, String tableName, boolean deleteData) throws TException {
    String db = db(dbName);
    String name = HmsNames.normalize(tableName);
    HmsDataFiles.Plan doomed = write(method, (txn, writes) -> {
      Table table = requireTable(txn, db, name);
      writes.add(new WriteOp.Remove(dbPath(db).child(name)));
      return deleteData ? dataOf(txn, table) : new HmsDataFiles.Plan();
    });
    // Only after the commit: a refused or failed drop deletes nothing.
    doomed.run();
  }

  /** What dropping {@code table} with deleteData removes, read in {@code txn} (its partitions' locations). */
  private HmsDataFiles.Plan dataOf(Transaction txn, Table table) throws MetaException {
    if (!HmsDataFiles.deletesData(table)) {
      return new HmsDataFiles.Plan();
    }
    HmsPartitions partitions = partitionCalls.partitions();
    List<org.apache.hadoop.hive.metastore.api.Partition> all = HmsPartitions.partitionKeys(table).isEmpty()
        ? List.of() : partitions.partitions(table, partitions.all(txn, table, -1));
    return HmsDataFiles.table(table, all);
  }

  public void alter_table_with_environment_context(String dbName, String tableName, Table newTable, EnvironmentContext context) throws TException {
    Map<String, String> properties = context == null || context.getProperties() == null ? Map.of() : context.getProperties();
    alterTable("alter_table_with_environment_context", dbName, tableName, newTable, properties.get(EXPECTED_KEY), properties.get(EXPECTED_VALUE));
  }

  /** Hive 4's form: the expected parameter is a field of the request, or (older clients) in the context. */
  public AlterTableResponse alter_table_req(AlterTableRequest request) throws TException {
    names.checkCatalog(request.getCatName());
    Map<String, String> properties = request.getEnvironmentContext() == null || request.getEnvironmentContext().getProperties() == null
        ? Map.of() : request.getEnvironmentContext().getProperties();
    String expectedKey = request.isSetExpectedParameterKey() ? request.getExpectedParameterKey() : properties.get(EXPECTED_KEY);
    String expectedValue = request.isSetExpectedParameterValue() ? request.getExpectedParameterValue() : properties.get(EXPECTED_VALUE);
    alterTable("alter_table_req", request.getDbName(), request.getTableName(), request.getTable(), expectedKey, expectedValue);
    return new AlterTableResponse();
  }

  private void alterTable(String method, String dbName, String tableName, Table newTable, String expectedKey, String expectedValue) throws TException {
    if (newTable == null) {
      throw new InvalidOperationException("No new table given");
    }
    String db = names.database(dbName);
    if (db == null || db.isEmpty()) {
      throw new InvalidOperationException("No database name in '" + dbName + "'");
    }
    String name = HmsNames.normalize(tableName);
    try {
      alterTableOnce(method, db, name, newTable, expectedKey, expectedValue);
    } catch (MetaException e) {
      String key = HmsIcebergCommits.swappedKey(newTable, expectedKey);
      if (key == null || !HmsIcebergCommits.isConflict(e)) {
        throw e;
      }
      // A concurrent writer changed the table first: for a swap, Hive's answer, which Iceberg retries.
      String actual = read(method, (txn, writes) -> {
        Table current = requireTable(txn, db, name);
        return current.getParameters() == null ? null : current.getParameters().get(key);
      });
      String expected = expectedKey != null ? expectedValue : newTable.getParameters().get(HmsIcebergCommits.PREVIOUS_METADATA_LOCATION);
      throw HmsIcebergCommits.modified(key, actual, expected);
    }
  }

  private void alterTableOnce(String method, String db, String name, Table newTable, String expectedKey, String expectedValue) throws TException {
    write(method, (txn, writes) -> {
      ObjectPath path = dbPath(db).child(name);
      Optional<CatalogObject> object = get(txn, path);
      if (!isType(object, HmsTables.TABLE)) {
        throw new InvalidOperationException("table " + db + "." + name + " doesn't exist");
      }
      Table old = HmsTables.table(db, name, object.get().value());
      if (expectedKey != null) {
        // Iceberg's HiveCatalog compare-and-swap of metadata_location; checked on what this transaction
        // read, so a concurrent swap of the same table fails validation instead of being lost.
        String actual = old.getParameters() == null ? null : old.getParameters().get(expectedKey);
        if (expectedValue == null ? actual != null : !expectedValue.equals(actual)) {
          throw HmsIcebergCommits.modified(expectedKey, actual, expectedValue);
        }
      }
      HmsIcebergCommits.checkPointerMove(old, newTable);
      String newDb = newTable.getDbName() == null ? db : names.database(newTable.getDbName());
      String newName = newTable.getTableName() == null ? name : HmsNames.normalize(newTable.getTableName());
      Table altered = newTable.deepCopy();
      altered.setDbName(newDb);
      altered.setTableName(newName);
      altered.setCatName(HmsNames.HIVE_CATALOG);
      if (altered.getCreateTime() == 0) {
        altered.setCreateTime(old.getCreateTime());
      }
      if (!altered.isSetPartitionKeys()) {
        altered.setPartitionKeys(old.getPartitionKeys()); // a client that leaves them out keeps them
      }
      if (!HmsPartitions.sameKeys(old, altered)) {
        // Hive refuses it too: the partitions below are laid out by the keys.
        throw new InvalidOperationException("partition keys can not be changed.");
      }
      if (newDb.equals(db) && newName.equals(name)) {
        writes.add(new WriteOp.Update(path, ObjectKind.INNER, HmsTables.value(altered, object.get().value())));
      } else {
        if (!isType(get(txn, dbPath(newDb)), NAMESPACE)) {
          throw new InvalidOperationException("Unable to change the table's database: database " + newDb + " does not exist");
        }
        ObjectPath target = dbPath(newDb).child(newName);
        if (get(txn, target).isPresent()) {
          throw new InvalidOperationException("Table " + newDb + "." + newName + " already exists");
        }
        // The partitions below the table move with it; scanning every level makes a concurrent
        // partition change conflict with the rename instead of being lost.
        partitionCalls.partitions().scanSubtree(txn, old);
        writes.add(new WriteOp.Clone(path, target, txn.readVid()));
        writes.add(new WriteOp.Update(target, ObjectKind.INNER, HmsTables.value(altered, object.get().value())));
        writes.add(new WriteOp.Remove(path));
      }
      return null;
    });
  }

  // ---- partitions, column statistics, tables by filter: one-line delegates to HmsPartitionCalls

  public org.apache.hadoop.hive.metastore.api.Partition add_partition(org.apache.hadoop.hive.metastore.api.Partition partition) throws TException {
    return partitionCalls.add_partition(partition);
  }

  public org.apache.hadoop.hive.metastore.api.Partition add_partition_with_environment_context(org.apache.hadoop.hive.metastore.api.Partition partition, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return partitionCalls.add_partition_with_environment_context(partition, context);
  }

  public int add_partitions(List<org.apache.hadoop.hive.metastore.api.Partition> parts) throws TException {
    return partitionCalls.add_partitions(parts);
  }

  public org.apache.hadoop.hive.metastore.api.AddPartitionsResult add_partitions_req(org.apache.hadoop.hive.metastore.api.AddPartitionsRequest request) throws TException {
    return partitionCalls.add_partitions_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.Partition append_partition(String dbName, String tableName, List<String> values) throws TException {
    return partitionCalls.append_partition(dbName, tableName, values);
  }

  public org.apache.hadoop.hive.metastore.api.Partition append_partition_with_environment_context(String dbName, String tableName, List<String> values, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return partitionCalls.append_partition_with_environment_context(dbName, tableName, values, context);
  }

  public org.apache.hadoop.hive.metastore.api.Partition append_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
    return partitionCalls.append_partition_by_name(dbName, tableName, partitionName);
  }

  public org.apache.hadoop.hive.metastore.api.Partition append_partition_by_name_with_environment_context(String dbName, String tableName, String partitionName, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return partitionCalls.append_partition_by_name_with_environment_context(dbName, tableName, partitionName, context);
  }

  public org.apache.hadoop.hive.metastore.api.Partition append_partition_req(org.apache.hadoop.hive.metastore.api.AppendPartitionsRequest request) throws TException {
    return partitionCalls.append_partition_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.Partition get_partition(String dbName, String tableName, List<String> values) throws TException {
    return partitionCalls.get_partition(dbName, tableName, values);
  }

  public org.apache.hadoop.hive.metastore.api.GetPartitionResponse get_partition_req(org.apache.hadoop.hive.metastore.api.GetPartitionRequest request) throws TException {
    return partitionCalls.get_partition_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.Partition get_partition_with_auth(String dbName, String tableName, List<String> values, String user, List<String> groups) throws TException {
    return partitionCalls.get_partition_with_auth(dbName, tableName, values, user, groups);
  }

  public org.apache.hadoop.hive.metastore.api.Partition get_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
    return partitionCalls.get_partition_by_name(dbName, tableName, partitionName);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions(String dbName, String tableName, short max) throws TException {
    return partitionCalls.get_partitions(dbName, tableName, max);
  }

  public org.apache.hadoop.hive.metastore.api.PartitionsResponse get_partitions_req(org.apache.hadoop.hive.metastore.api.PartitionsRequest request) throws TException {
    return partitionCalls.get_partitions_req(request);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_with_auth(String dbName, String tableName, short max, String user, List<String> groups) throws TException {
    return partitionCalls.get_partitions_with_auth(dbName, tableName, max, user, groups);
  }

  public List<String> get_partition_names(String dbName, String tableName, short max) throws TException {
    return partitionCalls.get_partition_names(dbName, tableName, max);
  }

  public List<String> fetch_partition_names_req(org.apache.hadoop.hive.metastore.api.PartitionsRequest request) throws TException {
    return partitionCalls.fetch_partition_names_req(request);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_ps(String dbName, String tableName, List<String> values, short max) throws TException {
    return partitionCalls.get_partitions_ps(dbName, tableName, values, max);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_ps_with_auth(String dbName, String tableName, List<String> values, short max, String user, List<String> groups) throws TException {
    return partitionCalls.get_partitions_ps_with_auth(dbName, tableName, values, max, user, groups);
  }

  public org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthResponse get_partitions_ps_with_auth_req(org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthRequest request) throws TException {
    return partitionCalls.get_partitions_ps_with_auth_req(request);
  }

  public List<String> get_partition_names_ps(String dbName, String tableName, List<String> values, short max) throws TException {
    return partitionCalls.get_partition_names_ps(dbName, tableName, values, max);
  }

  public org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsResponse get_partition_names_ps_req(org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsRequest request) throws TException {
    return partitionCalls.get_partition_names_ps_req(request);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_by_filter(String dbName, String tableName, String filter, short max) throws TException {
    return partitionCalls.get_partitions_by_filter(dbName, tableName, filter, max);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_by_filter_req(org.apache.hadoop.hive.metastore.api.GetPartitionsByFilterRequest request) throws TException {
    return partitionCalls.get_partitions_by_filter_req(request);
  }

  public int get_num_partitions_by_filter(String dbName, String tableName, String filter) throws TException {
    return partitionCalls.get_num_partitions_by_filter(dbName, tableName, filter);
  }

  public List<org.apache.hadoop.hive.metastore.api.Partition> get_partitions_by_names(String dbName, String tableName, List<String> partitionNames) throws TException {
    return partitionCalls.get_partitions_by_names(dbName, tableName, partitionNames);
  }

  public org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesResult get_partitions_by_names_req(org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesRequest request) throws TException {
    return partitionCalls.get_partitions_by_names_req(request);
  }

  public void alter_partition(String dbName, String tableName, org.apache.hadoop.hive.metastore.api.Partition partition) throws TException {
    partitionCalls.alter_partition(dbName, tableName, partition);
  }

  public void alter_partition_with_environment_context(String dbName, String tableName, org.apache.hadoop.hive.metastore.api.Partition partition, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    partitionCalls.alter_partition_with_environment_context(dbName, tableName, partition, context);
  }

  public void alter_partitions(String dbName, String tableName, List<org.apache.hadoop.hive.metastore.api.Partition> parts) throws TException {
    partitionCalls.alter_partitions(dbName, tableName, parts);
  }

  public void alter_partitions_with_environment_context(String dbName, String tableName, List<org.apache.hadoop.hive.metastore.api.Partition> parts, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    partitionCalls.alter_partitions_with_environment_context(dbName, tableName, parts, context);
  }

  public org.apache.hadoop.hive.metastore.api.AlterPartitionsResponse alter_partitions_req(org.apache.hadoop.hive.metastore.api.AlterPartitionsRequest request) throws TException {
    return partitionCalls.alter_partitions_req(request);
  }

  public void rename_partition(String dbName, String tableName, List<String> oldValues, org.apache.hadoop.hive.metastore.api.Partition renamed) throws TException {
    partitionCalls.rename_partition(dbName, tableName, oldValues, renamed);
  }

  public org.apache.hadoop.hive.metastore.api.RenamePartitionResponse rename_partition_req(org.apache.hadoop.hive.metastore.api.RenamePartitionRequest request) throws TException {
    return partitionCalls.rename_partition_req(request);
  }

  public boolean drop_partition(String dbName, String tableName, List<String> values, boolean deleteData) throws TException {
    return partitionCalls.drop_partition(dbName, tableName, values, deleteData);
  }

  public boolean drop_partition_with_environment_context(String dbName, String tableName, List<String> values, boolean deleteData, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return partitionCalls.drop_partition_with_environment_context(dbName, tableName, values, deleteData, context);
  }

  public boolean drop_partition_by_name(String dbName, String tableName, String partitionName, boolean deleteData) throws TException {
    return partitionCalls.drop_partition_by_name(dbName, tableName, partitionName, deleteData);
  }

  public boolean drop_partition_by_name_with_environment_context(String dbName, String tableName, String partitionName, boolean deleteData, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return partitionCalls.drop_partition_by_name_with_environment_context(dbName, tableName, partitionName, deleteData, context);
  }

  public boolean drop_partition_req(org.apache.hadoop.hive.metastore.api.DropPartitionRequest request) throws TException {
    return partitionCalls.drop_partition_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.DropPartitionsResult drop_partitions_req(org.apache.hadoop.hive.metastore.api.DropPartitionsRequest request) throws TException {
    return partitionCalls.drop_partitions_req(request);
  }

  public List<String> partition_name_to_vals(String partitionName) throws TException {
    return partitionCalls.partition_name_to_vals(partitionName);
  }

  public Map<String, String> partition_name_to_spec(String partitionName) throws TException {
    return partitionCalls.partition_name_to_spec(partitionName);
  }

  public boolean partition_name_has_valid_characters(List<String> values, boolean throwException) {
    return partitionCalls.partition_name_has_valid_characters(values, throwException);
  }

  public List<String> get_table_names_by_filter(String dbName, String filter, short max) throws TException {
    return partitionCalls.get_table_names_by_filter(dbName, filter, max);
  }

  public boolean update_table_column_statistics(org.apache.hadoop.hive.metastore.api.ColumnStatistics statistics) throws TException {
    return partitionCalls.update_table_column_statistics(statistics);
  }

  public boolean update_partition_column_statistics(org.apache.hadoop.hive.metastore.api.ColumnStatistics statistics) throws TException {
    return partitionCalls.update_partition_column_statistics(statistics);
  }

  public org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse update_table_column_statistics_req(org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest request) throws TException {
    return partitionCalls.update_table_column_statistics_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse update_partition_column_statistics_req(org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest request) throws TException {
    return partitionCalls.update_partition_column_statistics_req(request);
  }

  public boolean set_aggr_stats_for(org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest request) throws TException {
    return partitionCalls.set_aggr_stats_for(request);
  }

  public org.apache.hadoop.hive.metastore.api.ColumnStatistics get_table_column_statistics(String dbName, String tableName, String column) throws TException {
    return partitionCalls.get_table_column_statistics(dbName, tableName, column);
  }

  public org.apache.hadoop.hive.metastore.api.ColumnStatistics get_partition_column_statistics(String dbName, String tableName, String partitionName, String column) throws TException {
    return partitionCalls.get_partition_column_statistics(dbName, tableName, partitionName, column);
  }

  public org.apache.hadoop.hive.metastore.api.TableStatsResult get_table_statistics_req(org.apache.hadoop.hive.metastore.api.TableStatsRequest request) throws TException {
    return partitionCalls.get_table_statistics_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.PartitionsStatsResult get_partitions_statistics_req(org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest request) throws TException {
    return partitionCalls.get_partitions_statistics_req(request);
  }

  public org.apache.hadoop.hive.metastore.api.AggrStats get_aggr_stats_for(org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest request) throws TException {
    return partitionCalls.get_aggr_stats_for(request);
  }

  public boolean delete_table_column_statistics(String dbName, String tableName, String column, String engine) throws TException {
    return partitionCalls.delete_table_column_statistics(dbName, tableName, column, engine);
  }

  public boolean delete_partition_column_statistics(String dbName, String tableName, String partitionName, String column, String engine) throws TException {
    return partitionCalls.delete_partition_column_statistics(dbName, tableName, partitionName, column, engine);
  }

  public boolean delete_column_statistics_req(org.apache.hadoop.hive.metastore.api.DeleteColumnStatisticsRequest request) throws TException {
    return partitionCalls.delete_column_statistics_req(request);
  }

  // ---- locks, functions, alter_database (HmsLocks, HmsFunctions, HmsDatabaseChanges): thin delegations, kept together at the end.

  String catalog() {
    return catalog;
  }

  HmsNames names() {
    return names;
  }

  HmsLocks locks() {
    return locks;
  }

  public LockResponse lock(LockRequest request) throws TException {
    return locks.lock(request);
  }

  public LockResponse check_lock(CheckLockRequest request) throws TException {
    return locks.check(request);
  }

  public void unlock(UnlockRequest request) throws TException {
    locks.unlock(request);
  }

  public void heartbeat(HeartbeatRequest request) throws TException {
    locks.heartbeat(request);
  }

  public ShowLocksResponse show_locks(ShowLocksRequest request) throws TException {
    return locks.show(request);
  }

  public void create_function(Function function) throws TException {
    functions.create(function);
  }

  public Function get_function(String dbName, String functionName) throws TException {
    return functions.get(dbName, functionName);
  }

  public void drop_function(String dbName, String functionName) throws TException {
    functions.drop(dbName, functionName);
  }

  public void alter_function(String dbName, String functionName, Function newFunction) throws TException {
    functions.alter(dbName, functionName, newFunction);
  }

  public List<String> get_functions(String dbName, String pattern) throws TException {
    return functions.names(dbName, pattern);
  }

  public GetFunctionsResponse get_functions_req(GetFunctionsRequest request) throws TException {
    return functions.list(request);
  }

  public GetAllFunctionsResponse get_all_functions() throws TException {
    return functions.all();
  }

  public void alter_database(String dbName, Database database) throws TException {
    new HmsDatabaseChanges(this).alter("alter_database", dbName, database);
  }

  public void alter_database_req(AlterDatabaseRequest request) throws TException {
    new HmsDatabaseChanges(this).alter("alter_database_req", request.getOldDbName(), request.getNewDb());
  }
}
