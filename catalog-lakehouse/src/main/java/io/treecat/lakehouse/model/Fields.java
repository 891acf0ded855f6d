package io.treecat.lakehouse.model;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.DecoderContext;
import org.bson.io.ByteBufferBsonInput;

/**
 * Typed reads of a stored value for the codecs: a field of the wrong type is an error that names the
 * object kind and the field, never a silent default. Absent and BSON-null fields read as null.
 */
final class Fields {
    private Fields() {}

    /**
     * The value as a plain document, decoded once: a stored value arrives as a {@link RawBsonDocument},
     * where every field read scans the bytes again and listing the undeclared fields decodes them all.
     */
    static BsonDocument plain(BsonDocument value) {
        return value instanceof RawBsonDocument raw ? raw.decode(new BsonDocumentCodec()) : value;
    }

    /**
     * Only the {@code keys} of a stored value, read in one pass over its bytes, every other field skipped
     * undecoded. For the hot reads that need a few fields of a large object (a Hive client's table read needs
     * three of a table's, not its statistics or properties): decoding it whole cost more than the rest of a
     * narrow partition listing's own work.
     */
    static BsonDocument select(BsonDocument stored, Set<String> keys) {
        if (!(stored instanceof RawBsonDocument raw)) {
            return stored;
        }
        BsonDocument selected = new BsonDocument();
        try (BsonBinaryReader reader = new BsonBinaryReader(new ByteBufferBsonInput(raw.getByteBuffer()))) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                if (keys.contains(name)) {
                    selected.put(name, VALUE_CODEC.decode(reader, DECODER_CONTEXT));
                } else {
                    reader.skipValue();
                }
            }
        }
        return selected;
    }

    private static final BsonValueCodec VALUE_CODEC = new BsonValueCodec();
    private static final DecoderContext DECODER_CONTEXT =
            DecoderContext.builder().build();

    static String string(BsonDocument value, String key, ObjectType type) {
        BsonValue field = present(value, key);
        if (field == null) {
            return null;
        }
        if (!field.isString()) {
            throw invalid(type, key, "a string", field);
        }
        return field.asString().getValue();
    }

    static Integer int32(BsonDocument value, String key, ObjectType type) {
        BsonValue field = present(value, key);
        if (field == null) {
            return null;
        }
        if (field.isInt32()) {
            return field.asInt32().getValue();
        }
        if (field.isInt64()
                && field.asInt64().getValue() == (int) field.asInt64().getValue()) {
            return (int) field.asInt64().getValue();
        }
        throw invalid(type, key, "a 32-bit integer", field);
    }

    static Long int64(BsonDocument value, String key, ObjectType type) {
        BsonValue field = present(value, key);
        if (field == null) {
            return null;
        }
        if (field.isInt64() || field.isInt32()) {
            return field.asNumber().longValue();
        }
        throw invalid(type, key, "an integer", field);
    }

    /** A required positive integer: a counter or an id. */
    static long counter(BsonDocument value, String key, ObjectType type) {
        Long field = int64(value, key, type);
        if (field == null) {
            throw missing(type, key, "(a positive integer)");
        }
        if (field < 1) {
            throw new CatalogException(
                            ErrorCode.INVALID_VALUE,
                            "Invalid " + type.storedName() + " object: field '" + key + "' must be positive, not "
                                    + field)
                    .with("field", key);
        }
        return field;
    }

    /** A string → integer map; a non-integer entry is an error naming {@code key.entry}. */
    static Map<String, Long> longMap(BsonDocument value, String key, ObjectType type) {
        BsonDocument document = document(value, key, type);
        Map<String, Long> map = new LinkedHashMap<>();
        if (document != null) {
            for (Map.Entry<String, BsonValue> entry : document.entrySet()) {
                if (!entry.getValue().isInt64() && !entry.getValue().isInt32()) {
                    throw invalid(type, key + "." + entry.getKey(), "an integer", entry.getValue());
                }
                map.put(entry.getKey(), entry.getValue().asNumber().longValue());
            }
        }
        return map;
    }

    static byte[] binary(BsonDocument value, String key, ObjectType type) {
        BsonValue field = present(value, key);
        if (field == null) {
            return null;
        }
        if (!field.isBinary()) {
            throw invalid(type, key, "binary", field);
        }
        return field.asBinary().getData();
    }

    static BsonDocument document(BsonDocument value, String key, ObjectType type) {
        BsonValue field = present(value, key);
        if (field == null) {
            return null;
        }
        if (!field.isDocument()) {
            throw invalid(type, key, "a document", field);
        }
        return field.asDocument();
    }

    /** A string → string map; a non-string entry is an error naming {@code key.entry}. */
    static Map<String, String> stringMap(BsonDocument value, String key, ObjectType type) {
        BsonDocument document = document(value, key, type);
        Map<String, String> map = new LinkedHashMap<>();
        if (document != null) {
            for (Map.Entry<String, BsonValue> entry : document.entrySet()) {
                if (!entry.getValue().isString()) {
                    throw invalid(type, key + "." + entry.getKey(), "a string", entry.getValue());
                }
                map.put(entry.getKey(), entry.getValue().asString().getValue());
            }
        }
        return map;
    }

    static BsonDocument stringMap(Map<String, String> map) {
        BsonDocument document = new BsonDocument();
        map.forEach((key, value) -> document.put(key, new BsonString(value)));
        return document;
    }

    /** The fields of {@code value} the codec of {@code type} does not declare, kept as they are. */
    static BsonDocument others(BsonDocument value, Set<String> declared) {
        BsonDocument others = new BsonDocument();
        value.forEach((key, field) -> {
            if (!declared.contains(key)) {
                others.put(key, field);
            }
        });
        return others;
    }

    static void requireType(BsonDocument value, ObjectType type) {
        String stored = string(value, LakeKeys.OBJ_TYPE, type);
        if (!type.storedName().equals(stored)) {
            throw new CatalogException(
                            ErrorCode.INVALID_VALUE,
                            "Not a " + type.storedName() + " object: " + LakeKeys.OBJ_TYPE + " is "
                                    + (stored == null ? "missing" : "'" + stored + "'"))
                    .with("field", LakeKeys.OBJ_TYPE);
        }
    }

    static CatalogException invalid(ObjectType type, String key, String expected, BsonValue actual) {
        return new CatalogException(
                        ErrorCode.INVALID_VALUE,
                        "Invalid " + type.storedName() + " object: field '" + key + "' must be " + expected + ", not "
                                + actual.getBsonType().name().toLowerCase(java.util.Locale.ROOT))
                .with("field", key);
    }

    static CatalogException missing(ObjectType type, String key, String why) {
        return new CatalogException(
                        ErrorCode.INVALID_VALUE,
                        "Invalid " + type.storedName() + " object: field '" + key + "' is required " + why)
                .with("field", key);
    }

    private static BsonValue present(BsonDocument value, String key) {
        BsonValue field = value.get(key);
        return field == null || field.isNull() ? null : field;
    }
}
