package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.Schema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TestNewTable {
    @Test
    void aSchemaItsFormatVersionCannotHoldIsAValidationFailure() {
        Schema geometry = new Schema(Types.NestedField.required(1, "g", Types.GeometryType.crs84()));
        assertThatThrownBy(() -> NewTable.of("t", geometry).metadata("file:/warehouse/db/t"))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Cannot create table: Invalid schema for v2:");
        assertThat(NewTable.of("t", new Schema(Types.NestedField.required(1, "id", Types.LongType.get())))
                        .metadata("file:/warehouse/db/t")
                        .location())
                .isEqualTo("file:/warehouse/db/t");
    }
}
