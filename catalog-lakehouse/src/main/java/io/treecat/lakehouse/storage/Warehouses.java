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
     * Every catalog under one root: {@code <root>/<catalog>} (the name one escaped path segment,
     * {@link Locations#segment}), all through one {@code FileIO} (the embedded default, a local
     * directory); clients may choose locations outside it.
     */
    static Warehouses underRoot(String rootLocation, org.apache.iceberg.io.FileIO io) {
        return underRoot(rootLocation, io, ExternalLocations.ALLOWED);
    }

    /** Every catalog under one root, with {@code external} deciding whether clients' locations may lie outside it. */
    static Warehouses underRoot(String rootLocation, org.apache.iceberg.io.FileIO io, ExternalLocations external) {
        String root = Locations.stripSlash(rootLocation);
        return catalog -> new Warehouse(catalog, root + "/" + Locations.segment(catalog), io, external);
    }
}
