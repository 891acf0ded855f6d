package io.treecat.core.model;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Walks the bytes of a raw BSON document by the BSON specification, for the hot paths of a scan: projecting a value
 * and reading the fields a predicate compares. {@code RawBsonDocument.get} makes a reader and a string of every name
 * it passes; these compare names as bytes and decode only what they return.
 */
public final class RawBson {
    /** An element type whose length this walker does not know; the caller falls back to the BSON library. */
    public static final int UNKNOWN = -1;

    private RawBson() {}

    public static int intAt(byte[] bytes, int at) {
        return (bytes[at] & 0xFF)
                | (bytes[at + 1] & 0xFF) << 8
                | (bytes[at + 2] & 0xFF) << 16
                | (bytes[at + 3] & 0xFF) << 24;
    }

    private static long longAt(byte[] bytes, int at) {
        return (intAt(bytes, at) & 0xFFFFFFFFL) | (long) intAt(bytes, at + 4) << 32;
    }

    /** The length of an element's value of {@code type} at {@code at}; {@link #UNKNOWN} for a type it does not know. */
    public static int valueLength(byte type, byte[] bytes, int at) {
        return switch (type) {
            case 0x01, 0x09, 0x11, 0x12 -> 8; // double, date-time, timestamp, int64
            case 0x02, 0x0D, 0x0E -> 4 + intAt(bytes, at); // string, JavaScript, symbol
            case 0x03, 0x04, 0x0F -> intAt(bytes, at); // document, array, code with scope
            case 0x05 -> 5 + intAt(bytes, at); // binary: length, subtype, bytes
            case 0x06, 0x0A, (byte) 0xFF, 0x7F -> 0; // undefined, null, min key, max key
            case 0x07 -> 12; // object id
            case 0x08 -> 1; // boolean
            case 0x0B -> { // regular expression: pattern and options, two C strings
                int options = at + cstringLength(bytes, at);
                yield options - at + cstringLength(bytes, options);
            }
            case 0x0C -> 4 + intAt(bytes, at) + 12; // DB pointer
            case 0x10 -> 4; // int32
            case 0x13 -> 16; // decimal128
            default -> UNKNOWN;
        };
    }

    /** The length of the C string at {@code at}, its trailing 0 included. */
    public static int cstringLength(byte[] bytes, int at) {
        int end = at;
        while (bytes[end] != 0) {
            end++;
        }
        return end - at + 1;
    }

    /**
     * The value at the dotted {@code names} in {@code document} (each but the last naming a document), as {@code
     * BsonDocument.get} would find it one name after another: the first element of a name; null when one is
     * missing or a parent is not a document. Answers {@code fallback} when it cannot tell by the bytes (a document
     * not backed by an array, a name that is not ASCII, an element type it does not decode); the caller then asks the
     * BSON library.
     */
    public static BsonValue find(BsonDocument document, List<String> names, BsonValue fallback) {
        if (!(document instanceof RawBsonDocument raw)) {
            return fallback;
        }
        ByteBuffer buffer = raw.getByteBuffer().asNIO();
        if (!buffer.hasArray()) {
            return fallback;
        }
        byte[] bytes = buffer.array();
        int start = buffer.arrayOffset() + buffer.position();
        for (int level = 0; level < names.size(); level++) {
            String name = names.get(level);
            if (!ascii(name)) {
                return fallback;
            }
            int end = start + intAt(bytes, start) - 1;
            int position = start + 4;
            int found = -1;
            byte foundType = 0;
            while (position < end) {
                byte type = bytes[position];
                int nameStart = position + 1;
                int nameLength = cstringLength(bytes, nameStart) - 1;
                int valueStart = nameStart + nameLength + 1;
                if (nameLength == name.length() && sameName(bytes, nameStart, name)) {
                    found = valueStart;
                    foundType = type;
                    break;
                }
                int length = valueLength(type, bytes, valueStart);
                if (length == UNKNOWN) {
                    return fallback;
                }
                position = valueStart + length;
            }
            if (found < 0) {
                return null;
            }
            if (level < names.size() - 1) {
                if (foundType != 0x03) {
                    return null;
                }
                start = found;
                continue;
            }
            return decodeScalar(foundType, bytes, found, fallback);
        }
        return fallback; // not reached: names is never empty
    }

    private static boolean ascii(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** An ASCII name against the same number of UTF-8 bytes: equal when every char is its byte. */
    private static boolean sameName(byte[] bytes, int at, String name) {
        for (int i = 0; i < name.length(); i++) {
            if (bytes[at + i] != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static BsonValue decodeScalar(byte type, byte[] bytes, int at, BsonValue fallback) {
        return switch (type) {
            case 0x01 -> new BsonDouble(Double.longBitsToDouble(longAt(bytes, at)));
            case 0x02 -> new BsonString(new String(bytes, at + 4, intAt(bytes, at) - 1, StandardCharsets.UTF_8));
            case 0x08 -> BsonBoolean.valueOf(bytes[at] != 0);
            case 0x09 -> new BsonDateTime(longAt(bytes, at));
            case 0x10 -> new BsonInt32(intAt(bytes, at));
            case 0x12 -> new BsonInt64(longAt(bytes, at));
            default -> fallback;
        };
    }
}
