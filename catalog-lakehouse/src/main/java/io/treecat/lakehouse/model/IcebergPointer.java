package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a table or view object keeps of an Iceberg metadata file: the file itself (the pointer a
 * commit swaps) and the fields a reader needs without opening it.
 *
 * @param currentSnapshotId the current snapshot of a table, null for none; for a view its current version id
 */
public record IcebergPointer(
        String metadataLocation,
        int formatVersion,
        String uuid,
        Long currentSnapshotId,
        String location,
        Map<String, String> properties) {
    public IcebergPointer {
        requireNonNull(metadataLocation, "metadataLocation is null");
        requireNonNull(uuid, "uuid is null");
        requireNonNull(location, "location is null");
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(properties, "properties is null")));
    }
}
