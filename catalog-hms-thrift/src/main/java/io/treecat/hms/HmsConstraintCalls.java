package io.treecat.hms;

import static io.treecat.hms.HmsConstraintStore.normalize;
import static java.util.Objects.requireNonNull;

import io.treecat.hms.HmsConstraintStore.TableConstraints;
import io.treecat.lakehouse.auth.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AddCheckConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddDefaultConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddForeignKeyRequest;
import org.apache.hadoop.hive.metastore.api.AddNotNullConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddPrimaryKeyRequest;
import org.apache.hadoop.hive.metastore.api.AddUniqueConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AllTableConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.AllTableConstraintsResponse;
import org.apache.hadoop.hive.metastore.api.CheckConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.CheckConstraintsResponse;
import org.apache.hadoop.hive.metastore.api.DefaultConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.DefaultConstraintsResponse;
import org.apache.hadoop.hive.metastore.api.DropConstraintRequest;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.ForeignKeysResponse;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsResponse;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysResponse;
import org.apache.hadoop.hive.metastore.api.SQLAllTableConstraints;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsResponse;
import org.apache.thrift.TException;

/**
 * Hive's table constraints (primary, foreign, unique, not-null, default and check), kept on the table objects
 * ({@link HmsConstraintStore}) and checked as Hive checks them ({@link HmsConstraints}). HiveServer2 and Impala read
 * them on every {@code DESCRIBE FORMATTED}: a table without constraints, or one that does not exist, answers empty
 * lists, as Hive's store does. Each change is one lake transaction over every table it touches (a foreign key
 * writes its child and its parent).
 */
final class HmsConstraintCalls {
    private final HmsCalls calls;
    private final HmsTableCalls tables;

    HmsConstraintCalls(HmsCalls calls, HmsTableCalls tables) {
        this.calls = requireNonNull(calls, "calls is null");
        this.tables = requireNonNull(tables, "tables is null");
    }

    // ---- create with constraints

    public void create_table_with_constraints(
            Table table,
            List<SQLPrimaryKey> primaryKeys,
            List<SQLForeignKey> foreignKeys,
            List<SQLUniqueConstraint> uniqueConstraints,
            List<SQLNotNullConstraint> notNullConstraints,
            List<SQLDefaultConstraint> defaultConstraints,
            List<SQLCheckConstraint> checkConstraints)
            throws TException {
        SQLAllTableConstraints constraints = new SQLAllTableConstraints();
        constraints.setPrimaryKeys(primaryKeys);
        constraints.setForeignKeys(foreignKeys);
        constraints.setUniqueConstraints(uniqueConstraints);
        constraints.setNotNullConstraints(notNullConstraints);
        constraints.setDefaultConstraints(defaultConstraints);
        constraints.setCheckConstraints(checkConstraints);
        tables.createTable(table, constraints);
    }

    // ---- add

    public void add_primary_key(AddPrimaryKeyRequest request) throws TException {
        List<SQLPrimaryKey> keys = request.getPrimaryKeyCols();
        change(
                firstTable(keys, SQLPrimaryKey::getTable_db, SQLPrimaryKey::getTable_name),
                store -> HmsConstraints.addPrimaryKeys(store, keys));
    }

    public void add_foreign_key(AddForeignKeyRequest request) throws TException {
        List<SQLForeignKey> keys = request.getForeignKeyCols();
        change(
                firstTable(keys, SQLForeignKey::getFktable_db, SQLForeignKey::getFktable_name),
                store -> HmsConstraints.addForeignKeys(store, keys, null, null));
    }

    public void add_unique_constraint(AddUniqueConstraintRequest request) throws TException {
        List<SQLUniqueConstraint> keys = request.getUniqueConstraintCols();
        change(
                firstTable(keys, SQLUniqueConstraint::getTable_db, SQLUniqueConstraint::getTable_name),
                store -> HmsConstraints.addUniqueConstraints(store, keys));
    }

    public void add_not_null_constraint(AddNotNullConstraintRequest request) throws TException {
        List<SQLNotNullConstraint> keys = request.getNotNullConstraintCols();
        change(
                firstTable(keys, SQLNotNullConstraint::getTable_db, SQLNotNullConstraint::getTable_name),
                store -> HmsConstraints.addNotNullConstraints(store, keys));
    }

    public void add_default_constraint(AddDefaultConstraintRequest request) throws TException {
        List<SQLDefaultConstraint> keys = request.getDefaultConstraintCols();
        change(
                firstTable(keys, SQLDefaultConstraint::getTable_db, SQLDefaultConstraint::getTable_name),
                store -> HmsConstraints.addDefaultConstraints(store, keys));
    }

    public void add_check_constraint(AddCheckConstraintRequest request) throws TException {
        List<SQLCheckConstraint> keys = request.getCheckConstraintCols();
        change(
                firstTable(keys, SQLCheckConstraint::getTable_db, SQLCheckConstraint::getTable_name),
                store -> HmsConstraints.addCheckConstraints(store, keys));
    }

    // ---- drop

    public void drop_constraint(DropConstraintRequest request) throws TException {
        String db = normalize(request.getDbname());
        String table = normalize(request.getTablename());
        String name = normalize(request.getConstraintname());
        boolean served = request.getCatName() == null
                || request.getCatName().equalsIgnoreCase(HmsNames.HIVE_CATALOG)
                || request.getCatName().equals(calls.catalog());
        InvalidObjectException missing = new InvalidObjectException(
                "The constraint: " + name + " does not exist for the associated table: " + db + "." + table);
        if (!served
                || db == null
                || db.isEmpty()
                || table == null
                || table.isEmpty()
                || name == null
                || !HmsNames.fits(db)
                || !HmsNames.fits(table)) {
            throw missing;
        }
        calls.write(Action.COMMIT_TABLE, calls.tablePath(db, table), txn -> {
            HmsConstraintStore store = new HmsConstraintStore(calls, txn);
            Optional<TableConstraints> found = store.table(db, table);
            if (found.isEmpty() || !store.drop(found.get(), name)) {
                throw missing;
            }
            store.stage();
            return null;
        });
    }

    // ---- get

    public PrimaryKeysResponse get_primary_keys(PrimaryKeysRequest request) throws TException {
        return new PrimaryKeysResponse(read(
                request.getCatName(), request.getDb_name(), request.getTbl_name(), (store, table) -> {
                    List<SQLPrimaryKey> keys = new ArrayList<>();
                    table.own.getPrimaryKeys().forEach(key -> keys.add(answer(table, key)));
                    return keys;
                }));
    }

    public UniqueConstraintsResponse get_unique_constraints(UniqueConstraintsRequest request) throws TException {
        return new UniqueConstraintsResponse(read(
                request.getCatName(), request.getDb_name(), request.getTbl_name(), (store, table) -> {
                    List<SQLUniqueConstraint> keys = new ArrayList<>();
                    table.own.getUniqueConstraints().forEach(key -> keys.add(answer(table, key)));
                    return keys;
                }));
    }

    public NotNullConstraintsResponse get_not_null_constraints(NotNullConstraintsRequest request) throws TException {
        return new NotNullConstraintsResponse(read(
                request.getCatName(), request.getDb_name(), request.getTbl_name(), (store, table) -> {
                    List<SQLNotNullConstraint> keys = new ArrayList<>();
                    table.own.getNotNullConstraints().forEach(key -> keys.add(answer(table, key)));
                    return keys;
                }));
    }

    public DefaultConstraintsResponse get_default_constraints(DefaultConstraintsRequest request) throws TException {
        return new DefaultConstraintsResponse(read(
                request.getCatName(), request.getDb_name(), request.getTbl_name(), (store, table) -> {
                    List<SQLDefaultConstraint> keys = new ArrayList<>();
                    table.own.getDefaultConstraints().forEach(key -> keys.add(answer(table, key)));
                    return keys;
                }));
    }

    public CheckConstraintsResponse get_check_constraints(CheckConstraintsRequest request) throws TException {
        return new CheckConstraintsResponse(read(
                request.getCatName(), request.getDb_name(), request.getTbl_name(), (store, table) -> {
                    List<SQLCheckConstraint> keys = new ArrayList<>();
                    table.own.getCheckConstraints().forEach(key -> keys.add(answer(table, key)));
                    return keys;
                }));
    }

    /**
     * The foreign keys of the foreign (child) table, or when only the parent is named, those referencing it; each
     * with the parent's primary-key name, and only while the parent has its primary key on the referenced column.
     */
    public ForeignKeysResponse get_foreign_keys(ForeignKeysRequest request) throws TException {
        String parentDb = normalize(request.getParent_db_name());
        String parentTable = normalize(request.getParent_tbl_name());
        String foreignDb = normalize(request.getForeign_db_name());
        String foreignTable = normalize(request.getForeign_tbl_name());
        boolean byForeign = foreignDb != null && foreignTable != null;
        if (!byForeign && (parentDb == null || parentTable == null)) {
            throw new MetaException(
                    "get_foreign_keys needs the foreign table (foreign_db_name, foreign_tbl_name) or the parent table");
        }
        List<SQLForeignKey> keys = read(
                request.getCatName(),
                byForeign ? foreignDb : parentDb,
                byForeign ? foreignTable : parentTable,
                (store, table) -> {
                    List<SQLForeignKey> answer = new ArrayList<>();
                    for (SQLForeignKey key : byForeign ? store.visibleOwn(table) : store.visibleReferencing(table)) {
                        boolean parentMatches = parentDb == null
                                || (parentDb.equals(key.getPktable_db())
                                        && (parentTable == null || parentTable.equals(key.getPktable_name())));
                        if (parentMatches) {
                            store.answer(key).ifPresent(answer::add);
                        }
                    }
                    return answer;
                });
        return new ForeignKeysResponse(keys);
    }

    public AllTableConstraintsResponse get_all_table_constraints(AllTableConstraintsRequest request) throws TException {
        SQLAllTableConstraints all = new SQLAllTableConstraints();
        PrimaryKeysRequest primaryKeys = new PrimaryKeysRequest(request.getDbName(), request.getTblName());
        primaryKeys.setCatName(request.getCatName());
        all.setPrimaryKeys(get_primary_keys(primaryKeys).getPrimaryKeys());
        ForeignKeysRequest foreignKeys = new ForeignKeysRequest(null, null, request.getDbName(), request.getTblName());
        foreignKeys.setCatName(request.getCatName());
        all.setForeignKeys(get_foreign_keys(foreignKeys).getForeignKeys());
        all.setUniqueConstraints(get_unique_constraints(
                        new UniqueConstraintsRequest(request.getCatName(), request.getDbName(), request.getTblName()))
                .getUniqueConstraints());
        all.setDefaultConstraints(get_default_constraints(
                        new DefaultConstraintsRequest(request.getCatName(), request.getDbName(), request.getTblName()))
                .getDefaultConstraints());
        all.setCheckConstraints(get_check_constraints(
                        new CheckConstraintsRequest(request.getCatName(), request.getDbName(), request.getTblName()))
                .getCheckConstraints());
        all.setNotNullConstraints(get_not_null_constraints(
                        new NotNullConstraintsRequest(request.getCatName(), request.getDbName(), request.getTblName()))
                .getNotNullConstraints());
        return new AllTableConstraintsResponse(all);
    }

    // ---- answers

    /** A primary key as Hive answers it: the table's current names, the catalog, every field set. */
    private static SQLPrimaryKey answer(TableConstraints table, SQLPrimaryKey key) {
        SQLPrimaryKey answer = key.deepCopy();
        answer.setTable_db(table.db);
        answer.setTable_name(table.name);
        answer.setCatName(HmsNames.HIVE_CATALOG);
        return answer;
    }

    private static SQLUniqueConstraint answer(TableConstraints table, SQLUniqueConstraint key) {
        SQLUniqueConstraint answer = key.deepCopy();
        answer.setTable_db(table.db);
        answer.setTable_name(table.name);
        answer.setCatName(HmsNames.HIVE_CATALOG);
        return answer;
    }

    private static SQLNotNullConstraint answer(TableConstraints table, SQLNotNullConstraint key) {
        SQLNotNullConstraint answer = key.deepCopy();
        answer.setTable_db(table.db);
        answer.setTable_name(table.name);
        answer.setCatName(HmsNames.HIVE_CATALOG);
        return answer;
    }

    private static SQLDefaultConstraint answer(TableConstraints table, SQLDefaultConstraint key) {
        SQLDefaultConstraint answer = key.deepCopy();
        answer.setTable_db(table.db);
        answer.setTable_name(table.name);
        answer.setCatName(HmsNames.HIVE_CATALOG);
        return answer;
    }

    private static SQLCheckConstraint answer(TableConstraints table, SQLCheckConstraint key) {
        SQLCheckConstraint answer = key.deepCopy();
        answer.setTable_db(table.db);
        answer.setTable_name(table.name);
        answer.setCatName(HmsNames.HIVE_CATALOG);
        return answer;
    }

    // ---- helpers

    /** What a getter answers from one table's constraints. */
    @FunctionalInterface
    private interface Answer<T> {
        List<T> from(HmsConstraintStore store, TableConstraints table) throws TException;
    }

    /** A getter: an unknown catalog, database or table has no constraints (Hive's store answers empty lists). */
    private <T> List<T> read(String catalog, String dbName, String tableName, Answer<T> answer) throws TException {
        boolean served =
                catalog == null || catalog.equalsIgnoreCase(HmsNames.HIVE_CATALOG) || catalog.equals(calls.catalog());
        String db = normalize(dbName);
        String table = normalize(tableName);
        if (!served
                || db == null
                || db.isEmpty()
                || table == null
                || table.isEmpty()
                || !HmsNames.fits(db)
                || !HmsNames.fits(table)) {
            return new ArrayList<>();
        }
        return calls.read(Action.LOAD_TABLE, calls.tablePath(db, table), txn -> {
            HmsConstraintStore store = new HmsConstraintStore(calls, txn);
            Optional<TableConstraints> found = store.table(db, table);
            return found.isEmpty() ? new ArrayList<>() : answer.from(store, found.get());
        });
    }

    @FunctionalInterface
    private interface Change {
        void apply(HmsConstraintStore store) throws TException;
    }

    /** An add: one transaction over every table the rows name, named for the first row's table; no rows, no change. */
    private void change(TableName first, Change change) throws TException {
        if (first == null) {
            return;
        }
        calls.write(Action.COMMIT_TABLE, calls.tablePath(first.db(), first.name()), txn -> {
            HmsConstraintStore store = new HmsConstraintStore(calls, txn);
            change.apply(store);
            store.stage();
            return null;
        });
    }

    private record TableName(String db, String name) {}

    private static <T> TableName firstTable(List<T> rows, Function<T, String> db, Function<T, String> name)
            throws MetaException {
        if (rows == null) {
            throw new MetaException("No constraint columns given");
        }
        if (rows.isEmpty()) {
            return null;
        }
        for (T row : rows) {
            if (row == null) {
                throw new MetaException("A constraint column is null");
            }
        }
        String firstDb = normalize(db.apply(rows.get(0)));
        String firstName = normalize(name.apply(rows.get(0)));
        return new TableName(
                firstDb == null || firstDb.isEmpty() || !HmsNames.fits(firstDb) ? "_" : firstDb,
                firstName == null || firstName.isEmpty() || !HmsNames.fits(firstName) ? "_" : firstName);
    }
}
