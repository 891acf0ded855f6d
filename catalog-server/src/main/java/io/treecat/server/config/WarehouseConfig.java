package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.StorageSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code warehouse.*}: where table data and metadata files go (the Iceberg REST catalog writes here). */
public final class WarehouseConfig {
    @NotEmpty
    @JsonProperty("location")
    private String location = "warehouse";

    /**
     * Whether a location a client chooses (a namespace's {@code location} property, a table's or view's
     * {@code location}, {@code write.metadata.path}, a registered metadata file, a Hive database's or
     * table's location) may lie outside the catalog's warehouse. On by default, as with Iceberg's and
     * Hive's own catalogs; off, the server writes only inside the warehouse (docs/iceberg-rest.md,
     * "Names and locations").
     */
    @JsonProperty("allow-external-locations")
    private boolean allowExternalLocations = true;

    /**
     * Catalogs with their own warehouse, by catalog name (REST prefix): an object store or another directory
     * (docs/object-storage.md). Every other catalog is {@code <location>/<catalog>}.
     */
    @Valid
    @NotNull
    @JsonProperty("catalogs")
    private Map<String, CatalogStorageConfig> catalogs = new LinkedHashMap<>();

    /** The configured catalogs' settings, by name, in the file's order. */
    public Map<String, StorageSettings> catalogs() {
        Map<String, StorageSettings> settings = new LinkedHashMap<>();
        catalogs.forEach((name, config) -> settings.put(name, config.toSettings()));
        return settings;
    }

    public String location() {
        return location;
    }

    public ExternalLocations externalLocations() {
        return allowExternalLocations ? ExternalLocations.ALLOWED : ExternalLocations.REFUSED;
    }
}
