package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.model.FunctionContainerEntry;
import io.treecat.lakehouse.model.FunctionEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.LakeTransaction;
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
import org.apache.thrift.TException;

/**
 * Hive's permanent functions, each a {@link FunctionEntry} of the lake model. A database's functions
 * live under one reserved child of the database, so they never share a level with its tables:
 *
 * <pre>
 * /&lt;catalog&gt;/&lt;db&gt;/.functions          the container ({@link ObjectType#FUNCTIONS}), made with the first function, removed with the last
 * /&lt;catalog&gt;/&lt;db&gt;/.functions/&lt;fn&gt;     a {@link FunctionEntry}: class, type, owner, and the whole Function struct
 * </pre>
 *
 * A Hive name is letters, digits and underscores, so {@value LakeKeys#FUNCTIONS_ID} is never a Hive
 * table; the Iceberg REST side lists tables and namespaces by type, so it never shows the container.
 * Dropping a database with cascade drops its functions with it (they are below it in the tree).
 */
final class HmsFunctionCalls {
    private static final Pattern NAME = Pattern.compile("[\\w_]+");

    private final HmsCalls calls;

    HmsFunctionCalls(HmsCalls calls) {
        this.calls = requireNonNull(calls, "calls is null");
    }

    private ObjectPath container(String db) {
        return calls.dbPath(db).child(LakeKeys.FUNCTIONS_ID);
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

    public void create_function(Function function) throws TException {
        if (function == null) {
            throw new InvalidObjectException("No function given");
        }
        calls.names().checkCatalog(function.getCatName());
        String db = calls.db(function.getDbName());
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
        calls.write(Action.MANAGE_FUNCTIONS, path(db, name), txn -> {
            calls.requireDatabase(txn, db);
            if (txn.read(container(db)).isEmpty()) {
                txn.add(container(db), new FunctionContainerEntry());
            } else if (txn.read(path(db, name)).isPresent()) {
                throw new AlreadyExistsException("Function " + name + " already exists");
            }
            txn.add(path(db, name), entry(created));
            return null;
        });
    }

    public Function get_function(String dbName, String functionName) throws TException {
        String db = calls.db(dbName);
        String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
        return calls.read(Action.LIST_FUNCTIONS, path(db, name), txn -> require(txn, db, name));
    }

    private Function require(LakeTransaction txn, String db, String name) throws TException {
        Optional<CatalogObject> object = txn.read(path(db, name));
        if (!ObjectType.FUNCTION.isTypeOf(object)) {
            throw new NoSuchObjectException("Function " + db + "." + name + " does not exist");
        }
        return function(db, name, FunctionEntry.decode(object.get().value()));
    }

    public void drop_function(String dbName, String functionName) throws TException {
        String db = calls.db(dbName);
        String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
        calls.write(Action.MANAGE_FUNCTIONS, path(db, name), txn -> {
            require(txn, db, name);
            // The container goes with the last function, so an emptied database can be dropped without cascade.
            txn.remove(isLast(txn, db) ? container(db) : path(db, name));
            return null;
        });
    }

    private boolean isLast(LakeTransaction txn, String db) {
        return txn.children(container(db), ObjectType.FUNCTION).size() == 1;
    }

    /** Replaces the function; a new name or database in {@code newFunction} renames it (within the catalog). */
    public void alter_function(String dbName, String functionName, Function newFunction) throws TException {
        if (newFunction == null) {
            throw new InvalidOperationException("No new function given");
        }
        String db = calls.db(dbName);
        String name = HmsNames.normalize(requireNonNull(functionName, "functionName"));
        String newDb = newFunction.getDbName() == null ? db : calls.db(newFunction.getDbName());
        String newName;
        try {
            newName = newFunction.getFunctionName() == null ? name : name(newFunction.getFunctionName());
        } catch (InvalidObjectException e) {
            throw new InvalidOperationException(e.getMessage());
        }
        if (newFunction.getClassName() == null || newFunction.getClassName().isEmpty()) {
            throw new InvalidOperationException("Function " + newDb + "." + newName + " needs a class name");
        }
        calls.write(Action.MANAGE_FUNCTIONS, path(db, name), txn -> {
            Optional<CatalogObject> object = txn.read(path(db, name));
            if (object.isEmpty()) {
                // Hive's own message for this case.
                throw new MetaException("function " + name + " doesn't exist");
            }
            Function old = function(db, name, FunctionEntry.decode(object.get().value()));
            Function altered = newFunction.deepCopy();
            altered.setDbName(newDb);
            altered.setFunctionName(newName);
            altered.setCatName(HmsNames.HIVE_CATALOG);
            altered.setCreateTime(old.getCreateTime());
            if (newDb.equals(db) && newName.equals(name)) {
                txn.update(path(db, name), entry(altered));
                return null;
            }
            calls.requireDatabase(txn, newDb);
            if (txn.read(path(newDb, newName)).isPresent()) {
                throw new InvalidOperationException("Function " + newDb + "." + newName + " already exists");
            }
            if (txn.read(container(newDb)).isEmpty()) {
                txn.add(container(newDb), new FunctionContainerEntry());
            }
            txn.remove(!newDb.equals(db) && isLast(txn, db) ? container(db) : path(db, name));
            txn.add(path(newDb, newName), entry(altered));
            return null;
        });
    }

    /** The names in {@code db} matching the Hive pattern, in id order; none for a missing database, as Hive answers. */
    public List<String> get_functions(String dbName, String pattern) throws TException {
        String db = calls.db(dbName);
        Pattern matcher = HmsNames.pattern(pattern);
        return calls.read(Action.LIST_FUNCTIONS, calls.dbPath(db), txn -> {
            List<String> result = new ArrayList<>();
            for (CatalogObject row : txn.children(container(db), ObjectType.FUNCTION)) {
                if (matcher.matcher(row.id()).matches()) {
                    result.add(row.id());
                }
            }
            return result;
        });
    }

    public GetFunctionsResponse get_functions_req(GetFunctionsRequest request) throws TException {
        calls.names().checkCatalog(request.getCatalogName());
        String db = calls.db(request.getDbName());
        Pattern matcher = HmsNames.pattern(request.getPattern());
        return calls.read(Action.LIST_FUNCTIONS, calls.dbPath(db), txn -> {
            GetFunctionsResponse response = new GetFunctionsResponse();
            for (CatalogObject row : txn.children(container(db), ObjectType.FUNCTION)) {
                if (!matcher.matcher(row.id()).matches()) {
                    continue;
                }
                if (request.isReturnNames()) {
                    response.addToFunction_names(row.id());
                } else {
                    response.addToFunctions(function(db, row.id(), FunctionEntry.decode(row.value())));
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
    public GetAllFunctionsResponse get_all_functions() throws TException {
        return calls.read(Action.LIST_FUNCTIONS, calls.catalogPath(), txn -> {
            List<Function> functions = new ArrayList<>();
            for (CatalogObject db : txn.children(calls.catalogPath(), ObjectType.NAMESPACE)) {
                // The functions of the databases the caller may see, as get_functions of one needs.
                if (!calls.maySee(db.path(), ObjectType.NAMESPACE)) {
                    continue;
                }
                for (CatalogObject row : txn.children(container(db.id()), ObjectType.FUNCTION)) {
                    functions.add(function(db.id(), row.id(), FunctionEntry.decode(row.value())));
                }
            }
            GetAllFunctionsResponse response = new GetAllFunctionsResponse();
            response.setFunctions(functions);
            return response;
        });
    }

    private static FunctionEntry entry(Function function) throws MetaException {
        byte[] struct =
                HmsStructs.encode(function, "function " + function.getDbName() + "." + function.getFunctionName());
        return FunctionEntry.hive(
                function.getClassName(),
                function.getFunctionType() == null
                        ? null
                        : function.getFunctionType().name(),
                function.getOwnerName(),
                struct);
    }

    private static Function function(String db, String name, FunctionEntry entry) throws MetaException {
        if (entry.hiveFunction() == null) {
            throw new MetaException("The stored function " + db + "." + name + " has no " + LakeKeys.HMS_FUNCTION);
        }
        Function function =
                HmsStructs.decode(new Function(), entry.hiveFunction(), "the stored function " + db + "." + name);
        function.setDbName(db);
        function.setFunctionName(name);
        function.setCatName(HmsNames.HIVE_CATALOG);
        return function;
    }
}
