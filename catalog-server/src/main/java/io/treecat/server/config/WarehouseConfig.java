package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.storage.ExternalLocations;
import jakarta.validation.constraints.NotEmpty;

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

    public String location() {
        return location;
    }

    public ExternalLocations externalLocations() {
        return allowExternalLocations ? ExternalLocations.ALLOWED : ExternalLocations.REFUSED;
    }
}
