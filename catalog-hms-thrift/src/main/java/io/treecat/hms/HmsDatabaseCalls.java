package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveNames;
import io.treecat.lakehouse.catalog.Namespaces;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Warehouse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.AlterDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.CreateDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.GetDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.thrift.TException;

/**
 * The database calls: a Hive database is a first-level namespace of the HMS catalog
 * ({@link HmsDatabases} translates). {@code alter_database} (Iceberg's HiveCatalog
 * {@code setProperties}/{@code removeProperties}) follows Hive's merge rules: the parameters are
 * replaced when given, the description, location and owner when given, the rest kept; a database is
 * not renamed.
 */
final class HmsDatabaseCalls {
    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsDatabaseCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    // ---- create

    public void create_database(Database database) throws TException {
        createDatabase(database);
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
        createDatabase(database);
    }

    private void createDatabase(Database database) throws TException {
        requireNonNull(database, "database");
        if ("".equals(database.getName())) {
            throw new InvalidObjectException(" is not a valid database name"); // Hive's answer
        }
        calls.names().checkCatalog(database.getCatalogName());
        String db = calls.db(database.getName());
        HiveNames.checkDatabase(db);
        String given = database.getLocationUri();
        boolean placed = given != null && !given.isEmpty();
        if (placed) {
            // A client's own location: placeable, and inside the warehouse unless external locations are allowed.
            calls.warehouse().check(given, Warehouse.LOCATION);
        }
        ObjectPath path = calls.dbPath(db);
        HmsCalls.Placed made = calls.write(Action.CREATE_NAMESPACE, path, txn -> {
            String catalogLocation = calls.ensureCatalog(txn);
            if (txn.read(path).isPresent()) {
                throw new AlreadyExistsException("Database " + db + " already exists");
            }
            // The default: one escaped path segment below the catalog's location, checked as REST's are.
            String location = placed ? given : calls.warehouse().childLocation(catalogLocation, db);
            txn.add(path, NamespaceEntry.of(HmsDatabases.properties(database, location)));
            return new HmsCalls.Placed(location, catalogLocation);
        });
        calls.createDirectories(made);
    }

    // ---- read

    public Database get_database(String name) throws TException {
        String db = calls.db(name);
        return calls.read(Action.LOAD_NAMESPACE, calls.dbPath(db), txn -> calls.requireDatabase(txn, db));
    }

    public Database get_database_req(GetDatabaseRequest request) throws TException {
        calls.names().checkCatalog(request.getCatalogName());
        String db = calls.db(request.getName());
        return calls.read(Action.LOAD_NAMESPACE, calls.dbPath(db), txn -> calls.requireDatabase(txn, db));
    }

    public List<String> get_all_databases() throws TException {
        return get_databases("*");
    }

    public List<String> get_databases(String pattern) throws TException {
        Pattern matcher = HmsNames.pattern(databasePattern(calls.names(), pattern));
        return calls.read(Action.LIST_NAMESPACES, calls.catalogPath(), txn -> {
            List<String> result = new ArrayList<>();
            for (CatalogObject row : txn.children(calls.catalogPath(), ObjectType.NAMESPACE)) {
                // Only what the caller may see, as Iceberg's lists (docs/security.md, "Filtering").
                if (matcher.matcher(row.id()).matches() && calls.maySee(row.path(), ObjectType.NAMESPACE)) {
                    result.add(row.id());
                }
            }
            return result;
        });
    }

    /** A database pattern without its {@code @cat#} prefix; a pattern naming another catalog is a MetaException. */
    static String databasePattern(HmsNames names, String pattern) throws MetaException {
        try {
            return pattern != null && pattern.startsWith("@") ? names.database(pattern) : pattern;
        } catch (NoSuchObjectException e) {
            throw new MetaException(e.getMessage());
        }
    }

    // ---- drop

    public void drop_database(String name, boolean deleteData, boolean cascade) throws TException {
        dropDatabase(name, deleteData, cascade, false);
    }

    public void drop_database_req(DropDatabaseRequest request) throws TException {
        calls.names().checkCatalog(request.getCatalogName());
        dropDatabase(request.getName(), request.isDeleteData(), request.isCascade(), request.isIgnoreUnknownDb());
    }

    private void dropDatabase(String name, boolean deleteData, boolean cascade, boolean ignoreUnknown)
            throws TException {
        String db = calls.db(name);
        if (calls.names().isDefaultCatalog() && db.equals(HmsCatalogCalls.DEFAULT_DATABASE)) {
            // Hive's rule: every client may count on the default database of the hive catalog.
            throw new MetaException("Can not drop " + HmsCatalogCalls.DEFAULT_DATABASE + " database in catalog "
                    + HmsNames.HIVE_CATALOG);
        }
        ObjectPath path = calls.dbPath(db);
        calls.write(Action.DROP_NAMESPACE, path, txn -> {
            if (ignoreUnknown && !calls.databaseExists(txn, db)) {
                return null;
            }
            Database database = calls.requireDatabase(txn, db);
            if (!cascade) {
                // Hive's messages: tables first, then a database holding only functions.
                List<CatalogObject> children = txn.firstChildren(path, 2);
                if (children.stream().anyMatch(child -> !LakeKeys.FUNCTIONS_ID.equals(child.id()))) {
                    throw new InvalidOperationException("Database " + db + " is not empty. One or more tables exist.");
                }
                if (!children.isEmpty()) {
                    throw new InvalidOperationException(
                            "Database " + db + " is not empty. One or more functions exist.");
                }
            }
            txn.remove(path);
            if (deleteData) {
                List<HmsDataFiles.Plan> tables = new ArrayList<>();
                for (CatalogObject row : txn.children(path, ObjectType.TABLE)) {
                    tables.add(partitions.dropData(txn, HmsTables.table(db, row.id(), TableEntry.decode(row.value()))));
                }
                HmsDataFiles.Plan doomed = HmsDataFiles.database(database.getLocationUri(), tables);
                // Only after the commit: a refused or failed drop deletes nothing.
                txn.afterCommit(doomed::run);
            }
            return null;
        });
    }

    // ---- alter

    public void alter_database(String dbName, Database database) throws TException {
        alterDatabase(dbName, database);
    }

    public void alter_database_req(AlterDatabaseRequest request) throws TException {
        alterDatabase(request.getOldDbName(), request.getNewDb());
    }

    private void alterDatabase(String dbName, Database changed) throws TException {
        if (changed == null) {
            throw new MetaException("No new database given");
        }
        String db = calls.db(dbName);
        if (changed.getName() != null
                && !changed.getName().isEmpty()
                && !HmsNames.normalize(changed.getName()).equals(db)) {
            throw new InvalidOperationException(
                    "A database cannot be renamed (" + db + " to " + changed.getName() + ")");
        }
        ObjectPath path = calls.dbPath(db);
        calls.write(Action.UPDATE_NAMESPACE, path, txn -> {
            Database old = calls.requireDatabase(txn, db);
            if (notBlank(changed.getLocationUri()) && !changed.getLocationUri().equals(old.getLocationUri())) {
                // A new location the client chose: placeable, inside the warehouse unless external locations are
                // allowed (a MetaException: alter_database declares no other).
                calls.warehouse().check(changed.getLocationUri(), Warehouse.LOCATION);
            }
            NamespaceEntry entry = Namespaces.find(txn, path).orElseThrow();
            Database merged = new Database();
            merged.setParameters(changed.getParameters() != null ? changed.getParameters() : old.getParameters());
            merged.setDescription(notBlank(changed.getDescription()) ? changed.getDescription() : old.getDescription());
            merged.setOwnerName(changed.getOwnerName() != null ? changed.getOwnerName() : old.getOwnerName());
            merged.setOwnerType(changed.getOwnerType() != null ? changed.getOwnerType() : old.getOwnerType());
            String location = notBlank(changed.getLocationUri()) ? changed.getLocationUri() : old.getLocationUri();
            txn.update(path, entry.withProperties(HmsDatabases.properties(merged, location)));
            return null;
        });
    }

    private static boolean notBlank(String value) {
        return value != null && !value.isBlank();
    }
}
