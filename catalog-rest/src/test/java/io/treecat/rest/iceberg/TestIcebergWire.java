package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.junit.jupiter.api.Test;

class TestIcebergWire {
    @Test
    void aCreateWhoseSpecCannotBindToItsSchemaIsABadRequest() {
        // Found by TestIcebergRequestsFuzzing: Iceberg's UnsupportedOperationException answered 500.
        CreateTableRequest request = new IcebergBodies(IcebergRest.mapper())
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
}
