package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.MetadataUpdateParser;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** A client's updates that name ids the table does not have are the client's mistake (400), never a server failure. */
class TestTableUpdates {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final TableMetadata BASE = TableMetadata.newTableMetadata(
            SCHEMA, PartitionSpec.unpartitioned(), SortOrder.unsorted(), "file:/warehouse/db/t", Map.of());

    @Test
    void aDefaultSortOrderOrSpecTheTableDoesNotHaveIsAValidationFailure() {
        // Found by TestIcebergRequestsFuzzing (catalog-rest): Iceberg's builder took the id and build() threw
        // a NullPointerException, which the REST catalog answered 500.
        assertThatThrownBy(() -> TableUpdates.apply(
                        TableMetadata.buildFrom(BASE), List.of(new MetadataUpdate.SetDefaultSortOrder(5))))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Cannot commit: an update sets a default partition spec or sort order the table does not have");
        assertThatThrownBy(() -> TableUpdates.apply(
                        TableMetadata.buildFrom(BASE), List.of(new MetadataUpdate.SetDefaultPartitionSpec(7))))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Cannot commit: an update sets a default partition spec or sort order the table does not have");
    }

    @Test
    void aTransformIcebergCannotApplyToItsColumnIsAValidationFailure() {
        // Found by TestIcebergRequestsFuzzing: truncate of a timestamp threw UnsupportedOperationException (500).
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()));
        TableMetadata base = TableMetadata.newTableMetadata(
                schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(), "file:/warehouse/db/t", Map.of());
        MetadataUpdate addSpec = MetadataUpdateParser.fromJson(
                "{\"action\": \"add-spec\", \"spec\": {\"spec-id\": 1, "
                        + "\"fields\": [{\"source-id\": 2, \"field-id\": 1000, \"transform\": \"truncate[10]\", \"name\": \"t\"}]}}");
        assertThatThrownBy(() -> TableUpdates.apply(TableMetadata.buildFrom(base), List.of(addSpec)))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Cannot apply update AddPartitionSpec: Cannot truncate type: timestamptz");
    }

    @Test
    void aSchemaTheFormatVersionCannotHoldIsAValidationFailure() {
        // Found by TestIcebergRequestsFuzzing: Iceberg's IllegalStateException (500) for a v3 type in a v2 table.
        MetadataUpdate addSchema = MetadataUpdateParser.fromJson("{\"action\": \"add-schema\", \"schema\": {\"type\": "
                + "\"struct\", \"schema-id\": 1, \"fields\": [{\"id\": 1, \"name\": \"id\", \"required\": true, "
                + "\"type\": \"geometry\"}]}, \"last-column-id\": 1}");
        TableMetadata v2 = TableMetadata.newTableMetadata(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                SortOrder.unsorted(),
                "file:/w/t",
                Map.of("format-version", "2"));
        assertThatThrownBy(() -> TableUpdates.apply(TableMetadata.buildFrom(v2), List.of(addSchema)))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Cannot apply update AddSchema: Invalid schema for v2:");
    }

    @Test
    void updatesApplyAsIcebergAppliesThem() {
        TableMetadata updated = TableUpdates.apply(
                TableMetadata.buildFrom(BASE), List.of(new MetadataUpdate.SetProperties(Map.of("owner", "ann"))));
        assertThat(updated.properties()).containsEntry("owner", "ann");
    }
}
