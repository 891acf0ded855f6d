package io.treecat.lakehouse.model;

import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/** Builds a stored value for the codecs: {@code obj_type} first, then each field that is present (null: left out). */
final class Values {
    private final BsonDocument value;

    private Values(ObjectType type) {
        this.value = new BsonDocument(LakeKeys.OBJ_TYPE, type.bson());
    }

    static Values of(ObjectType type) {
        return new Values(type);
    }

    Values string(String key, String field) {
        return value(key, field == null ? null : new BsonString(field));
    }

    Values int32(String key, Integer field) {
        return value(key, field == null ? null : new BsonInt32(field));
    }

    Values int64(String key, Long field) {
        return value(key, field == null ? null : new BsonInt64(field));
    }

    Values binary(String key, byte[] field) {
        return value(key, field == null ? null : new BsonBinary(field));
    }

    Values stringMap(String key, Map<String, String> field) {
        return value(key, field == null ? null : Fields.stringMap(field));
    }

    Values value(String key, BsonValue field) {
        if (field != null) {
            value.append(key, field);
        }
        return this;
    }

    /** The fields no interface declares, after the declared ones. */
    BsonDocument with(BsonDocument others) {
        value.putAll(others);
        return value;
    }
}
