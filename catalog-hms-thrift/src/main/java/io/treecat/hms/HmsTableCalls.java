package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveNames;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Warehouse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.AlterTableRequest;
import org.apache.hadoop.hive.metastore.api.AlterTableResponse;
import org.apache.hadoop.hive.metastore.api.CreateTableRequest;
import org.apache.hadoop.hive.metastore.api.DropTableRequest;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTableResult;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesResult;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.SQLAllTableConstraints;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.apache.hadoop.hive.metastore.api.UnknownDBException;
import org.apache.thrift.TException;

/**
 * The table calls: list, get, create, drop and alter (rename included) of Hive tables, each the
 * lake's {@link TableEntry} ({@link HmsTables} translates). Alters are {@link HmsTableAlter}'s; constraints
 * given with a create are {@link HmsConstraints}'.
 */
final class HmsTableCalls {
    /** Hive's {@code TableType} names, the only types {@code get_tables_by_type} accepts. */
    private static final Set<String> TABLE_TYPES =
            Set.of("MANAGED_TABLE", "EXTERNAL_TABLE", "VIRTUAL_VIEW", "INDEX_TABLE", "MATERIALIZED_VIEW");

    private static final String VIRTUAL_VIEW = "VIRTUAL_VIEW";

    private final HmsCalls calls;
    private final HmsPartitions partitions;
    private final HmsTableAlter alters;

    HmsTableCalls(HmsCalls calls, HmsPartitions partitions, HmsColumnTypeChanges typeChanges) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
        this.alters = new HmsTableAlter(calls, partitions, typeChanges);
    }

    // ---- list

    public List<String> get_all_tables(String name) throws TException {
        return get_tables(name, "*");
    }

    public List<String> get_tables(String name, String pattern) throws TException {
        return tableNames(calls.db(name), pattern, table -> true);
    }

    public List<String> get_tables_by_type(String name, String pattern, String tableType) throws TException {
        if (tableType != null && !TABLE_TYPES.contains(tableType)) {
            // Hive parses the type into its TableType enum and answers the failure as a MetaException.
            throw new MetaException("No such table type: " + tableType + " (one of " + TABLE_TYPES + ")");
        }
        return tableNames(
                calls.db(name),
                pattern,
                table -> tableType == null || tableType.isEmpty() || tableType.equals(table.getTableType()));
    }

    /** The tables of {@code db} matching {@code pattern} whose Hive table passes {@code test}, in id order. */
    private List<String> tableNames(String db, String pattern, Predicate<Table> test) throws TException {
        Pattern matcher = HmsNames.pattern(pattern);
        return calls.read(Action.LIST_TABLES, calls.dbPath(db), txn -> {
            List<String> result = new ArrayList<>();
            for (CatalogObject row : txn.children(calls.dbPath(db), ObjectType.TABLE)) {
                // Only the tables the caller may describe, as Iceberg's lists (docs/security.md, "Filtering").
                if (matcher.matcher(row.id()).matches()
                        && calls.maySee(row.path(), ObjectType.TABLE)
                        && test.test(HmsTables.table(db, row.id(), TableEntry.decode(row.value())))) {
                    result.add(row.id());
                }
            }
            return result;
        });
    }

    public List<TableMeta> get_table_meta(String dbPatterns, String tablePatterns, List<String> tableTypes)
            throws TException {
        Pattern dbMatcher = HmsNames.pattern(HmsDatabaseCalls.databasePattern(calls.names(), dbPatterns));
        Pattern tableMatcher = HmsNames.pattern(tablePatterns);
        return calls.read(Action.LIST_TABLES, calls.catalogPath(), txn -> {
            List<TableMeta> result = new ArrayList<>();
            for (CatalogObject dbRow : txn.children(calls.catalogPath(), ObjectType.NAMESPACE)) {
                if (!dbMatcher.matcher(dbRow.id()).matches() || !calls.maySee(dbRow.path(), ObjectType.NAMESPACE)) {
                    continue;
                }
                for (CatalogObject row : txn.children(dbRow.path(), ObjectType.TABLE)) {
                    if (!tableMatcher.matcher(row.id()).matches() || !calls.maySee(row.path(), ObjectType.TABLE)) {
                        continue;
                    }
                    Table table = HmsTables.table(dbRow.id(), row.id(), TableEntry.decode(row.value()));
                    if (tableTypes != null && !tableTypes.isEmpty() && !tableTypes.contains(table.getTableType())) {
                        continue;
                    }
                    TableMeta meta = new TableMeta(dbRow.id(), row.id(), table.getTableType());
                    meta.setCatName(HmsNames.HIVE_CATALOG);
                    meta.setOwnerName(table.getOwner());
                    meta.setOwnerType(table.getOwnerType());
                    if (table.getParameters() != null && table.getParameters().get(HmsTables.COMMENT) != null) {
                        meta.setComments(table.getParameters().get(HmsTables.COMMENT));
                    }
                    result.add(meta);
                }
            }
            return result;
        });
    }

    public List<String> get_table_names_by_filter(String dbName, String filter, short max) throws TException {
        String db;
        try {
            db = calls.db(dbName);
        } catch (NoSuchObjectException e) {
            throw new UnknownDBException(e.getMessage());
        }
        HmsTableFilter tableFilter = HmsTableFilter.of(partitions.parseFilter(filter));
        return calls.read(Action.LIST_TABLES, calls.dbPath(db), txn -> {
            List<String> result = new ArrayList<>();
            if (!calls.databaseExists(txn, db)) {
                return result; // as Hive's store answers
            }
            for (CatalogObject row : txn.children(calls.dbPath(db), ObjectType.TABLE)) {
                if (max == 0) {
                    break;
                }
                if (calls.maySee(row.path(), ObjectType.TABLE)
                        && tableFilter.test(HmsTables.table(db, row.id(), TableEntry.decode(row.value())))) {
                    result.add(row.id());
                    if (max >= 0 && result.size() >= max) {
                        break;
                    }
                }
            }
            return result;
        });
    }

    // ---- get

    public GetTableResult get_table_req(GetTableRequest request) throws TException {
        calls.names().checkCatalog(request.getCatName());
        String db = calls.db(request.getDbName());
        String name = HmsNames.normalize(request.getTblName());
        return calls.read(
                Action.LOAD_TABLE,
                calls.tablePath(db, name),
                txn -> new GetTableResult(calls.requireTable(txn, db, name)));
    }

    public GetTablesResult get_table_objects_by_name_req(GetTablesRequest request) throws TException {
        calls.names().checkCatalog(request.getCatName());
        return new GetTablesResult(legacyGetTableObjectsByName(
                request.getDbName(), request.getTblNames() == null ? List.of() : request.getTblNames()));
    }

    /** {@code get_table} of the Hive 2.3/3.1 IDL (see {@link LegacyCalls}). */
    Table legacyGetTable(String dbName, String tableName) throws TException {
        String db = calls.db(dbName);
        String name = HmsNames.normalize(requireNonNull(tableName, "tbl_name"));
        return calls.read(Action.LOAD_TABLE, calls.tablePath(db, name), txn -> calls.requireTable(txn, db, name));
    }

    /** {@code get_table_objects_by_name} of the Hive 2.3/3.1 IDL: the tables that exist, in the order asked. */
    List<Table> legacyGetTableObjectsByName(String dbName, List<String> tableNames) throws TException {
        if (dbName == null || dbName.isEmpty()) {
            throw new UnknownDBException("DB name is null or empty");
        }
        String db;
        try {
            db = calls.db(dbName);
        } catch (NoSuchObjectException e) {
            throw new UnknownDBException(e.getMessage());
        }
        // Checked as seeing the database, then each table filtered as a list is: a table the caller may not describe is
        // left out exactly as a missing one is.
        return calls.read(Action.LOAD_NAMESPACE, calls.dbPath(db), txn -> {
            if (!calls.databaseExists(txn, db)) {
                throw new UnknownDBException("Could not find database hive." + db);
            }
            List<Table> tables = new ArrayList<>();
            for (String tableName : tableNames) {
                if (tableName == null) {
                    continue;
                }
                String name = HmsNames.normalize(tableName);
                Optional<TableEntry> entry = calls.findTable(txn, db, name);
                if (entry.isPresent() && calls.maySee(calls.tablePath(db, name), ObjectType.TABLE)) {
                    tables.add(HmsTables.table(db, name, entry.get()));
                }
            }
            return tables;
        });
    }

    // ---- create

    public void create_table_req(CreateTableRequest request) throws TException {
        SQLAllTableConstraints constraints = new SQLAllTableConstraints();
        constraints.setPrimaryKeys(request.getPrimaryKeys());
        constraints.setForeignKeys(request.getForeignKeys());
        constraints.setUniqueConstraints(request.getUniqueConstraints());
        constraints.setNotNullConstraints(request.getNotNullConstraints());
        constraints.setDefaultConstraints(request.getDefaultConstraints());
        constraints.setCheckConstraints(request.getCheckConstraints());
        createTable(request.getTable(), constraints);
    }

    public void create_table(Table table) throws TException {
        createTable(table, new SQLAllTableConstraints());
    }

    public void create_table_with_environment_context(Table table, EnvironmentContext context) throws TException {
        createTable(table, new SQLAllTableConstraints());
    }

    /**
     * Creates {@code table} with {@code constraints} in one commit: a constraint Hive refuses leaves no table. A
     * foreign key to another table writes that table too (its copy of the key, {@link HmsConstraintStore}).
     */
    void createTable(Table table, SQLAllTableConstraints constraints) throws TException {
        if (table == null
                || table.getTableName() == null
                || table.getTableName().isEmpty()) {
            throw new InvalidObjectException("A table needs a name");
        }
        calls.names().checkCatalog(table.getCatName());
        String db = calls.db(table.getDbName());
        // Hive's name rule (and the lake's) before anything is read or made.
        HiveNames.checkTable(table.getTableName());
        String name = HmsNames.normalize(table.getTableName());
        String given = table.getSd() == null ? null : table.getSd().getLocation();
        if (given != null && !given.isEmpty()) {
            // A client's own location: placeable, and inside the warehouse unless external locations are allowed.
            calls.warehouse().check(given, Warehouse.LOCATION);
        }
        ObjectPath path = calls.tablePath(db, name);
        HmsCalls.Placed created = calls.write(Action.CREATE_TABLE, path, txn -> {
            Table stored = table.deepCopy();
            stored.setDbName(db);
            stored.setTableName(name);
            stored.setCatName(HmsNames.HIVE_CATALOG);
            if (stored.getCreateTime() == 0) {
                stored.setCreateTime((int) (System.currentTimeMillis() / 1000));
            }
            if (stored.getParameters() == null) {
                stored.setParameters(new HashMap<>());
            }
            if (!calls.databaseExists(txn, db)) {
                throw new InvalidObjectException("Database " + db + " does not exist"); // Hive's type for it
            }
            String dbLocation = calls.requireDatabase(txn, db).getLocationUri();
            if (txn.read(path).isPresent()) {
                throw new AlreadyExistsException("Table hive." + db + "." + name + " already exists");
            }
            // Hive checks the columns once it knows the table is new.
            HmsTables.checkColumns(stored, true, InvalidObjectException::new);
            boolean view = VIRTUAL_VIEW.equals(stored.getTableType());
            if (stored.getSd() != null
                    && !view
                    && (stored.getSd().getLocation() == null
                            || stored.getSd().getLocation().isEmpty())) {
                // The default: one escaped path segment below the database's location ("a/b" is a%2Fb), checked.
                stored.getSd().setLocation(calls.warehouse().childLocation(dbLocation, name));
            }
            TableEntry entry = HmsTables.entry(stored, null);
            if (hasAny(constraints)) {
                HmsConstraintStore store = new HmsConstraintStore(calls, txn);
                HmsConstraintStore.TableConstraints made = store.created(db, name, entry, stored);
                HmsConstraints.addAll(store, constraints);
                entry = store.entry(made);
                store.stage();
            }
            txn.add(path, entry);
            // A view has no directory.
            return new HmsCalls.Placed(
                    stored.getSd() == null || view ? null : stored.getSd().getLocation(), calls.home(txn));
        });
        // Hive's metastore makes a new table's directory; Spark reads an unpartitioned table's path before its first
        // INSERT and fails if it is missing.
        calls.createDirectories(created);
    }

    private static boolean hasAny(SQLAllTableConstraints constraints) {
        return constraints.getPrimaryKeysSize() > 0
                || constraints.getForeignKeysSize() > 0
                || constraints.getUniqueConstraintsSize() > 0
                || constraints.getNotNullConstraintsSize() > 0
                || constraints.getDefaultConstraintsSize() > 0
                || constraints.getCheckConstraintsSize() > 0;
    }

    // ---- drop

    public void drop_table_req(DropTableRequest request) throws TException {
        calls.names().checkCatalog(request.getCatalogName());
        dropTable(request.getDbName(), request.getTableName(), request.isDeleteData());
    }

    public void drop_table(String dbName, String name, boolean deleteData) throws TException {
        dropTable(dbName, name, deleteData);
    }

    public void drop_table_with_environment_context(
            String dbName, String name, boolean deleteData, EnvironmentContext context) throws TException {
        dropTable(dbName, name, deleteData);
    }

    private void dropTable(String dbName, String tableName, boolean deleteData) throws TException {
        // A null or empty table name is the caller's error (a MetaException naming it), not a failure of the server.
        HmsCalls.TableName named = calls.tableName(dbName, tableName);
        String db = named.db();
        String name = named.name();
        ObjectPath path = calls.tablePath(named);
        calls.write(Action.DROP_TABLE, path, txn -> {
            Table table = calls.requireTable(txn, db, name);
            txn.remove(path);
            if (deleteData) {
                HmsDataFiles.Plan doomed = partitions.dropData(txn, table);
                // Only after the commit: a refused or failed drop deletes nothing.
                txn.afterCommit(doomed::run);
            }
            return null;
        });
    }

    // ---- alter (HmsTableAlter)

    /** The legacy alter: no environment context, so no expected parameter and no cascade. */
    public void alter_table(String dbName, String tableName, Table newTable) throws TException {
        alters.alterTable(dbName, tableName, newTable, null, null, false);
    }

    /** The legacy alter with Hive's CASCADE: column changes reach every partition's storage descriptor. */
    public void alter_table_with_cascade(String dbName, String tableName, Table newTable, boolean cascade)
            throws TException {
        alters.alterTable(dbName, tableName, newTable, null, null, cascade);
    }

    public void alter_table_with_environment_context(
            String dbName, String tableName, Table newTable, EnvironmentContext context) throws TException {
        Map<String, String> properties =
                context == null || context.getProperties() == null ? Map.of() : context.getProperties();
        alters.alterTable(
                dbName,
                tableName,
                newTable,
                properties.get(HmsIcebergCommits.EXPECTED_KEY),
                properties.get(HmsIcebergCommits.EXPECTED_VALUE),
                HmsTableAlter.isCascade(properties));
    }

    /** Hive 4's form: the expected parameter is a field of the request, or (older clients) in the context. */
    public AlterTableResponse alter_table_req(AlterTableRequest request) throws TException {
        calls.names().checkCatalog(request.getCatName());
        Map<String, String> properties = request.getEnvironmentContext() == null
                        || request.getEnvironmentContext().getProperties() == null
                ? Map.of()
                : request.getEnvironmentContext().getProperties();
        String expectedKey = request.isSetExpectedParameterKey()
                ? request.getExpectedParameterKey()
                : properties.get(HmsIcebergCommits.EXPECTED_KEY);
        String expectedValue = request.isSetExpectedParameterValue()
                ? request.getExpectedParameterValue()
                : properties.get(HmsIcebergCommits.EXPECTED_VALUE);
        alters.alterTable(
                request.getDbName(),
                request.getTableName(),
                request.getTable(),
                expectedKey,
                expectedValue,
                HmsTableAlter.isCascade(properties));
        return new AlterTableResponse();
    }
}
