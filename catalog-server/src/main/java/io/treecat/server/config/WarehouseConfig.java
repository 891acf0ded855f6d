package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;

/** {@code warehouse.*}: where table data and metadata files go (the Iceberg REST catalog writes here). */
public final class WarehouseConfig {
    @NotEmpty
    @JsonProperty("location")
    private String location = "warehouse";

    public String location() {
        return location;
    }
}
