package io.treecat.lakehouse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The codec of a Hive function: the stored shape the HMS interface has always written. */
class TestFunctionEntry {
    @Test
    void encodesTheStoredShapeAndRoundTrips() {
        FunctionEntry entry = FunctionEntry.hive("com.example.Upper", "JAVA", "alice", new byte[] {1, 2});
        BsonDocument value = entry.encode();
        assertThat(value)
                .isEqualTo(new BsonDocument("obj_type", new BsonString("function"))
                        .append("class_name", new BsonString("com.example.Upper"))
                        .append("function_type", new BsonString("JAVA"))
                        .append("owner", new BsonString("alice"))
                        .append("hms_function", new BsonBinary(new byte[] {1, 2})));
        assertThat(FunctionEntry.decode(value)).isEqualTo(entry);
    }

    @Test
    void keepsUndeclaredFieldsAndNeedsAClass() {
        BsonDocument value = new BsonDocument("obj_type", new BsonString("function"))
                .append("class_name", new BsonString("C"))
                .append("note", new BsonString("kept"));
        assertThat(FunctionEntry.decode(value).encode()).isEqualTo(value);
        assertThatThrownBy(() -> FunctionEntry.decode(new BsonDocument("obj_type", new BsonString("function"))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid function object: field 'class_name' is required for a function");
        assertThat(FunctionEntry.container()).isEqualTo(new BsonDocument("obj_type", new BsonString("hms_functions")));
    }
}
