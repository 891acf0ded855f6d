package io.treecat.core.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class TestProjection {
    private static final List<String> NAMES = List.of("a", "b", "c", "file_path", "lower", "é");

    @Test
    void aRawValueIsProjectedInOnePassToTheSameFieldsInTheSameOrder() {
        Random random = new Random(42);
        for (int run = 0; run < 3_000; run++) {
            BsonDocument value = document(random, 0);
            RawBsonDocument raw = new RawBsonDocument(value, new BsonDocumentCodec());
            List<String> fields = fields(random);

            BsonDocument expected = reference(value, fields);
            BsonDocument fromRaw = Projection.of(fields).apply(raw);
            BsonDocument fromDocument = Projection.of(fields).apply(value);

            assertThat(fromRaw).as("raw %s of %s", fields, value.toJson()).isInstanceOf(RawBsonDocument.class);
            assertThat(fromRaw.toJson())
                    .as("raw %s of %s", fields, value.toJson())
                    .isEqualTo(expected.toJson());
            assertThat(fromDocument.toJson())
                    .as("%s of %s", fields, value.toJson())
                    .isEqualTo(expected.toJson());
        }
    }

    @Test
    void oneProjectionServesValueAfterValue() {
        Random random = new Random(43);
        for (int run = 0; run < 300; run++) {
            List<String> fields = fields(random);
            Projection projection = Projection.of(fields);
            for (int value = 0; value < 10; value++) {
                BsonDocument document = document(random, 0);
                RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
                assertThat(projection.apply(raw).toJson())
                        .as("raw %s of %s", fields, document.toJson())
                        .isEqualTo(reference(document, fields).toJson());
            }
        }
    }

    @Test
    void aFileLeafKeepsItsPlanningFields() {
        RawBsonDocument file = RawBsonDocument.parse("{obj_type: 'file', file_path: 's3://b/t/f.parquet', spec_id: 0,"
                + " part_val: {day: 20089, id_bucket: 3}, record_count: {$numberLong: '1000'},"
                + " lower_bounds: {'1': {$binary: {base64: 'AQID', subType: '00'}}}, lower: {id: 5}}");

        BsonDocument projected = Projection.of(List.of("file_path", "part_val.day", "record_count", "missing"))
                .apply(file);

        assertThat(projected.toJson())
                .isEqualTo("{\"file_path\": \"s3://b/t/f.parquet\", \"part_val\": {\"day\": 20089}, \"record_count\":"
                        + " 1000}");
    }

    @Test
    void aNameTwiceInAValueKeepsTheFirst() {
        // Written by hand: a BsonDocument cannot hold a name twice, raw BSON can.
        BsonDocument first = new BsonDocument("a", new BsonInt32(1));
        BsonDocument second = new BsonDocument("a", new BsonInt32(2));
        byte[] one = new RawBsonDocument(first, new BsonDocumentCodec())
                .getByteBuffer()
                .array();
        byte[] two = new RawBsonDocument(second, new BsonDocumentCodec())
                .getByteBuffer()
                .array();
        int elements = one.length - 5;
        byte[] both = new byte[4 + 2 * elements + 1];
        System.arraycopy(one, 4, both, 4, elements);
        System.arraycopy(two, 4, both, 4 + elements, elements);
        ByteBuffer.wrap(both).order(ByteOrder.LITTLE_ENDIAN).putInt(0, both.length);

        assertThat(Projection.of(List.of("a")).apply(new RawBsonDocument(both)).toJson())
                .isEqualTo("{\"a\": 1}");
    }

    /**
     * The projection's meaning, on a decoded value: the names' shape in order of first mention (a name kept whole
     * covers what is under it), then each name's value looked up by name, a nested one only in a document, and left
     * out when nothing under it was found.
     */
    private static BsonDocument reference(BsonDocument value, List<String> fields) {
        Map<String, Object> shape = new LinkedHashMap<>();
        for (String field : fields) {
            Map<String, Object> level = shape;
            String[] names = field.split("\\.");
            for (int i = 0; i < names.length; i++) {
                boolean last = i == names.length - 1;
                Object existing = level.get(names[i]);
                if (existing == WHOLE) {
                    break;
                }
                if (last) {
                    level.put(names[i], WHOLE);
                    break;
                }
                if (existing == null) {
                    existing = new LinkedHashMap<String, Object>();
                    level.put(names[i], existing);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> next = (Map<String, Object>) existing;
                level = next;
            }
        }
        return project(value, shape);
    }

    private static final Object WHOLE = new Object();

    @SuppressWarnings("unchecked")
    private static BsonDocument project(BsonDocument value, Map<String, Object> shape) {
        BsonDocument projected = new BsonDocument();
        shape.forEach((name, inner) -> {
            BsonValue found = value.get(name);
            if (found != null && inner == WHOLE) {
                projected.put(name, found);
            } else if (found != null && found.isDocument()) {
                BsonDocument nested = project(found.asDocument(), (Map<String, Object>) inner);
                if (!nested.isEmpty()) {
                    projected.put(name, nested);
                }
            }
        });
        return projected;
    }

    private static List<String> fields(Random random) {
        List<String> fields = new ArrayList<>();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            int depth = 1 + random.nextInt(3);
            List<String> names = new ArrayList<>();
            for (int d = 0; d < depth; d++) {
                names.add(NAMES.get(random.nextInt(NAMES.size())));
            }
            fields.add(String.join(".", names));
        }
        return fields;
    }

    private static BsonDocument document(Random random, int depth) {
        BsonDocument document = new BsonDocument();
        int size = random.nextInt(depth == 0 ? 6 : 4);
        for (int i = 0; i < size; i++) {
            document.put(NAMES.get(random.nextInt(NAMES.size())), value(random, depth));
        }
        return document;
    }

    private static BsonValue value(Random random, int depth) {
        int kind = random.nextInt(depth < 2 ? 22 : 20);
        return switch (kind) {
            case 0 -> new BsonInt32(random.nextInt());
            case 1 -> new BsonInt64(random.nextLong());
            case 2 -> new BsonDouble(random.nextDouble());
            case 3 -> new BsonString("s" + random.nextInt(100) + (random.nextBoolean() ? "ü€" : ""));
            case 4 -> BsonBoolean.valueOf(random.nextBoolean());
            case 5 -> BsonNull.VALUE;
            case 6 -> new BsonBinary(new byte[random.nextInt(5)]);
            case 7 -> new BsonDateTime(random.nextLong());
            case 8 -> new BsonObjectId(new ObjectId());
            case 9 -> new BsonDecimal128(Decimal128.parse("1.5"));
            case 10 -> new BsonRegularExpression("a.*" + random.nextInt(9), "i");
            case 11 -> new BsonTimestamp(random.nextLong());
            case 12 -> new BsonMinKey();
            case 13 -> new BsonMaxKey();
            case 14 -> new BsonSymbol("sym");
            case 15 -> new BsonJavaScript("x = 1");
            case 16 -> new BsonUndefined();
            case 17 -> new BsonDbPointer("ns", new ObjectId());
            case 18 -> new BsonJavaScriptWithScope("y", new BsonDocument("k", new BsonInt32(1)));
            case 19 -> new BsonArray(List.of(new BsonInt32(1), new BsonString("two")));
            default -> document(random, depth + 1);
        };
    }
}
