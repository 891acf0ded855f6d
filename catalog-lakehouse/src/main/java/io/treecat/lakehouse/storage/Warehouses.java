package io.treecat.lakehouse.storage;

/**
 * Where each catalog's files live: the seam the object-storage work fills (one warehouse per catalog,
 * {@code s3://}, {@code gs://}, {@code abfss://}, {@code file:}). Every adapter that needs a location
 * or a {@code FileIO} asks here, never builds one itself.
 */
@FunctionalInterface
public interface Warehouses {
    Warehouse forCatalog(String catalog);

    /**
     * Every catalog under one root: {@code <root>/<catalog>}, all through one {@code FileIO} (the
     * embedded default, a local directory).
     */
    static Warehouses underRoot(String rootLocation, org.apache.iceberg.io.FileIO io) {
        String root = Locations.stripSlash(rootLocation);
        return catalog -> new Warehouse(catalog, root + "/" + catalog, io);
    }
}
