package io.treecat.lakehouse.storage;

/**
 * Whether a location a client chooses may lie outside the catalog's warehouse (config
 * {@code warehouse.allow-external-locations}). Default locations are always inside: they are built
 * under the warehouse and checked.
 */
public enum ExternalLocations {
    /**
     * A client may place a namespace, table or view anywhere its {@code FileIO} reaches, and register a
     * table whose metadata is elsewhere, as with Iceberg's and Hive's own catalogs (the default).
     */
    ALLOWED,
    /**
     * Every location the server writes to, makes a directory at or hands out for a new object lies inside
     * the catalog's warehouse; a commit that would write a metadata file elsewhere (an older table placed
     * outside) is refused too.
     */
    REFUSED
}
