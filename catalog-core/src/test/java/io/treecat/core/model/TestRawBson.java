package io.treecat.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class TestRawBson {
    private static final List<String> NAMES = List.of("a", "b", "day", "part_val", "é");
    private static final BsonValue FALLBACK = new BsonString("fallback");

    @Test
    void findsWhatBsonDocumentGetFindsNameAfterName() {
        Random random = new Random(5);
        int decoded = 0;
        for (int run = 0; run < 5_000; run++) {
            BsonDocument value = document(random, 0);
            RawBsonDocument raw = new RawBsonDocument(value, new BsonDocumentCodec());
            List<String> names = random.nextBoolean() ? List.of(name(random)) : List.of(name(random), name(random));

            BsonValue found = RawBson.find(raw, names, FALLBACK);
            BsonValue expected = reference(raw, names);
            if (found != FALLBACK) {
                decoded++;
                assertThat(found).as("%s of %s", names, value.toJson()).isEqualTo(expected);
            }
        }
        // Most lookups are answered from the bytes, not handed back.
        assertThat(decoded).isGreaterThan(3_000);
    }

    @Test
    void handsBackWhatItCannotTellByTheBytes() {
        BsonDocument built = new BsonDocument("é", new BsonInt32(1)).append("b", new BsonArray());
        assertThat(RawBson.find(built, List.of("b"), FALLBACK)).isSameAs(FALLBACK);
        RawBsonDocument raw = new RawBsonDocument(built, new BsonDocumentCodec());
        assertThat(RawBson.find(raw, List.of("é"), FALLBACK)).isSameAs(FALLBACK);
        assertThat(RawBson.find(raw, List.of("b"), FALLBACK)).isSameAs(FALLBACK);
        assertThat(RawBson.find(raw, List.of("b", "x"), FALLBACK)).isNull();
        assertThat(RawBson.find(raw, List.of("missing"), FALLBACK)).isNull();
    }

    private static BsonValue reference(BsonDocument document, List<String> names) {
        BsonValue current = document;
        for (String name : names) {
            if (!(current instanceof BsonDocument nested)) {
                return null;
            }
            current = nested.get(name);
            if (current == null) {
                return null;
            }
        }
        return current;
    }

    private static String name(Random random) {
        return NAMES.get(random.nextInt(NAMES.size()));
    }

    private static BsonDocument document(Random random, int depth) {
        BsonDocument document = new BsonDocument();
        int fields = random.nextInt(6);
        for (int i = 0; i < fields; i++) {
            document.append(name(random) + (random.nextInt(4) == 0 ? "x" : ""), value(random, depth));
        }
        return document;
    }

    private static BsonValue value(Random random, int depth) {
        return switch (random.nextInt(depth < 2 ? 11 : 10)) {
            case 0 -> new BsonInt32(random.nextInt());
            case 1 -> new BsonInt64(random.nextLong());
            case 2 -> new BsonDouble(random.nextDouble());
            case 3 -> new BsonString("s" + random.nextInt(100) + (random.nextBoolean() ? "é" : ""));
            case 4 -> BsonBoolean.valueOf(random.nextBoolean());
            case 5 -> new BsonDateTime(random.nextLong());
            case 6 -> BsonNull.VALUE;
            case 7 -> new BsonBinary(new byte[] {1, 2, 3});
            case 8 -> new BsonArray(List.of(new BsonInt32(1)));
            case 9 -> new BsonString("");
            default -> document(random, depth + 1);
        };
    }
}
