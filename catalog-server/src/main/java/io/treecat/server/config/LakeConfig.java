package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.storage.Locations;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** {@code lake.*}: the rules new lake objects follow, whichever interface makes them (docs/iceberg-rest.md, "Names and locations"). */
public final class LakeConfig {
    /**
     * The longest new catalog, namespace, table or view name, in bytes of UTF-8. At most 255: a name is a
     * path segment of its default location, and 255 bytes is the longest file name of common file systems.
     */
    @Min(1)
    @Max(Locations.MAX_SEGMENT_BYTES)
    @JsonProperty("max-name-bytes")
    private int maxNameBytes = LakeNames.DEFAULT_MAX_BYTES;

    public LakeNames names() {
        return new LakeNames(maxNameBytes);
    }
}
