package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.AlterCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CreateCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropCatalogRequest;
import org.apache.hadoop.hive.metastore.api.GetCatalogRequest;
import org.apache.hadoop.hive.metastore.api.GetCatalogResponse;
import org.apache.hadoop.hive.metastore.api.GetCatalogsResponse;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.thrift.TException;

/**
 * Hive's catalogs on the tree: an HMS catalog {@code c} is the TreeCat catalog {@code /c} ({@link CatalogEntry}:
 * location, description), Hive's {@code hive} the configured one ({@link HmsNames}). Every catalog has the
 * database {@code default}, as in Hive: the server makes {@code hive}'s at start ({@link #ensureDefaults}),
 * {@code create_catalog} makes the new catalog's with it, and {@code drop_catalog} drops it when it is empty.
 *
 * <p>Hive's rules: {@code hive} and its {@code default} database are never dropped ({@code MetaException});
 * a catalog holding a database other than {@code default}, or a {@code default} holding anything, is not
 * dropped ({@code InvalidOperationException}); a catalog is never renamed. Also the server's metastore id,
 * {@code get_metastore_db_uuid}: one UUID kept on the {@code hive} catalog's object, made once.
 */
final class HmsCatalogCalls {
    static final String DEFAULT_DATABASE = "default";
    /** Hive's description of its {@code hive} catalog (what its schema scripts store). */
    static final String DEFAULT_CATALOG_DESCRIPTION = "Default catalog for Hive";
    /** Hive's description of the {@code default} database of {@code hive}. */
    static final String DEFAULT_DATABASE_DESCRIPTION = "Default Hive database";
    /** The owner of {@code hive}'s {@code default} database, a role, as in Hive. */
    static final String PUBLIC_ROLE = "public";
    /** Hive stores catalog names in a column of this many characters; a longer one is refused. */
    static final int MAX_NAME_LENGTH = 256;
    /** Hive's catalog names ({@code MetaStoreUtils.validateName}): letters, digits and underscores. */
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9_]+");

    private final HmsCalls calls;

    /**
     * Servers starting at once on a fresh tree all race for the defaults. A loser sees the winner's commit only
     * once it is applied, which on a busy disk can take longer than the default policy's ~30 ms of backoff in all;
     * a start can afford to wait a few seconds.
     */
    private static final RetryPolicy AT_START = new RetryPolicy(20, Duration.ofMillis(10), Duration.ofMillis(500));

    /** @param calls the calls in the {@code hive} catalog; another catalog's come from {@link HmsCalls#in} */
    HmsCatalogCalls(HmsCalls calls) {
        this.calls = requireNonNull(calls, "calls is null");
    }

    // ---- at start

    /**
     * Makes, in one transaction, what every Hive client counts on and a fresh tree lacks: the {@code hive}
     * catalog's object (if missing, with Hive's description), its metastore id, and its database {@code default}
     * (Hive's {@code HMSHandler.createDefaultDB}: description "Default Hive database", owner role {@code public}).
     * Idempotent: a repeated or concurrent start finds them (a lost race is run again by the runner and then
     * finds the winner's) and writes nothing.
     */
    void ensureDefaults() throws TException {
        ObjectPath path = calls.dbPath(DEFAULT_DATABASE);
        // The server's own work at start, before any client: whatever the grants say.
        Optional<HmsCalls.Placed> created = calls.asServer().write(Action.CREATE_NAMESPACE, path, AT_START, txn -> {
            CatalogEntry catalog = ensureHiveCatalog(txn);
            if (calls.databaseExists(txn, DEFAULT_DATABASE)) {
                return Optional.empty();
            }
            String home = Locations.stripSlash(
                    catalog.location() == null ? calls.warehouse().location() : catalog.location());
            String location = home + "/" + DEFAULT_DATABASE;
            Database database = new Database();
            database.setDescription(DEFAULT_DATABASE_DESCRIPTION);
            database.setOwnerName(PUBLIC_ROLE);
            database.setOwnerType(PrincipalType.ROLE);
            txn.add(path, NamespaceEntry.of(HmsDatabases.properties(database, location)));
            return Optional.of(new HmsCalls.Placed(location, home));
        });
        created.ifPresent(calls::createDirectories);
    }

    /** The {@code hive} catalog's object, made or given its metastore id in {@code txn} when it lacks one. */
    private CatalogEntry ensureHiveCatalog(LakeTransaction txn) {
        Optional<CatalogEntry> found = Catalogs.find(txn, calls.catalog());
        if (found.isPresent() && found.get().hmsMetastoreUuid() != null) {
            return found.get();
        }
        String uuid = UUID.randomUUID().toString();
        if (found.isEmpty()) {
            CatalogEntry made = CatalogEntry.of(calls.warehouse().location(), DEFAULT_CATALOG_DESCRIPTION)
                    .withHmsMetastoreUuid(uuid);
            txn.add(calls.catalogPath(), made);
            return made;
        }
        CatalogEntry updated = found.get().withHmsMetastoreUuid(uuid);
        txn.update(calls.catalogPath(), updated);
        return updated;
    }

    /** The metastore's id: made once (at start, or here if the tree lost it) and kept on the {@code hive} catalog. */
    public String get_metastore_db_uuid() throws TException {
        Optional<CatalogEntry> found =
                calls.read(Action.LOAD_CATALOG, calls.catalogPath(), txn -> Catalogs.find(txn, calls.catalog()));
        if (found.isPresent() && found.get().hmsMetastoreUuid() != null) {
            return found.get().hmsMetastoreUuid();
        }
        return calls.write(
                Action.UPDATE_CATALOG,
                calls.catalogPath(),
                txn -> ensureHiveCatalog(txn).hmsMetastoreUuid());
    }

    // ---- read

    /** Every catalog Hive clients can name, sorted: {@code hive}, and each other TreeCat catalog with a lower-case name. */
    public GetCatalogsResponse get_catalogs() throws TException {
        List<String> names = calls.read(Action.LIST_CATALOGS, ObjectPath.ROOT, txn -> {
            List<String> found = new ArrayList<>();
            found.add(HmsNames.HIVE_CATALOG);
            for (String catalog : Catalogs.list(txn).keySet()) {
                // hive is the configured catalog; a TreeCat catalog named hive (or with upper case) has no HMS name.
                if (!catalog.equals(calls.catalog())
                        && !catalog.equals(HmsNames.HIVE_CATALOG)
                        && catalog.equals(HmsNames.normalize(catalog))
                        && calls.maySee(ObjectPath.of(catalog), ObjectType.CATALOG)) {
                    found.add(catalog);
                }
            }
            found.sort(null);
            return found;
        });
        return new GetCatalogsResponse(names);
    }

    public GetCatalogResponse get_catalog(GetCatalogRequest request) throws TException {
        String name = request == null ? null : request.getName();
        if (name == null) {
            throw new MetaException("No catalog name given");
        }
        HmsCalls in = lookUp(name);
        Optional<CatalogEntry> entry = in == null
                ? Optional.empty()
                : calls.read(Action.LOAD_CATALOG, in.catalogPath(), txn -> Catalogs.find(txn, in.catalog()));
        if (entry.isEmpty() && in != null && in.names().isDefaultCatalog()) {
            // Never written yet (the server writes it at start): what it will be.
            entry = Optional.of(CatalogEntry.of(calls.warehouse().location(), DEFAULT_CATALOG_DESCRIPTION));
        }
        if (entry.isEmpty()) {
            throw new NoSuchObjectException("No catalog " + HmsNames.normalize(name));
        }
        Catalog catalog = new Catalog();
        catalog.setName(in.names().hmsCatalog());
        catalog.setDescription(entry.get().description());
        catalog.setLocationUri(
                entry.get().location() == null
                        ? in.warehouse().location()
                        : entry.get().location());
        return new GetCatalogResponse(catalog);
    }

    /** The calls in the catalog {@code name} stands for; null for a name no catalog can have (empty, too long). */
    private HmsCalls lookUp(String name) {
        if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_LENGTH * 4) {
            return null;
        }
        String catalog = calls.names().treecatCatalog(name);
        return catalog.equals(calls.catalog()) ? calls : calls.in(catalog);
    }

    // ---- create, alter

    public void create_catalog(CreateCatalogRequest request) throws TException {
        Catalog catalog = request == null ? null : request.getCatalog();
        if (catalog == null || catalog.getName() == null) {
            throw new InvalidObjectException("No catalog given");
        }
        String name = catalog.getName();
        HmsCalls in = lookUp(name);
        String location = catalog.getLocationUri();
        ObjectPath path = in == null ? ObjectPath.ROOT : in.catalogPath();
        calls.write(Action.CREATE_CATALOG, path, txn -> {
            // Hive's order: a taken name, then an invalid one, then a missing location.
            if (in != null && (in.names().isDefaultCatalog() || txn.read(path).isPresent())) {
                throw new AlreadyExistsException("Catalog " + name + " already exists");
            }
            if (!VALID_NAME.matcher(name).matches()) {
                throw new InvalidObjectException(name + " is not a valid catalog name");
            }
            if (location == null || location.isEmpty()) {
                throw new InvalidObjectException("You must specify a path for the catalog");
            }
            if (name.length() > MAX_NAME_LENGTH) {
                throw new MetaException("Catalog name " + name.substring(0, 32) + "… is longer than " + MAX_NAME_LENGTH
                        + " characters");
            }
            txn.add(path, CatalogEntry.of(location, catalog.getDescription()));
            Database database = new Database();
            database.setDescription("Default database for catalog " + name);
            txn.add(
                    in.dbPath(DEFAULT_DATABASE),
                    NamespaceEntry.of(HmsDatabases.properties(database, defaultDatabaseLocation(location))));
            return null;
        });
        // A new catalog's location is its own home: its directory and its default database's are made there.
        calls.createDirectories(location, location);
        calls.createDirectories(defaultDatabaseLocation(location), location);
    }

    /**
     * Where a new catalog's {@code default} database goes: {@code <catalog location>/default}. Hive puts it at
     * the catalog's location itself, its other databases at {@code <location>/<db>.db}; TreeCat's databases have
     * no suffix ({@code <location>/<db>}), so a {@code default} at the catalog's root would place its table
     * {@code t} where a database {@code t} lives.
     */
    private static String defaultDatabaseLocation(String catalogLocation) {
        return Locations.stripSlash(catalogLocation) + "/" + DEFAULT_DATABASE;
    }

    /** A new description and location (each when given); a catalog keeps its name. */
    public void alter_catalog(AlterCatalogRequest request) throws TException {
        String name = request == null ? null : request.getName();
        Catalog changed = request == null ? null : request.getNewCat();
        if (name == null || changed == null) {
            throw new MetaException("No catalog name or new catalog given");
        }
        HmsCalls in = lookUp(name);
        if (in == null) {
            throw new NoSuchObjectException("No catalog " + HmsNames.normalize(name));
        }
        if (changed.getName() == null
                || !in.names().treecatCatalog(changed.getName()).equals(in.catalog())) {
            throw new InvalidOperationException("You cannot change a catalog's name");
        }
        calls.write(Action.UPDATE_CATALOG, in.catalogPath(), txn -> {
            CatalogEntry entry = in.names().isDefaultCatalog()
                    ? ensureHiveCatalog(txn)
                    : Catalogs.find(txn, in.catalog())
                            .orElseThrow(() -> new NoSuchObjectException("No catalog " + HmsNames.normalize(name)));
            String location =
                    changed.isSetLocationUri() && !changed.getLocationUri().isEmpty()
                            ? changed.getLocationUri()
                            : entry.location();
            String description = changed.isSetDescription() ? changed.getDescription() : entry.description();
            txn.update(in.catalogPath(), entry.withLocationAndDescription(location, description));
            return null;
        });
    }

    // ---- drop

    public void drop_catalog(DropCatalogRequest request) throws TException {
        String name = request == null ? null : request.getName();
        if (name == null) {
            throw new MetaException("No catalog name given");
        }
        HmsCalls in = lookUp(name);
        if (in != null && in.names().isDefaultCatalog()) {
            throw new MetaException("Can not drop " + HmsNames.HIVE_CATALOG + " catalog");
        }
        boolean ifExists = request.isIfExists();
        if (in == null) {
            if (ifExists) {
                return;
            }
            throw new NoSuchObjectException("No catalog " + HmsNames.normalize(name));
        }
        ObjectPath path = in.catalogPath();
        calls.write(Action.DROP_CATALOG, path, txn -> {
            Optional<CatalogEntry> entry = Catalogs.find(txn, in.catalog());
            if (entry.isEmpty()) {
                if (ifExists) {
                    return null;
                }
                throw new NoSuchObjectException("No catalog " + HmsNames.normalize(name));
            }
            List<CatalogObject> children = txn.firstChildren(path, 2);
            if (children.stream().anyMatch(child -> !child.id().equals(DEFAULT_DATABASE))) {
                throw new InvalidOperationException(
                        "There are non-default databases in the catalog " + name + " so it cannot be dropped.");
            }
            String defaultLocation = null;
            if (!children.isEmpty()) {
                ObjectPath defaultDatabase = path.child(DEFAULT_DATABASE);
                if (!txn.firstChildren(defaultDatabase, 1).isEmpty()) {
                    throw new InvalidOperationException(
                            "There are still objects in the default database for catalog " + name);
                }
                if (in.databaseExists(txn, DEFAULT_DATABASE)) {
                    defaultLocation = in.requireDatabase(txn, DEFAULT_DATABASE).getLocationUri();
                }
            }
            txn.remove(path);
            // As Hive: the emptied directories go, never anything in them.
            HmsDataFiles.Plan emptied = HmsDataFiles.database(defaultLocation, List.of());
            HmsDataFiles.path(entry.get().location()).ifPresent(emptied.emptyDirectories::add);
            txn.afterCommit(emptied::run);
            return null;
        });
    }
}
