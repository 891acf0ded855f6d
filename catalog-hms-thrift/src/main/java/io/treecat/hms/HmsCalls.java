package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.catalog.Namespaces;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Directories;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import io.treecat.lakehouse.txn.Work;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the call areas ({@code Hms*Calls}) share: the catalog a call acts in, its names, and the lake's
 * {@link TransactionRunner}. Each call is one lake transaction, named by an {@link Action} on the path
 * it acts on; a body reads what it checks through the transaction, so a concurrent writer of the same
 * objects makes the commit fail validation, and the runner runs the body again (it re-reads and
 * re-checks). Failures pass through as they are: the dispatcher maps them in one place ({@link HmsErrors}).
 *
 * <p>A database is a first-level namespace {@code /<catalog>/<db>} ({@link HmsDatabases}), a table
 * {@code /<catalog>/<db>/<table>} ({@link HmsTables}).
 */
final class HmsCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HmsCalls.class);

    private final TransactionRunner runner;
    private final Warehouses warehouses;
    private final Warehouse warehouse;
    private final HmsNames names;
    /**
     * Who the calls run as: the principal of the connection whose call the current thread serves ({@link
     * HmsSessions#principal()}), or the server itself ({@link #asServer()}).
     */
    private final Supplier<Principal> principal;

    /** The calls in the catalog {@code names} are in, as the anonymous principal (tests that run no listener). */
    HmsCalls(TransactionRunner runner, Warehouses warehouses, HmsNames names) {
        this(runner, warehouses, names, () -> Principal.ANONYMOUS);
    }

    /** The calls in the catalog {@code names} are in, each as whoever {@code principal} says is calling now. */
    HmsCalls(TransactionRunner runner, Warehouses warehouses, HmsNames names, Supplier<Principal> principal) {
        this.runner = requireNonNull(runner, "runner is null");
        this.warehouses = requireNonNull(warehouses, "warehouses is null");
        this.names = requireNonNull(names, "names is null");
        this.principal = requireNonNull(principal, "principal is null");
        this.warehouse = warehouses.forCatalog(names.catalog());
    }

    /**
     * The same calls as the server itself ({@link Principal#SYSTEM}), for work no client asked for: the defaults made
     * at start and the notification log's checkpoints, which must run whatever the grants say.
     */
    HmsCalls asServer() {
        return new HmsCalls(runner, warehouses, names, () -> Principal.SYSTEM);
    }

    /** The same server's calls in the TreeCat catalog {@code treecatCatalog}. */
    HmsCalls in(String treecatCatalog) {
        return new HmsCalls(runner, warehouses, names.in(treecatCatalog), principal);
    }

    /** The TreeCat catalog the calls act in: the first id of their paths. */
    String catalog() {
        return names.catalog();
    }

    Warehouse warehouse() {
        return warehouse;
    }

    HmsNames names() {
        return names;
    }

    // ---- transactions

    private Access access(Action action, ObjectPath target) {
        return Access.of(principal.get(), action, target);
    }

    /** Who is calling now. */
    Principal principal() {
        return principal.get();
    }

    /**
     * Whether the caller may see the object at {@code path} of {@code type} in a list: the rule Iceberg's lists follow
     * too ({@code Authorizer.maySee}, docs/security.md "Filtering").
     */
    boolean maySee(ObjectPath path, ObjectType type) {
        return runner.authorizer().maySee(principal.get(), path, Optional.of(type));
    }

    /** Whether the caller holds {@code privilege} on {@code path} (calls that pass no lake operation's check). */
    boolean holds(io.treecat.lakehouse.auth.Privilege privilege, ObjectPath path) {
        return runner.authorizer().allows(principal.get(), privilege, path);
    }

    /** A read-only call: one transaction at the newest vid. */
    <T> T read(Action action, ObjectPath target, Work<T, TException> work) throws TException {
        return runner.read(access(action, target), work);
    }

    /** A writing call, run again after a lost race (the runner's default policy). */
    <T> T write(Action action, ObjectPath target, Work<T, TException> work) throws TException {
        return runner.write(access(action, target), work);
    }

    <T> T write(Action action, ObjectPath target, RetryPolicy policy, Work<T, TException> work) throws TException {
        return runner.write(access(action, target), policy, work);
    }

    /** A read-only transaction at a past {@code vid}: the notification log rebuilds what a commit did from the tree. */
    <T> T readAt(long vid, Action action, ObjectPath target, Work<T, TException> work) throws TException {
        return runner.read(access(action, target), ReadPoint.vid(vid), work);
    }

    // ---- paths and names

    ObjectPath catalogPath() {
        return ObjectPath.of(catalog());
    }

    ObjectPath dbPath(String db) {
        return ObjectPath.of(catalog(), db);
    }

    ObjectPath tablePath(String db, String table) {
        return ObjectPath.of(catalog(), db, table);
    }

    /** A database name in any client's form; a name without one is not found, a null name a MetaException (Hive's). */
    String db(String name) throws MetaException, NoSuchObjectException {
        if (name == null) {
            throw new MetaException("Database name cannot be null.");
        }
        String db = names.database(name);
        if (db == null || db.isEmpty()) {
            throw new NoSuchObjectException("No database name in '" + name + "'");
        }
        return db;
    }

    /** A table's database and name, as the calls name it (lower-cased, without a catalog). */
    record TableName(String db, String name) {}

    /** The table a call names; a call without a table name is a MetaException. */
    TableName tableName(String dbName, String tableName) throws TException {
        if (tableName == null || tableName.isEmpty()) {
            throw new MetaException("No table name given");
        }
        return new TableName(db(dbName), HmsNames.normalize(tableName));
    }

    TableName tableName(String catalog, String dbName, String tableName) throws TException {
        names.checkCatalog(catalog);
        return tableName(dbName, tableName);
    }

    ObjectPath tablePath(TableName name) {
        return tablePath(name.db(), name.name());
    }

    Table requireTable(LakeTransaction txn, TableName name) throws NoSuchObjectException, MetaException {
        return requireTable(txn, name.db(), name.name());
    }

    /** Where a database without a location lives: under the catalog's warehouse, as an Iceberg REST namespace. */
    String defaultLocation(String db) {
        return warehouse.namespaceLocation(List.of(db));
    }

    /**
     * Makes sure the catalog exists before a database is created in it, read in {@code txn}, and answers
     * the catalog's location (new databases go below it). Hive's {@code hive} catalog is made on first use
     * (the server makes it at start); another catalog must have been created ({@code create_catalog}, or a
     * first Iceberg REST namespace), as Hive refuses a database in an unknown catalog.
     */
    String ensureCatalog(LakeTransaction txn) throws InvalidObjectException {
        Optional<CatalogEntry> entry = Catalogs.find(txn, catalog());
        if (entry.isEmpty() && names.isDefaultCatalog()) {
            Catalogs.ensure(txn, warehouse);
            return warehouse.location();
        }
        if (entry.isEmpty()) {
            throw new InvalidObjectException("No such catalog " + names.hmsCatalog());
        }
        String location = entry.get().location();
        return location == null ? warehouse.location() : Locations.stripSlash(location);
    }

    // ---- reads every area makes

    boolean databaseExists(LakeTransaction txn, String db) {
        return Namespaces.find(txn, dbPath(db)).isPresent();
    }

    Database requireDatabase(LakeTransaction txn, String db) throws NoSuchObjectException {
        return Namespaces.find(txn, dbPath(db))
                .map(entry -> HmsDatabases.database(db, entry, defaultLocation(db)))
                .orElseThrow(() -> new NoSuchObjectException("Database " + db + " does not exist"));
    }

    Optional<TableEntry> findTable(LakeTransaction txn, String db, String name) {
        return Tables.find(txn, tablePath(db, name));
    }

    Table requireTable(LakeTransaction txn, String db, String name) throws NoSuchObjectException, MetaException {
        Optional<TableEntry.HiveView> view = Tables.findHiveView(txn, tablePath(db, name));
        if (view.isEmpty()) {
            throw new NoSuchObjectException(db + "." + name + " table not found");
        }
        return HmsTables.table(db, name, view.get());
    }

    /**
     * Where the catalog's own files live, read in {@code txn}: the location its catalog object holds (a catalog made
     * by {@code create_catalog} names it), else its warehouse's. Directories are made only inside it or the
     * warehouse ({@link #createDirectories}).
     */
    String home(LakeTransaction txn) {
        return Catalogs.find(txn, catalog())
                .map(CatalogEntry::location)
                .filter(location -> !location.isBlank())
                .map(Locations::stripSlash)
                .orElse(warehouse.location());
    }

    /**
     * Makes the directory at {@code location} (Hive's metastore makes a new database's, table's and partition's;
     * clients such as Spark read an unpartitioned table's path before its first INSERT), after the commit that
     * stored it: a refused or failed call makes none. Inside the catalog's warehouse or its {@code home}
     * ({@link #home}), or elsewhere only when the warehouse allows external locations, and never at a location with
     * a {@code .} or {@code ..} segment. The location is taken as written ({@link Directories}), so an escaped
     * separator in a name ({@code a%2Fb}) stays part of one directory's name and never becomes a separator, as
     * {@code java.net.URI} would decode it. A failure is logged, not answered: the object exists by then.
     */
    void createDirectories(Placed placed) {
        createDirectories(placed.location(), placed.home());
    }

    /**
     * Whether a path segment of {@code location} is {@code .} or {@code ..} as written (a file system would walk it).
     * Unlike {@link Locations#hasDotSegment} this does not percent-decode: the directories made here, and Hadoop's
     * {@code Path}, take {@code %2F} as three characters of a name, so a partition's default location
     * {@code t/k=..%2F..%2Fx} (the value {@code ../../x}, escaped as Hive escapes it) stays inside {@code t}.
     */
    static boolean hasDotSegmentAsWritten(String location) {
        for (String segment : location.split("[/\\\\]", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /** What a call made ({@code value}) and the location inside which its directories may be made ({@code home}). */
    record Made<T>(T value, String home) {}

    /** Where a call placed a new object ({@code location}), and its catalog's {@link #home} read in the same transaction. */
    record Placed(String location, String home) {}

    /** As {@link #createDirectories(Placed)}. */
    void createDirectories(String location, String home) {
        if (location == null || location.isBlank() || hasDotSegmentAsWritten(location) || location.indexOf('\0') >= 0) {
            return;
        }
        boolean inside = Locations.isInside(location, warehouse.location())
                || (home != null && !hasDotSegmentAsWritten(home) && Locations.isInside(location, home));
        // Outside, only where the warehouse lets clients place objects elsewhere (the call checked the location
        // then): Hive's metastore makes a client's own table directory, and Spark's Hive catalog, which names its
        // spark-warehouse, reads it before the first INSERT (HiveMetastoreSparkIT).
        if (!inside && warehouse.external() != ExternalLocations.ALLOWED) {
            LOG.debug("Not making a directory outside the warehouse for catalog {}", catalog());
            return;
        }
        try {
            Directories.make(location);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            LOG.warn("Could not create the directory {}", location, e);
        }
    }
}
