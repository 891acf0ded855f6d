package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.view.ViewVersion;

/**
 * What a client gives for a new view ({@link IcebergViews#create}): its first version and that
 * version's schema. The properties keep their order: they are written into the first metadata file.
 *
 * @param location the view's location; null or blank for {@code <namespace location>/<name>}
 */
public record NewView(
        String name, Schema schema, ViewVersion version, String location, Map<String, String> properties) {
    public NewView {
        requireNonNull(name, "name is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(version, "version is null");
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    boolean hasLocation() {
        return location != null && !location.isBlank();
    }
}
