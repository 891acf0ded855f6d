package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.txn.Transaction;
import io.treecat.core.version.WriteOp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AddPartitionsResult;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.AlterPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AlterPartitionsResponse;
import org.apache.hadoop.hive.metastore.api.AppendPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.DeleteColumnStatisticsRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.DropPartitionsResult;
import org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionNamesPsResponse;
import org.apache.hadoop.hive.metastore.api.GetPartitionRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionResponse;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByFilterRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsByNamesResult;
import org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthRequest;
import org.apache.hadoop.hive.metastore.api.GetPartitionsPsWithAuthResponse;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionsRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsResponse;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsResult;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableStatsRequest;
import org.apache.hadoop.hive.metastore.api.TableStatsResult;
import org.apache.hadoop.hive.metastore.api.UnknownDBException;
import org.apache.thrift.TException;

/**
 * The partition, column-statistics and table-filter calls, with the Thrift signatures of
 * {@code ThriftHiveMetastore.Iface}; {@link TreeCatHmsHandler} serves each through a one-line
 * delegate. Each call is one transaction of the handler ({@code read}/{@code write}). Names are
 * the handler's ({@code @cat#db} forms, lower-cased).
 */
final class HmsPartitionCalls {
  private final TreeCatHmsHandler handler;
  private final HmsPartitions partitions;
  private final HmsNames names;

  HmsPartitionCalls(TreeCatHmsHandler handler, HmsPartitions partitions, HmsNames names) {
    this.handler = requireNonNull(handler, "handler is null");
    this.partitions = requireNonNull(partitions, "partitions is null");
    this.names = requireNonNull(names, "names is null");
  }

  HmsPartitions partitions() {
    return partitions;
  }

  private record TableName(String db, String name) {}

  private TableName tableName(String dbName, String tableName) throws TException {
    if (tableName == null || tableName.isEmpty()) {
      throw new MetaException("No table name given");
    }
    return new TableName(handler.db(dbName), HmsNames.normalize(tableName));
  }

  private TableName tableName(String catalog, String dbName, String tableName) throws TException {
    names.checkCatalog(catalog);
    return tableName(dbName, tableName);
  }

  private Table table(Transaction txn, TableName name) throws TException {
    return handler.requireTable(txn, name.db(), name.name());
  }

  private static int max(int max) {
    return max < 0 ? -1 : max;
  }

  private int depth() {
    return 3; // /<catalog>/<db>/<table>
  }

  private List<Partition> read(String method, TableName name, Lister lister) throws TException {
    return handler.read(method, (txn, writes) -> {
      Table table = table(txn, name);
      return partitions.partitions(table, lister.list(txn, table));
    });
  }

  private List<String> readNames(String method, TableName name, Lister lister) throws TException {
    return handler.read(method, (txn, writes) -> HmsPartitions.names(lister.list(txn, table(txn, name)), depth()));
  }

  @FunctionalInterface
  private interface Lister {
    List<CatalogObject> list(Transaction txn, Table table) throws TException;
  }

  // ---- add

  private List<Partition> add(String method, String catalog, String dbName, String tableName, List<Partition> parts, boolean ifNotExists) throws TException {
    if (parts == null || parts.isEmpty()) {
      return List.of();
    }
    String db = dbName;
    String tbl = tableName;
    if (db == null || tbl == null) {
      // Partition-only calls (add_partition, add_partitions) name the table in each partition.
      db = parts.get(0).getDbName();
      tbl = parts.get(0).getTableName();
      if (parts.get(0).isSetCatName()) {
        names.checkCatalog(parts.get(0).getCatName());
      }
    }
    if (db == null || tbl == null) {
      throw new InvalidObjectException("A partition to add names no database or table");
    }
    for (Partition part : parts) {
      if (part != null && part.getDbName() != null && part.getTableName() != null
          && (!handler.db(part.getDbName()).equals(handler.db(db)) || !HmsNames.normalize(part.getTableName()).equals(HmsNames.normalize(tbl)))) {
        throw new MetaException("Partition does not belong to target table " + db + "." + tbl + ": " + part.getDbName() + "." + part.getTableName());
      }
    }
    TableName name = tableName(catalog, db, tbl);
    List<String> locations = new ArrayList<>();
    List<Partition> added = handler.write(method, (txn, writes) -> {
      Optional<CatalogObject> object = handler.get(txn, handler.dbPath(name.db()).child(name.name()));
      if (!TreeCatHmsHandler.isType(object, HmsTables.TABLE)) {
        throw new InvalidObjectException("Unable to add partitions because table or database do not exist: " + name.db() + "." + name.name());
      }
      Table table = HmsTables.table(name.db(), name.name(), object.get().value());
      List<Partition> result = partitions.add(txn, writes, table, parts, ifNotExists);
      result.forEach(part -> locations.add(part.getSd().getLocation()));
      return result;
    });
    locations.forEach(TreeCatHmsHandler::createDirectories);
    return added;
  }

  public Partition add_partition(Partition partition) throws TException {
    List<Partition> added = add("add_partition", null, null, null, List.of(requireNonNull(partition, "partition")), false);
    return added.get(0);
  }

  public Partition add_partition_with_environment_context(Partition partition, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return add("add_partition_with_environment_context", null, null, null, List.of(requireNonNull(partition, "partition")), false).get(0);
  }

  public int add_partitions(List<Partition> parts) throws TException {
    return add("add_partitions", null, null, null, parts, false).size();
  }

  public AddPartitionsResult add_partitions_req(AddPartitionsRequest request) throws TException {
    List<Partition> added = add("add_partitions_req", request.getCatName(), request.getDbName(), request.getTblName(), request.getParts(), request.isIfNotExists());
    AddPartitionsResult result = new AddPartitionsResult();
    if (request.isNeedResult()) {
      result.setPartitions(added);
    }
    result.setIsStatsCompliant(true);
    return result;
  }

  private Partition append(String method, String catalog, String dbName, String tableName, List<String> values, String partitionName) throws TException {
    TableName name = tableName(catalog, dbName, tableName);
    List<String> locations = new ArrayList<>();
    Partition added = handler.write(method, (txn, writes) -> {
      Table table = table(txn, name);
      List<String> vals = values != null && !values.isEmpty() ? values : HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName);
      Partition partition = new Partition();
      partition.setValues(new ArrayList<>(vals));
      Partition result = partitions.add(txn, writes, table, List.of(partition), false).get(0);
      locations.add(result.getSd().getLocation());
      return result;
    });
    locations.forEach(TreeCatHmsHandler::createDirectories);
    return added;
  }

  public Partition append_partition(String dbName, String tableName, List<String> values) throws TException {
    return append("append_partition", null, dbName, tableName, values, null);
  }

  public Partition append_partition_with_environment_context(String dbName, String tableName, List<String> values,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return append("append_partition_with_environment_context", null, dbName, tableName, values, null);
  }

  public Partition append_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
    return append("append_partition_by_name", null, dbName, tableName, null, partitionName);
  }

  public Partition append_partition_by_name_with_environment_context(String dbName, String tableName, String partitionName,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    return append("append_partition_by_name_with_environment_context", null, dbName, tableName, null, partitionName);
  }

  public Partition append_partition_req(AppendPartitionsRequest request) throws TException {
    return append("append_partition_req", request.getCatalogName(), request.getDbName(), request.getTableName(), request.getPartVals(), request.getName());
  }

  // ---- get one

  private Partition one(String method, TableName name, List<String> values, String partitionName) throws TException {
    return handler.read(method, (txn, writes) -> {
      Table table = table(txn, name);
      List<String> vals = values != null ? values : HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName);
      return HmsPartitions.partition(table.getDbName(), table.getTableName(), partitions.require(txn, table, vals).value());
    });
  }

  public Partition get_partition(String dbName, String tableName, List<String> values) throws TException {
    return one("get_partition", tableName(dbName, tableName), values, null);
  }

  public GetPartitionResponse get_partition_req(GetPartitionRequest request) throws TException {
    return new GetPartitionResponse(one("get_partition_req", tableName(request.getCatName(), request.getDbName(), request.getTblName()), request.getPartVals(), null));
  }

  public Partition get_partition_with_auth(String dbName, String tableName, List<String> values, String user, List<String> groups) throws TException {
    return one("get_partition_with_auth", tableName(dbName, tableName), values, null);
  }

  public Partition get_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
    return one("get_partition_by_name", tableName(dbName, tableName), null, partitionName);
  }

  // ---- list

  public List<Partition> get_partitions(String dbName, String tableName, short max) throws TException {
    return read("get_partitions", tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
  }

  public PartitionsResponse get_partitions_req(PartitionsRequest request) throws TException {
    return new PartitionsResponse(read("get_partitions_req", tableName(request.getCatName(), request.getDbName(), request.getTblName()),
        (txn, table) -> partitions.all(txn, table, max(request.getMaxParts()))));
  }

  public List<Partition> get_partitions_with_auth(String dbName, String tableName, short max, String user, List<String> groups) throws TException {
    return read("get_partitions_with_auth", tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
  }

  public List<String> get_partition_names(String dbName, String tableName, short max) throws TException {
    return readNames("get_partition_names", tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
  }

  public List<String> fetch_partition_names_req(PartitionsRequest request) throws TException {
    return readNames("fetch_partition_names_req", tableName(request.getCatName(), request.getDbName(), request.getTblName()),
        (txn, table) -> partitions.all(txn, table, max(request.getMaxParts())));
  }

  public List<Partition> get_partitions_ps(String dbName, String tableName, List<String> values, short max) throws TException {
    return read("get_partitions_ps", tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
  }

  public List<Partition> get_partitions_ps_with_auth(String dbName, String tableName, List<String> values, short max, String user, List<String> groups)
      throws TException {
    return read("get_partitions_ps_with_auth", tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
  }

  public GetPartitionsPsWithAuthResponse get_partitions_ps_with_auth_req(GetPartitionsPsWithAuthRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    return new GetPartitionsPsWithAuthResponse(read("get_partitions_ps_with_auth_req", name, (txn, table) -> request.isSetPartNames()
        ? partitions.byNames(txn, table, request.getPartNames())
        : partitions.matching(txn, table, request.getPartVals(), max(request.getMaxParts()))));
  }

  public List<String> get_partition_names_ps(String dbName, String tableName, List<String> values, short max) throws TException {
    return readNames("get_partition_names_ps", tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
  }

  public GetPartitionNamesPsResponse get_partition_names_ps_req(GetPartitionNamesPsRequest request) throws TException {
    return new GetPartitionNamesPsResponse(readNames("get_partition_names_ps_req", tableName(request.getCatName(), request.getDbName(), request.getTblName()),
        (txn, table) -> partitions.matching(txn, table, request.getPartValues(), max(request.getMaxParts()))));
  }

  public List<Partition> get_partitions_by_filter(String dbName, String tableName, String filter, short max) throws TException {
    return read("get_partitions_by_filter", tableName(dbName, tableName), (txn, table) -> partitions.filtered(txn, table, filter, max(max)));
  }

  public List<Partition> get_partitions_by_filter_req(GetPartitionsByFilterRequest request) throws TException {
    return read("get_partitions_by_filter_req", tableName(request.getCatName(), request.getDbName(), request.getTblName()),
        (txn, table) -> partitions.filtered(txn, table, request.getFilter(), max(request.getMaxParts())));
  }

  public int get_num_partitions_by_filter(String dbName, String tableName, String filter) throws TException {
    TableName name = tableName(dbName, tableName);
    return handler.read("get_num_partitions_by_filter", (txn, writes) -> partitions.filtered(txn, table(txn, name), filter, -1).size());
  }

  public List<Partition> get_partitions_by_names(String dbName, String tableName, List<String> partitionNames) throws TException {
    return read("get_partitions_by_names", tableName(dbName, tableName), (txn, table) -> partitions.byNames(txn, table, partitionNames));
  }

  public GetPartitionsByNamesResult get_partitions_by_names_req(GetPartitionsByNamesRequest request) throws TException {
    return new GetPartitionsByNamesResult(read("get_partitions_by_names_req", tableName(request.getDb_name(), request.getTbl_name()),
        (txn, table) -> partitions.byNames(txn, table, request.getNames())));
  }

  // ---- alter, rename

  private void alter(String method, String catalog, String dbName, String tableName, List<Partition> parts) throws TException {
    TableName name = tableName(catalog, dbName, tableName);
    handler.write(method, (txn, writes) -> {
      Table table = table(txn, name);
      for (Partition part : parts == null ? List.<Partition>of() : parts) {
        partitions.alter(txn, writes, table, part);
      }
      return null;
    });
  }

  public void alter_partition(String dbName, String tableName, Partition partition) throws TException {
    alter("alter_partition", null, dbName, tableName, List.of(requireNonNull(partition, "partition")));
  }

  public void alter_partition_with_environment_context(String dbName, String tableName, Partition partition,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    alter("alter_partition_with_environment_context", null, dbName, tableName, List.of(requireNonNull(partition, "partition")));
  }

  public void alter_partitions(String dbName, String tableName, List<Partition> parts) throws TException {
    alter("alter_partitions", null, dbName, tableName, parts);
  }

  public void alter_partitions_with_environment_context(String dbName, String tableName, List<Partition> parts,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    alter("alter_partitions_with_environment_context", null, dbName, tableName, parts);
  }

  public AlterPartitionsResponse alter_partitions_req(AlterPartitionsRequest request) throws TException {
    alter("alter_partitions_req", request.getCatName(), request.getDbName(), request.getTableName(), request.getPartitions());
    return new AlterPartitionsResponse();
  }

  private void rename(String method, String catalog, String dbName, String tableName, List<String> oldValues, Partition renamed) throws TException {
    TableName name = tableName(catalog, dbName, tableName);
    List<String> locations = new ArrayList<>();
    handler.write(method, (txn, writes) -> {
      Table table = table(txn, name);
      Partition result = partitions.rename(txn, writes, table, oldValues, renamed);
      if (result.getSd() != null && result.getSd().getLocation() != null) {
        locations.add(result.getSd().getLocation());
      }
      return null;
    });
    locations.forEach(TreeCatHmsHandler::createDirectories);
  }

  public void rename_partition(String dbName, String tableName, List<String> oldValues, Partition renamed) throws TException {
    rename("rename_partition", null, dbName, tableName, oldValues, renamed);
  }

  public org.apache.hadoop.hive.metastore.api.RenamePartitionResponse rename_partition_req(org.apache.hadoop.hive.metastore.api.RenamePartitionRequest request)
      throws TException {
    rename("rename_partition_req", request.getCatName(), request.getDbName(), request.getTableName(), request.getPartVals(), request.getNewPart());
    return new org.apache.hadoop.hive.metastore.api.RenamePartitionResponse();
  }

  // ---- drop

  /** What a drop removed: the table (for its type) and the partitions (for their locations). */
  private record Dropped(Table table, List<Partition> partitions) {}

  private List<Partition> drop(String method, TableName name, List<List<String>> valuesList, List<String> partitionNames, boolean ifExists,
      boolean deleteData) throws TException {
    Dropped dropped = handler.write(method, (txn, writes) -> {
      Table table = table(txn, name);
      List<CatalogObject> found = new ArrayList<>();
      if (valuesList != null) {
        for (List<String> values : valuesList) {
          Optional<CatalogObject> object = partitions.find(txn, table, values);
          if (object.isPresent()) {
            found.add(object.get());
          } else if (!ifExists) {
            throw new NoSuchObjectException("Partition " + name.db() + "." + name.name() + " " + values + " does not exist");
          }
        }
      } else {
        found.addAll(partitions.byNames(txn, table, partitionNames));
        if (!ifExists && found.size() != new java.util.HashSet<>(partitionNames).size()) {
          throw new NoSuchObjectException("Some partitions to drop are missing from " + name.db() + "." + name.name());
        }
      }
      List<ObjectPath> paths = new ArrayList<>();
      for (CatalogObject object : found) {
        paths.add(object.path());
      }
      partitions.drop(txn, writes, table, paths);
      return new Dropped(table, partitions.partitions(table, found));
    });
    if (deleteData) {
      // Only after the commit: a refused or failed drop deletes nothing.
      HmsDataFiles.partitions(dropped.table(), dropped.partitions()).run();
    }
    return dropped.partitions();
  }

  public boolean drop_partition(String dbName, String tableName, List<String> values, boolean deleteData) throws TException {
    drop("drop_partition", tableName(dbName, tableName), List.of(values), null, false, deleteData);
    return true;
  }

  public boolean drop_partition_with_environment_context(String dbName, String tableName, List<String> values, boolean deleteData,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    drop("drop_partition_with_environment_context", tableName(dbName, tableName), List.of(values), null, false, deleteData);
    return true;
  }

  public boolean drop_partition_by_name(String dbName, String tableName, String partitionName, boolean deleteData) throws TException {
    drop("drop_partition_by_name", tableName(dbName, tableName), null, List.of(partitionName), false, deleteData);
    return true;
  }

  public boolean drop_partition_by_name_with_environment_context(String dbName, String tableName, String partitionName, boolean deleteData,
      org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
    drop("drop_partition_by_name_with_environment_context", tableName(dbName, tableName), null, List.of(partitionName), false, deleteData);
    return true;
  }

  public boolean drop_partition_req(DropPartitionRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    if (request.isSetPartVals() && !request.getPartVals().isEmpty()) {
      drop("drop_partition_req", name, List.of(request.getPartVals()), null, false, request.isDeleteData());
    } else {
      drop("drop_partition_req", name, null, List.of(requireNonNull(request.getPartName(), "partName")), false, request.isDeleteData());
    }
    return true;
  }

  public DropPartitionsResult drop_partitions_req(DropPartitionsRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    if (request.getParts() == null || !request.getParts().isSetNames()) {
      // Expressions are serialized Hive ExprNodeDescs: only Hive's expression proxy can evaluate them.
      throw new MetaException("drop_partitions_req with partition expressions is not supported by TreeCat; send partition names");
    }
    List<Partition> dropped = drop("drop_partitions_req", name, null, request.getParts().getNames(), request.isIfExists(), request.isDeleteData());
    DropPartitionsResult result = new DropPartitionsResult();
    if (request.isNeedResult()) {
      result.setPartitions(dropped);
    }
    return result;
  }

  // ---- names

  public List<String> partition_name_to_vals(String partitionName) throws TException {
    return HmsPartitions.nameToValues(partitionName);
  }

  public Map<String, String> partition_name_to_spec(String partitionName) throws TException {
    return HmsPartitions.nameToSpec(partitionName);
  }

  /** Hive's default (no {@code metastore.partition.name.whitelist.pattern}) accepts every name. */
  public boolean partition_name_has_valid_characters(List<String> values, boolean throwException) {
    return true;
  }

  // ---- tables by filter

  public List<String> get_table_names_by_filter(String dbName, String filter, short max) throws TException {
    String db;
    try {
      db = handler.db(dbName);
    } catch (NoSuchObjectException e) {
      throw new UnknownDBException(e.getMessage());
    }
    HmsTableFilter tableFilter = HmsTableFilter.parse(filter);
    return handler.read("get_table_names_by_filter", (txn, writes) -> {
      if (!TreeCatHmsHandler.isType(handler.get(txn, handler.dbPath(db)), TreeCatHmsHandler.NAMESPACE)) {
        throw new UnknownDBException("Database " + db + " does not exist");
      }
      List<String> result = new ArrayList<>();
      for (CatalogObject row : handler.children(txn, handler.dbPath(db), HmsTables.TABLE)) {
        if (max == 0) {
          break;
        }
        if (tableFilter.test(HmsTables.table(db, row.id(), row.value()))) {
          result.add(row.id());
          if (max >= 0 && result.size() >= max) {
            break;
          }
        }
      }
      return result;
    });
  }

  // ---- column statistics

  private boolean updateStatistics(String method, List<ColumnStatistics> statistics, boolean merge, Boolean tableLevel) throws TException {
    if (statistics == null || statistics.isEmpty()) {
      return true;
    }
    return handler.write(method, (txn, writes) -> {
      Map<ObjectPath, BsonValueHolder> pending = new LinkedHashMap<>();
      for (ColumnStatistics stats : statistics) {
        ColumnStatisticsDesc desc = requireNonNull(stats.getStatsDesc(), "statsDesc");
        if (tableLevel != null && desc.isIsTblLevel() != tableLevel) {
          throw new InvalidObjectException(method + " needs " + (tableLevel ? "table" : "partition") + "-level statistics");
        }
        names.checkCatalog(desc.getCatName());
        TableName name = tableName(desc.getDbName(), desc.getTableName());
        Table table = table(txn, name);
        List<ColumnStatisticsObj> columns = stats.getStatsObj() == null ? List.of() : stats.getStatsObj();
        HmsColumnStats.checkColumns(table, columns);
        CatalogObject object;
        if (desc.isIsTblLevel()) {
          object = handler.get(txn, handler.dbPath(name.db()).child(name.name())).orElseThrow();
        } else {
          if (desc.getPartName() == null) {
            throw new InvalidObjectException("Partition statistics name no partition");
          }
          List<String> values = HivePartitionNames.values(HmsPartitions.keyNames(table), desc.getPartName());
          object = partitions.require(txn, table, values);
        }
        CatalogObject target = object;
        BsonValueHolder holder = pending.computeIfAbsent(target.path(), path -> new BsonValueHolder(target.value()));
        if (merge) {
          for (ColumnStatisticsObj column : columns) {
            if (HmsColumnStats.read(holder.value).containsKey(column.getColName().toLowerCase(Locale.ROOT))) {
              throw new MetaException("Merging column statistics (set_aggr_stats_for with needMerge) is not supported by TreeCat: column "
                  + column.getColName() + " already has statistics; send needMerge=false to replace them");
            }
          }
        }
        long analyzed = desc.isSetLastAnalyzed() ? desc.getLastAnalyzed() : System.currentTimeMillis() / 1000;
        holder.value = HmsColumnStats.withStatistics(holder.value, columns, analyzed);
      }
      pending.forEach((path, holder) -> writes.add(new WriteOp.Update(path, ObjectKind.INNER, holder.value)));
      return true;
    });
  }

  private static final class BsonValueHolder {
    org.bson.BsonDocument value;

    BsonValueHolder(org.bson.BsonDocument value) {
      this.value = value;
    }
  }

  public boolean update_table_column_statistics(ColumnStatistics statistics) throws TException {
    return updateStatistics("update_table_column_statistics", List.of(requireNonNull(statistics, "statistics")), false, true);
  }

  public boolean update_partition_column_statistics(ColumnStatistics statistics) throws TException {
    return updateStatistics("update_partition_column_statistics", List.of(requireNonNull(statistics, "statistics")), false, false);
  }

  public org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse update_table_column_statistics_req(SetPartitionsStatsRequest request)
      throws TException {
    return new org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse(
        updateStatistics("update_table_column_statistics_req", request.getColStats(), request.isNeedMerge(), true));
  }

  public org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse update_partition_column_statistics_req(SetPartitionsStatsRequest request)
      throws TException {
    return new org.apache.hadoop.hive.metastore.api.SetPartitionsStatsResponse(
        updateStatistics("update_partition_column_statistics_req", request.getColStats(), request.isNeedMerge(), false));
  }

  public boolean set_aggr_stats_for(SetPartitionsStatsRequest request) throws TException {
    return updateStatistics("set_aggr_stats_for", request.getColStats(), request.isNeedMerge(), null);
  }

  public ColumnStatistics get_table_column_statistics(String dbName, String tableName, String column) throws TException {
    TableName name = tableName(dbName, tableName);
    return handler.read("get_table_column_statistics", (txn, writes) -> {
      Table table = table(txn, name);
      CatalogObject object = handler.get(txn, handler.dbPath(name.db()).child(name.name())).orElseThrow();
      ColumnStatisticsObj stats = HmsColumnStats.read(object.value()).get(column == null ? "" : column.toLowerCase(Locale.ROOT));
      if (stats == null) {
        throw new NoSuchObjectException("No column statistics of column " + column + " of table " + name.db() + "." + name.name());
      }
      return HmsColumnStats.statistics(HmsColumnStats.desc(true, table, null, object), List.of(stats));
    });
  }

  public ColumnStatistics get_partition_column_statistics(String dbName, String tableName, String partitionName, String column) throws TException {
    TableName name = tableName(dbName, tableName);
    return handler.read("get_partition_column_statistics", (txn, writes) -> {
      Table table = table(txn, name);
      CatalogObject object = partitions.require(txn, table, HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName));
      ColumnStatisticsObj stats = HmsColumnStats.read(object.value()).get(column == null ? "" : column.toLowerCase(Locale.ROOT));
      if (stats == null) {
        throw new NoSuchObjectException("No column statistics of column " + column + " of partition " + partitionName + " of " + name.db() + "." + name.name());
      }
      return HmsColumnStats.statistics(HmsColumnStats.desc(false, table, partitionName, object), List.of(stats));
    });
  }

  private static List<ColumnStatisticsObj> select(Map<String, ColumnStatisticsObj> stored, List<String> columns) {
    List<ColumnStatisticsObj> result = new ArrayList<>();
    for (String column : columns == null ? List.<String>of() : columns) {
      ColumnStatisticsObj stats = stored.get(column.toLowerCase(Locale.ROOT));
      if (stats != null) {
        result.add(stats);
      }
    }
    return result;
  }

  public TableStatsResult get_table_statistics_req(TableStatsRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    return handler.read("get_table_statistics_req", (txn, writes) -> {
      table(txn, name);
      CatalogObject object = handler.get(txn, handler.dbPath(name.db()).child(name.name())).orElseThrow();
      TableStatsResult result = new TableStatsResult(select(HmsColumnStats.read(object.value()), request.getColNames()));
      result.setIsStatsCompliant(true);
      return result;
    });
  }

  /** Partition name → its statistics for the asked columns; partitions missing or without any are left out. */
  private Map<String, List<ColumnStatisticsObj>> partitionStatistics(Transaction txn, TableName name, PartitionsStatsRequest request) throws TException {
    Table table = table(txn, name);
    Map<String, List<ColumnStatisticsObj>> result = new LinkedHashMap<>();
    List<CatalogObject> found = partitions.byNames(txn, table, request.getPartNames());
    List<String> foundNames = HmsPartitions.names(found, depth());
    for (int i = 0; i < found.size(); i++) {
      List<ColumnStatisticsObj> stats = select(HmsColumnStats.read(found.get(i).value()), request.getColNames());
      if (!stats.isEmpty()) {
        result.put(foundNames.get(i), stats);
      }
    }
    return result;
  }

  public PartitionsStatsResult get_partitions_statistics_req(PartitionsStatsRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    return handler.read("get_partitions_statistics_req", (txn, writes) -> {
      PartitionsStatsResult result = new PartitionsStatsResult(partitionStatistics(txn, name, request));
      result.setIsStatsCompliant(true);
      return result;
    });
  }

  public AggrStats get_aggr_stats_for(PartitionsStatsRequest request) throws TException {
    TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
    return handler.read("get_aggr_stats_for", (txn, writes) -> {
      List<String> asked = request.getPartNames() == null ? List.of() : new ArrayList<>(new java.util.LinkedHashSet<>(request.getPartNames()));
      List<String> columns = request.getColNames() == null ? List.of() : request.getColNames();
      Map<String, List<ColumnStatisticsObj>> byPartition = partitionStatistics(txn, name, request);
      long partsFound = byPartition.values().stream().filter(stats -> stats.size() == columns.size()).count();
      List<ColumnStatisticsObj> aggregated = new ArrayList<>();
      for (String column : columns) {
        List<ColumnStatisticsObj> parts = new ArrayList<>();
        for (List<ColumnStatisticsObj> stats : byPartition.values()) {
          for (ColumnStatisticsObj stat : stats) {
            if (stat.getColName().equalsIgnoreCase(column)) {
              parts.add(stat);
            }
          }
        }
        // Only what every asked partition has: Hive would extrapolate the rest, TreeCat leaves it out.
        if (!parts.isEmpty() && parts.size() == asked.size()) {
          ColumnStatisticsObj merged = HmsColumnStats.aggregate(column.toLowerCase(Locale.ROOT), parts);
          if (merged != null) {
            aggregated.add(merged);
          }
        }
      }
      AggrStats result = new AggrStats(aggregated, partsFound);
      result.setIsStatsCompliant(true);
      return result;
    });
  }

  private boolean deleteStatistics(String method, TableName name, List<String> partitionNames, List<String> columns, boolean failIfNone) throws TException {
    return handler.write(method, (txn, writes) -> {
      Table table = table(txn, name);
      List<CatalogObject> objects = new ArrayList<>();
      if (partitionNames == null) {
        objects.add(handler.get(txn, handler.dbPath(name.db()).child(name.name())).orElseThrow());
      } else {
        for (String partitionName : partitionNames) {
          objects.add(partitions.require(txn, table, HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName)));
        }
      }
      boolean any = false;
      for (CatalogObject object : objects) {
        org.bson.BsonDocument updated = HmsColumnStats.withoutStatistics(object.value(), columns);
        if (updated != null) {
          writes.add(new WriteOp.Update(object.path(), ObjectKind.INNER, updated));
          any = true;
        }
      }
      if (!any && failIfNone) {
        throw new NoSuchObjectException("No column statistics of " + (columns == null ? "any column" : "column " + columns) + " of " + name.db() + "." + name.name());
      }
      return true;
    });
  }

  public boolean delete_table_column_statistics(String dbName, String tableName, String column, String engine) throws TException {
    return deleteStatistics("delete_table_column_statistics", tableName(dbName, tableName), null, column == null ? null : List.of(column), column != null);
  }

  public boolean delete_partition_column_statistics(String dbName, String tableName, String partitionName, String column, String engine) throws TException {
    return deleteStatistics("delete_partition_column_statistics", tableName(dbName, tableName), List.of(requireNonNull(partitionName, "partName")),
        column == null ? null : List.of(column), column != null);
  }

  public boolean delete_column_statistics_req(DeleteColumnStatisticsRequest request) throws TException {
    TableName name = tableName(request.getCat_name(), request.getDb_name(), request.getTbl_name());
    List<String> columns = request.isSetCol_names() && !request.getCol_names().isEmpty() ? request.getCol_names() : null;
    if (request.isTableLevel()) {
      return deleteStatistics("delete_column_statistics_req", name, null, columns, false);
    }
    if (request.isSetPart_names() && !request.getPart_names().isEmpty()) {
      return deleteStatistics("delete_column_statistics_req", name, request.getPart_names(), columns, false);
    }
    // Every partition of the table.
    List<String> all = readNames("delete_column_statistics_req", name, (txn, table) -> partitions.all(txn, table, -1));
    return all.isEmpty() || deleteStatistics("delete_column_statistics_req", name, all, columns, false);
  }

}
