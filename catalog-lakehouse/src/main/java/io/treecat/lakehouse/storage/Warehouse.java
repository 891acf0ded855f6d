package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.iceberg.io.FileIO;

/**
 * Where one catalog's files live: its warehouse location (a URI with a scheme) and the {@link FileIO}
 * that reads and writes there. Default locations of namespaces and tables are built under it.
 *
 * @param catalog the catalog's name, the first id of its paths
 * @param location the catalog's warehouse location, without a trailing slash
 */
public record Warehouse(String catalog, String location, FileIO io) {
    public Warehouse {
        requireNonNull(catalog, "catalog is null");
        location = Locations.stripSlash(requireNonNull(location, "location is null"));
        requireNonNull(io, "io is null");
    }

    /** The default location of the namespace {@code levels} (empty: the catalog's own). */
    public String namespaceLocation(List<String> levels) {
        return levels.isEmpty() ? location : location + "/" + String.join("/", levels);
    }
}
