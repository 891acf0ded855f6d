package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * What a client gives for a new table ({@link IcebergTables#create}). The properties keep their
 * order: they are written into the first metadata file in it.
 *
 * @param spec the partition spec, unpartitioned when null
 * @param writeOrder the sort order, unsorted when null
 * @param location the table's location; null or blank for {@code <namespace location>/<name>}
 */
public record NewTable(
        String name,
        Schema schema,
        PartitionSpec spec,
        SortOrder writeOrder,
        String location,
        Map<String, String> properties) {
    public NewTable {
        requireNonNull(name, "name is null");
        requireNonNull(schema, "schema is null");
        spec = spec == null ? PartitionSpec.unpartitioned() : spec;
        writeOrder = writeOrder == null ? SortOrder.unsorted() : writeOrder;
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** A table of {@code schema} with no partitioning, sort order, own location or properties. */
    public static NewTable of(String name, Schema schema) {
        return new NewTable(name, schema, null, null, null, null);
    }

    /**
     * The table's first metadata, at {@code location}. What Iceberg refuses in the client's table is
     * the client's mistake (400): its IllegalArgumentException and ValidationException, and its
     * IllegalStateException for a schema the format version cannot hold (a v3 type in a v2 table) and
     * NullPointerException for a spec or sort order on a column the schema does not have, answered
     * here as a ValidationException.
     */
    public TableMetadata metadata(String location) {
        try {
            return TableMetadata.newTableMetadata(schema, spec, writeOrder, location, properties);
        } catch (IllegalStateException e) {
            throw new ValidationException(e, "Cannot create table: %s", e.getMessage());
        } catch (NullPointerException e) {
            // newTableMetadata looks each spec and sort-order source up by name in the schema: a source
            // id the schema does not have is a null name there.
            throw new ValidationException(
                    e, "Cannot create table: its partition spec or sort order names a column the schema does not have");
        }
    }

    boolean hasLocation() {
        return location != null && !location.isBlank();
    }
}
