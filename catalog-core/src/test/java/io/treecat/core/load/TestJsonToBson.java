package io.treecat.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.json.JsonLimits;
import java.nio.ByteBuffer;
import java.util.Random;
import org.bson.RawBsonDocument;
import org.bson.json.JsonParseException;
import org.junit.jupiter.api.Test;

/** The fast JSON path must give byte for byte what org.bson's parser gives, on any input. */
class TestJsonToBson {
    private static final String[] STRINGS = {
        "", "a", "date=2025-01-01", "é", "😀", "quote \\\" and \\\\ and \\n", "\\u0000", "\\u00e9", "/a/b"
    };
    private static final String[] NUMBERS = {
        "0",
        "-0",
        "7",
        "-7",
        "2147483647",
        "2147483648",
        "-2147483649",
        "9223372036854775807",
        "1.5",
        "-2.0",
        "1e3",
        "1.5E-3",
        "2e+2",
        "0.1",
        "123456789.123456789",
        "1e308"
    };

    @Test
    void randomDocumentsMatchOrgBsonByteForByte() {
        Random random = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            String json = document(random, 3);
            Object expected;
            try {
                expected = bytes(RawBsonDocument.parse(json));
            } catch (RuntimeException e) {
                expected = e.getClass();
            }
            Object actual;
            try {
                actual = bytes(JsonToBson.parse(json, JsonLimits.DEFAULTS));
            } catch (RuntimeException e) {
                actual = e.getClass();
            }
            assertThat(actual).as(json).isEqualTo(expected);
        }
    }

    @Test
    void extendedJsonFallsBackToOrgBson() {
        for (String json : new String[] {
            "{\"n\": {\"$numberLong\": \"5\"}}", "{\"d\": {\"$date\": \"2025-01-01T00:00:00Z\"}}", "{\"a\": 1} ",
        }) {
            assertThat(bytes(JsonToBson.parse(json, JsonLimits.DEFAULTS)))
                    .as(json)
                    .isEqualTo(bytes(RawBsonDocument.parse(json)));
        }
    }

    @Test
    void onlyStrictJsonIsRead() {
        // org.bson's reader would take these (and shell-mode constructors); a line must be JSON.
        for (String json :
                new String[] {"{'single': 'quotes'}", "{unquoted: 1}", "{\"n\": NumberLong(5)}", "{\"a\": 1, \"a\": 2}"
                }) {
            assertThatThrownBy(() -> JsonToBson.parse(json, JsonLimits.DEFAULTS))
                    .as(json)
                    .isInstanceOf(JsonParseException.class);
        }
    }

    @Test
    void malformedInputFailsAsOrgBsonFails() {
        assertThatThrownBy(() -> JsonToBson.parse("{\"a\": ", JsonLimits.DEFAULTS))
                .isInstanceOf(JsonParseException.class);
        assertThatThrownBy(() -> JsonToBson.parse("[1, 2]", JsonLimits.DEFAULTS))
                .isInstanceOf(RuntimeException.class);
        // Beyond 64 bits org.bson refuses the number, and so does the fast path, by deferring to it.
        assertThatThrownBy(() -> JsonToBson.parse("{\"big\": 123456789012345678901234567890}", JsonLimits.DEFAULTS))
                .isInstanceOf(NumberFormatException.class);
    }

    private static byte[] bytes(RawBsonDocument document) {
        ByteBuffer buffer = document.getByteBuffer().asNIO();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static String document(Random random, int depth) {
        StringBuilder json = new StringBuilder("{");
        int fields = random.nextInt(5);
        for (int i = 0; i < fields; i++) {
            if (i > 0) {
                json.append(", ");
            }
            json.append('"')
                    .append(STRINGS[random.nextInt(STRINGS.length)])
                    .append(i)
                    .append("\": ")
                    .append(value(random, depth));
        }
        return json.append('}').toString();
    }

    private static String value(Random random, int depth) {
        int choice = random.nextInt(depth > 0 ? 8 : 6);
        return switch (choice) {
            case 0 -> '"' + STRINGS[random.nextInt(STRINGS.length)] + '"';
            case 1, 2 -> NUMBERS[random.nextInt(NUMBERS.length)];
            case 3 -> random.nextBoolean() ? "true" : "false";
            case 4 -> "null";
            case 5 -> Double.toString(random.nextGaussian() * 1e6);
            case 6 -> document(random, depth - 1);
            default -> {
                StringBuilder array = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    array.append(i > 0 ? ", " : "").append(value(random, depth - 1));
                }
                yield array.append(']').toString();
            }
        };
    }
}
