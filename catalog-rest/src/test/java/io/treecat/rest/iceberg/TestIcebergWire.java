package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.json.JsonLimits;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.junit.jupiter.api.Test;

class TestIcebergWire {
    @Test
    void aCreateWhoseSpecCannotBindToItsSchemaIsABadRequest() {
        // Found by TestIcebergRequestsFuzzing: Iceberg's UnsupportedOperationException answered 500.
        CreateTableRequest request = new IcebergBodies(IcebergRest.mapper(JsonLimits.DEFAULTS), JsonLimits.DEFAULTS)
                .read(
                        "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, "
                                + "\"name\": \"m\", \"required\": false, \"type\": {\"type\": \"map\", \"key-id\": 2, "
                                + "\"key\": \"string\", \"value-id\": 3, \"value\": \"long\", \"value-required\": false}}]}, "
                                + "\"partition-spec\": {\"spec-id\": 0, \"fields\": [{\"source-id\": 1, \"field-id\": 1000, "
                                + "\"transform\": \"truncate[4]\", \"name\": \"m_trunc\"}]}}",
                        CreateTableRequest.class);
        assertThatThrownBy(() -> IcebergWire.table(request))
                .isInstanceOf(BadRequestException.class)
                .hasMessage("Invalid partition spec or sort order: Cannot truncate type: map<string, long>");
    }

    @Test
    void aCreateWhoseSpecNamesAColumnTheSchemaDoesNotHaveIsAValidationFailure() {
        // Found by TestIcebergRequestsFuzzing: a void transform binds on any source id, and Iceberg's
        // newTableMetadata then threw a NullPointerException looking the missing column up (500).
        CreateTableRequest request = new IcebergBodies(IcebergRest.mapper(JsonLimits.DEFAULTS), JsonLimits.DEFAULTS)
                .read(
                        "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, "
                                + "\"name\": \"id\", \"required\": true, \"type\": \"long\"}]}, \"partition-spec\": "
                                + "{\"spec-id\": 0, \"fields\": [{\"source-id\": 2, \"field-id\": 1000, \"transform\": "
                                + "\"void\", \"name\": \"b\"}]}}",
                        CreateTableRequest.class);
        assertThatThrownBy(() -> IcebergWire.table(request).metadata("file:/warehouse/db/t"))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Cannot create table: its partition spec or sort order names a column the schema does not have");
    }
}
