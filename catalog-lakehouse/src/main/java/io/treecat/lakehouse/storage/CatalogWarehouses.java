package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's {@link Warehouses}: each catalog's warehouse, found in this order.
 *
 * <ol>
 *   <li>A catalog listed in the configuration ({@code warehouse.catalogs.<name>}): its own location and store. Their
 *       FileIOs are built at start, so a bad setting fails the start, naming the key.
 *   <li>A catalog added at run time with storage settings on its catalog object ({@code storage}, through the native
 *       API or {@code treecat catalog add}): found by {@code stored}, which reads the object. Its FileIO is built on
 *       first use and kept while the object's settings stay the same; a changed object gets a new one.
 *   <li>Every other catalog: {@code <root>/<catalog>} through the root's FileIO, as before (the embedded default, a
 *       local directory).
 * </ol>
 *
 * <p>Closing closes every FileIO it built (their SDK clients and connection pools), after the server has stopped
 * serving requests.
 */
public final class CatalogWarehouses implements Warehouses, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogWarehouses.class);

    private final Warehouses root;
    private final ExternalLocations external;
    private final Map<String, Warehouse> configured;
    private final Function<String, Optional<StorageSettings>> stored;
    private final Function<String, String> environment;
    private final Map<String, Built> built = new ConcurrentHashMap<>();
    private final List<FileIO> retired = new ArrayList<>();

    /** A run-time catalog's warehouse and the settings it was built from. */
    private record Built(StorageSettings settings, Warehouse warehouse) {}

    /**
     * @param root every catalog without its own warehouse ({@link Warehouses#underRoot})
     * @param configured the catalogs of the configuration, by name
     * @param stored a catalog object's storage settings, by catalog name; empty when it has none (or no object)
     * @param environment where credentials' environment variables are read ({@code System::getenv})
     */
    public CatalogWarehouses(
            Warehouses root,
            ExternalLocations external,
            Map<String, StorageSettings> configured,
            Function<String, Optional<StorageSettings>> stored,
            Function<String, String> environment) {
        this.root = requireNonNull(root, "root is null");
        this.external = requireNonNull(external, "external is null");
        this.stored = requireNonNull(stored, "stored is null");
        this.environment = requireNonNull(environment, "environment is null");
        ImmutableMap.Builder<String, Warehouse> warehouses = ImmutableMap.builder();
        try {
            configured.forEach((name, settings) -> warehouses.put(
                    name, new Warehouse(name, settings.location(), FileIOs.open(settings, environment), external)));
        } catch (RuntimeException e) {
            warehouses.buildKeepingLast().values().forEach(warehouse -> closeQuietly(warehouse.io()));
            throw e;
        }
        this.configured = warehouses.buildOrThrow();
    }

    @Override
    public Warehouse forCatalog(String catalog) {
        Warehouse own = configured.get(catalog);
        if (own != null) {
            return own;
        }
        Optional<StorageSettings> settings = stored.apply(catalog);
        if (settings.isEmpty()) {
            return root.forCatalog(catalog);
        }
        Built current = built.get(catalog);
        if (current != null && current.settings().equals(settings.get())) {
            return current.warehouse();
        }
        Built made = built.compute(catalog, (name, existing) -> {
            if (existing != null && existing.settings().equals(settings.get())) {
                return existing;
            }
            if (existing != null) {
                // Requests in flight may still use it: closed with the others at shutdown.
                synchronized (retired) {
                    retired.add(existing.warehouse().io());
                }
            }
            StorageSettings wanted = settings.get();
            return new Built(
                    wanted, new Warehouse(name, wanted.location(), FileIOs.open(wanted, environment), external));
        });
        return made.warehouse();
    }

    /** The configured catalogs' names. */
    public java.util.Set<String> configuredCatalogs() {
        return configured.keySet();
    }

    @Override
    public void close() {
        configured.values().forEach(warehouse -> closeQuietly(warehouse.io()));
        built.values().forEach(made -> closeQuietly(made.warehouse().io()));
        built.clear();
        synchronized (retired) {
            retired.forEach(CatalogWarehouses::closeQuietly);
            retired.clear();
        }
    }

    private static void closeQuietly(FileIO io) {
        try {
            io.close();
        } catch (RuntimeException e) {
            LOG.warn("Could not close a warehouse's FileIO", e);
        }
    }
}
