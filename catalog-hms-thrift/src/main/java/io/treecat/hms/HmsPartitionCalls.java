package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.hms.HmsCalls.TableName;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AddPartitionsResult;
import org.apache.hadoop.hive.metastore.api.AlterPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AlterPartitionsResponse;
import org.apache.hadoop.hive.metastore.api.AppendPartitionsRequest;
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
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;

/**
 * The partition calls: add, get, list (by values, names or Hive filter), alter, rename and drop of a
 * table's Hive partitions, one tree level per partition key ({@link HmsPartitions}). Each call is one
 * lake transaction ({@link HmsCalls}); names are the calls' ({@code @cat#db} forms, lower-cased).
 */
final class HmsPartitionCalls {
    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsPartitionCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    private TableName tableName(String dbName, String tableName) throws TException {
        return calls.tableName(dbName, tableName);
    }

    private TableName tableName(String catalog, String dbName, String tableName) throws TException {
        return calls.tableName(catalog, dbName, tableName);
    }

    private static int max(int max) {
        return max < 0 ? -1 : max;
    }

    /** How deep a table is: {@code /<catalog>/<db>/<table>}. */
    static final int TABLE_DEPTH = 3;

    private List<Partition> read(TableName name, Lister lister) throws TException {
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            return partitions.partitions(table, lister.list(txn, table));
        });
    }

    private List<String> readNames(TableName name, Lister lister) throws TException {
        return calls.read(
                Action.LIST_PARTITIONS,
                calls.tablePath(name),
                txn -> HmsPartitions.names(lister.list(txn, calls.requireTable(txn, name)), TABLE_DEPTH));
    }

    @FunctionalInterface
    interface Lister {
        List<CatalogObject> list(LakeTransaction txn, Table table) throws TException;
    }

    // ---- add

    private List<Partition> add(
            String catalog, String dbName, String tableName, List<Partition> parts, boolean ifNotExists)
            throws TException {
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
                calls.names().checkCatalog(parts.get(0).getCatName());
            }
        }
        if (db == null || tbl == null) {
            throw new InvalidObjectException("A partition to add names no database or table");
        }
        for (Partition part : parts) {
            if (part != null
                    && part.getDbName() != null
                    && part.getTableName() != null
                    && (!calls.db(part.getDbName()).equals(calls.db(db))
                            || !HmsNames.normalize(part.getTableName()).equals(HmsNames.normalize(tbl)))) {
                throw new MetaException("Partition does not belong to target table " + db + "." + tbl + ": "
                        + part.getDbName() + "." + part.getTableName());
            }
        }
        TableName name = tableName(catalog, db, tbl);
        HmsCalls.Made<List<Partition>> added = calls.write(Action.ADD_PARTITIONS, calls.tablePath(name), txn -> {
            Optional<TableEntry> entry = calls.findTable(txn, name.db(), name.name());
            if (entry.isEmpty()) {
                throw new InvalidObjectException("Unable to add partitions because table or database do not exist: "
                        + name.db() + "." + name.name());
            }
            Table table = HmsTables.table(name.db(), name.name(), entry.get());
            return new HmsCalls.Made<>(partitions.add(txn, table, parts, ifNotExists), HmsTables.location(table));
        });
        added.value().forEach(part -> calls.createDirectories(part.getSd().getLocation(), added.home()));
        return added.value();
    }

    public Partition add_partition(Partition partition) throws TException {
        List<Partition> added = add(null, null, null, List.of(requireNonNull(partition, "partition")), false);
        return added.get(0);
    }

    public Partition add_partition_with_environment_context(
            Partition partition, org.apache.hadoop.hive.metastore.api.EnvironmentContext context) throws TException {
        return add(null, null, null, List.of(requireNonNull(partition, "partition")), false)
                .get(0);
    }

    public int add_partitions(List<Partition> parts) throws TException {
        return add(null, null, null, parts, false).size();
    }

    public AddPartitionsResult add_partitions_req(AddPartitionsRequest request) throws TException {
        List<Partition> added = add(
                request.getCatName(),
                request.getDbName(),
                request.getTblName(),
                request.getParts(),
                request.isIfNotExists());
        AddPartitionsResult result = new AddPartitionsResult();
        if (request.isNeedResult()) {
            result.setPartitions(added);
        }
        return result; // isStatsCompliant unset, as Hive leaves it outside Hive transactions
    }

    private Partition append(String catalog, String dbName, String tableName, List<String> values, String partitionName)
            throws TException {
        TableName name = tableName(catalog, dbName, tableName);
        HmsCalls.Made<Partition> added = calls.write(Action.ADD_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<String> vals = values != null && !values.isEmpty()
                    ? values
                    : HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName);
            Partition partition = new Partition();
            partition.setValues(new ArrayList<>(vals));
            return new HmsCalls.Made<>(
                    partitions.add(txn, table, List.of(partition), false).get(0), HmsTables.location(table));
        });
        calls.createDirectories(added.value().getSd().getLocation(), added.home());
        return added.value();
    }

    public Partition append_partition(String dbName, String tableName, List<String> values) throws TException {
        return append(null, dbName, tableName, values, null);
    }

    public Partition append_partition_with_environment_context(
            String dbName,
            String tableName,
            List<String> values,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        return append(null, dbName, tableName, values, null);
    }

    public Partition append_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
        return append(null, dbName, tableName, null, partitionName);
    }

    public Partition append_partition_by_name_with_environment_context(
            String dbName,
            String tableName,
            String partitionName,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        return append(null, dbName, tableName, null, partitionName);
    }

    public Partition append_partition_req(AppendPartitionsRequest request) throws TException {
        return append(
                request.getCatalogName(),
                request.getDbName(),
                request.getTableName(),
                request.getPartVals(),
                request.getName());
    }

    // ---- get one

    private Partition one(TableName name, List<String> values, String partitionName) throws TException {
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<String> vals =
                    values != null ? values : HivePartitionNames.values(HmsPartitions.keyNames(table), partitionName);
            return HmsPartitions.partition(
                    table.getDbName(),
                    table.getTableName(),
                    partitions.require(txn, table, vals).value());
        });
    }

    public Partition get_partition(String dbName, String tableName, List<String> values) throws TException {
        return one(tableName(dbName, tableName), values, null);
    }

    public GetPartitionResponse get_partition_req(GetPartitionRequest request) throws TException {
        return new GetPartitionResponse(one(
                tableName(request.getCatName(), request.getDbName(), request.getTblName()),
                request.getPartVals(),
                null));
    }

    public Partition get_partition_with_auth(
            String dbName, String tableName, List<String> values, String user, List<String> groups) throws TException {
        return one(tableName(dbName, tableName), values, null);
    }

    public Partition get_partition_by_name(String dbName, String tableName, String partitionName) throws TException {
        return one(tableName(dbName, tableName), null, partitionName);
    }

    // ---- list

    public List<Partition> get_partitions(String dbName, String tableName, short max) throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
    }

    public PartitionsResponse get_partitions_req(PartitionsRequest request) throws TException {
        return new PartitionsResponse(read(
                tableName(request.getCatName(), request.getDbName(), request.getTblName()),
                (txn, table) -> partitions.all(txn, table, max(request.getMaxParts()))));
    }

    public List<Partition> get_partitions_with_auth(
            String dbName, String tableName, short max, String user, List<String> groups) throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
    }

    public List<String> get_partition_names(String dbName, String tableName, short max) throws TException {
        return readNames(tableName(dbName, tableName), (txn, table) -> partitions.all(txn, table, max(max)));
    }

    public List<String> fetch_partition_names_req(PartitionsRequest request) throws TException {
        return readNames(
                tableName(request.getCatName(), request.getDbName(), request.getTblName()),
                (txn, table) -> partitions.all(txn, table, max(request.getMaxParts())));
    }

    public List<Partition> get_partitions_ps(String dbName, String tableName, List<String> values, short max)
            throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
    }

    public List<Partition> get_partitions_ps_with_auth(
            String dbName, String tableName, List<String> values, short max, String user, List<String> groups)
            throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
    }

    public GetPartitionsPsWithAuthResponse get_partitions_ps_with_auth_req(GetPartitionsPsWithAuthRequest request)
            throws TException {
        TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
        return new GetPartitionsPsWithAuthResponse(read(
                name,
                (txn, table) -> request.isSetPartNames()
                        ? partitions.byNames(txn, table, request.getPartNames())
                        : partitions.matching(txn, table, request.getPartVals(), max(request.getMaxParts()))));
    }

    public List<String> get_partition_names_ps(String dbName, String tableName, List<String> values, short max)
            throws TException {
        return readNames(
                tableName(dbName, tableName), (txn, table) -> partitions.matching(txn, table, values, max(max)));
    }

    public GetPartitionNamesPsResponse get_partition_names_ps_req(GetPartitionNamesPsRequest request)
            throws TException {
        return new GetPartitionNamesPsResponse(readNames(
                tableName(request.getCatName(), request.getDbName(), request.getTblName()),
                (txn, table) -> partitions.matching(txn, table, request.getPartValues(), max(request.getMaxParts()))));
    }

    public List<Partition> get_partitions_by_filter(String dbName, String tableName, String filter, short max)
            throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.filtered(txn, table, filter, max(max)));
    }

    public List<Partition> get_partitions_by_filter_req(GetPartitionsByFilterRequest request) throws TException {
        return read(
                tableName(request.getCatName(), request.getDbName(), request.getTblName()),
                (txn, table) -> partitions.filtered(txn, table, request.getFilter(), max(request.getMaxParts())));
    }

    public int get_num_partitions_by_filter(String dbName, String tableName, String filter) throws TException {
        TableName name = tableName(dbName, tableName);
        return calls.read(
                Action.LIST_PARTITIONS,
                calls.tablePath(name),
                txn -> partitions
                        .filtered(txn, calls.requireTable(txn, name), filter, -1)
                        .size());
    }

    public List<Partition> get_partitions_by_names(String dbName, String tableName, List<String> partitionNames)
            throws TException {
        return read(tableName(dbName, tableName), (txn, table) -> partitions.byNames(txn, table, partitionNames));
    }

    public GetPartitionsByNamesResult get_partitions_by_names_req(GetPartitionsByNamesRequest request)
            throws TException {
        return new GetPartitionsByNamesResult(read(
                tableName(request.getDb_name(), request.getTbl_name()),
                (txn, table) -> partitions.byNames(txn, table, request.getNames())));
    }

    // ---- alter, rename

    private void alter(String catalog, String dbName, String tableName, List<Partition> parts) throws TException {
        TableName name = tableName(catalog, dbName, tableName);
        calls.write(Action.ALTER_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            for (Partition part : parts == null ? List.<Partition>of() : parts) {
                partitions.alter(txn, table, part);
            }
            return null;
        });
    }

    public void alter_partition(String dbName, String tableName, Partition partition) throws TException {
        alter(null, dbName, tableName, List.of(requireNonNull(partition, "partition")));
    }

    public void alter_partition_with_environment_context(
            String dbName,
            String tableName,
            Partition partition,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        alter(null, dbName, tableName, List.of(requireNonNull(partition, "partition")));
    }

    public void alter_partitions(String dbName, String tableName, List<Partition> parts) throws TException {
        alter(null, dbName, tableName, parts);
    }

    public void alter_partitions_with_environment_context(
            String dbName,
            String tableName,
            List<Partition> parts,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        alter(null, dbName, tableName, parts);
    }

    public AlterPartitionsResponse alter_partitions_req(AlterPartitionsRequest request) throws TException {
        alter(request.getCatName(), request.getDbName(), request.getTableName(), request.getPartitions());
        return new AlterPartitionsResponse();
    }

    private void rename(String catalog, String dbName, String tableName, List<String> oldValues, Partition renamed)
            throws TException {
        TableName name = tableName(catalog, dbName, tableName);
        HmsCalls.Made<Partition> result = calls.write(Action.ALTER_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            return new HmsCalls.Made<>(partitions.rename(txn, table, oldValues, renamed), HmsTables.location(table));
        });
        if (result.value().getSd() != null) {
            calls.createDirectories(result.value().getSd().getLocation(), result.home());
        }
    }

    public void rename_partition(String dbName, String tableName, List<String> oldValues, Partition renamed)
            throws TException {
        rename(null, dbName, tableName, oldValues, renamed);
    }

    public org.apache.hadoop.hive.metastore.api.RenamePartitionResponse rename_partition_req(
            org.apache.hadoop.hive.metastore.api.RenamePartitionRequest request) throws TException {
        rename(
                request.getCatName(),
                request.getDbName(),
                request.getTableName(),
                request.getPartVals(),
                request.getNewPart());
        return new org.apache.hadoop.hive.metastore.api.RenamePartitionResponse();
    }

    // ---- drop

    private List<Partition> drop(
            TableName name,
            List<List<String>> valuesList,
            List<String> partitionNames,
            boolean ifExists,
            boolean deleteData)
            throws TException {
        return calls.write(Action.DROP_PARTITIONS, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            List<CatalogObject> found = new ArrayList<>();
            if (valuesList != null) {
                for (List<String> values : valuesList) {
                    Optional<CatalogObject> object = partitions.find(txn, table, values);
                    if (object.isPresent()) {
                        found.add(object.get());
                    } else if (!ifExists) {
                        throw new NoSuchObjectException(
                                "Partition " + name.db() + "." + name.name() + " " + values + " does not exist");
                    }
                }
            } else {
                found.addAll(partitions.byNames(txn, table, partitionNames));
                if (!ifExists && found.size() != new java.util.HashSet<>(partitionNames).size()) {
                    throw new NoSuchObjectException(
                            "Some partitions to drop are missing from " + name.db() + "." + name.name());
                }
            }
            List<ObjectPath> paths = new ArrayList<>();
            for (CatalogObject object : found) {
                paths.add(object.path());
            }
            partitions.drop(txn, table, paths);
            List<Partition> dropped = partitions.partitions(table, found);
            if (deleteData) {
                HmsDataFiles.Plan doomed = HmsDataFiles.partitions(table, dropped);
                // Only after the commit: a refused or failed drop deletes nothing.
                txn.afterCommit(doomed::run);
            }
            return dropped;
        });
    }

    public boolean drop_partition(String dbName, String tableName, List<String> values, boolean deleteData)
            throws TException {
        drop(tableName(dbName, tableName), List.of(values), null, false, deleteData);
        return true;
    }

    public boolean drop_partition_with_environment_context(
            String dbName,
            String tableName,
            List<String> values,
            boolean deleteData,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        drop(tableName(dbName, tableName), List.of(values), null, false, deleteData);
        return true;
    }

    public boolean drop_partition_by_name(String dbName, String tableName, String partitionName, boolean deleteData)
            throws TException {
        drop(tableName(dbName, tableName), null, List.of(partitionName), false, deleteData);
        return true;
    }

    public boolean drop_partition_by_name_with_environment_context(
            String dbName,
            String tableName,
            String partitionName,
            boolean deleteData,
            org.apache.hadoop.hive.metastore.api.EnvironmentContext context)
            throws TException {
        drop(tableName(dbName, tableName), null, List.of(partitionName), false, deleteData);
        return true;
    }

    public boolean drop_partition_req(DropPartitionRequest request) throws TException {
        TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
        if (request.isSetPartVals() && !request.getPartVals().isEmpty()) {
            drop(name, List.of(request.getPartVals()), null, false, request.isDeleteData());
        } else {
            drop(name, null, List.of(requireNonNull(request.getPartName(), "partName")), false, request.isDeleteData());
        }
        return true;
    }

    public DropPartitionsResult drop_partitions_req(DropPartitionsRequest request) throws TException {
        TableName name = tableName(request.getCatName(), request.getDbName(), request.getTblName());
        if (request.getParts() == null || !request.getParts().isSetNames()) {
            // Expressions are serialized Hive ExprNodeDescs: only Hive's expression proxy can evaluate them.
            throw new MetaException(
                    "drop_partitions_req with partition expressions is not supported by TreeCat; send partition names");
        }
        List<Partition> dropped =
                drop(name, null, request.getParts().getNames(), request.isIfExists(), request.isDeleteData());
        DropPartitionsResult result = new DropPartitionsResult();
        if (request.isNeedResult()) {
            result.setPartitions(dropped);
        }
        return result;
    }

    // ---- names

    public List<String> partition_name_to_vals(String partitionName) throws TException {
        return new ArrayList<>(
                HivePartitionNames.specIgnoringMalformed(partitionName).values());
    }

    public Map<String, String> partition_name_to_spec(String partitionName) throws TException {
        return new LinkedHashMap<>(HivePartitionNames.specIgnoringMalformed(partitionName));
    }

    /** Hive's default (no {@code metastore.partition.name.whitelist.pattern}) accepts every name. */
    public boolean partition_name_has_valid_characters(List<String> values, boolean throwException) {
        return true;
    }
}
