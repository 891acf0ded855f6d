package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.storage.StorageSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code warehouse.catalogs.<name>}: one catalog's own warehouse (docs/object-storage.md). Its location's scheme picks
 * the store ({@code s3://}, {@code gs://}, {@code abfss://}, {@code file:}); {@code properties} are the store's
 * Iceberg FileIO properties under Iceberg's own names; {@code credentials} say where the keys come from, never the
 * keys. {@link ValidStorage} checks it as a whole, as {@code treecat check-config} and the start do.
 */
@ValidStorage
public final class CatalogStorageConfig {
    @NotEmpty
    @JsonProperty("location")
    private String location;

    @NotNull
    @JsonProperty("properties")
    private Map<String, String> properties = new LinkedHashMap<>();

    @Valid
    @NotNull
    @JsonProperty("credentials")
    private CredentialsConfig credentials = new CredentialsConfig();

    public CatalogStorageConfig() {}

    CatalogStorageConfig(String location, Map<String, String> properties, CredentialsConfig credentials) {
        this.location = location;
        this.properties = new LinkedHashMap<>(properties);
        this.credentials = credentials;
    }

    public StorageSettings toSettings() {
        return new StorageSettings(location, properties, credentials.toCredentials());
    }

    boolean isComplete() {
        return location != null && !location.isEmpty() && properties != null && credentials != null;
    }
}
