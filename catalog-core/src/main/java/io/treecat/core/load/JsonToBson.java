package io.treecat.core.load;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.json.JsonLimits;
import java.io.IOException;
import org.bson.BsonBinaryWriter;
import org.bson.RawBsonDocument;
import org.bson.io.BasicOutputBuffer;
import org.bson.json.JsonParseException;

/**
 * Parses one JSON object straight into BSON bytes with Jackson's streaming parser, which is several
 * times faster than org.bson's {@code JsonReader}, the bottleneck of bulk loads.
 *
 * <p>It handles plain JSON and gives exactly what {@link RawBsonDocument#parse} gives for it:
 * integers as int32 when they fit, else int64; other numbers as doubles. Anything that may be
 * MongoDB Extended JSON (a field name starting with {@code $}) or that plain JSON cannot say the
 * same way (integers beyond 64 bits, non-finite numbers) falls back to {@link RawBsonDocument#parse},
 * so the result never differs from org.bson's.
 */
final class JsonToBson {
    /** Thrown inside the fast path when org.bson must decide. */
    private static final class NeedsFallback extends Exception {
        private static final long serialVersionUID = 1L;

        NeedsFallback() {
            super(null, null, false, false);
        }
    }

    private JsonToBson() {}

    /**
     * The BSON of a JSON object within {@code limits}.
     *
     * @throws CatalogException {@code INVALID_REQUEST} naming the limit the text passes
     * @throws JsonParseException (org.bson's) for text that is not one JSON object, or that gives a
     *     field twice in one object
     */
    static RawBsonDocument parse(String json, JsonLimits limits) {
        try {
            return fast(json, limits);
        } catch (StreamConstraintsException e) {
            throw limits.exceeded(e).orElseThrow();
        } catch (NeedsFallback | IOException | RuntimeException e) {
            // Extended JSON, or input BSON cannot hold (a NUL in a name): org.bson decides, and its
            // error is the one reported. Its reader recurses once per level and knows no limits, so
            // Jackson reads the text through first: within the limits, strict JSON, no field twice.
            try {
                limits.check(json);
            } catch (JsonProcessingException notJson) {
                throw new JsonParseException(notJson.getOriginalMessage());
            }
            return RawBsonDocument.parse(json);
        }
    }

    private static RawBsonDocument fast(String json, JsonLimits limits) throws IOException, NeedsFallback {
        BasicOutputBuffer buffer = new BasicOutputBuffer(json.length() + 64);
        try (JsonParser parser = limits.factory().createParser(json);
                BsonBinaryWriter writer = new BsonBinaryWriter(buffer)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new NeedsFallback();
            }
            writer.writeStartDocument();
            writeFields(parser, writer);
            if (parser.nextToken() != null) {
                throw new NeedsFallback();
            }
        }
        return new RawBsonDocument(buffer.toByteArray());
    }

    /** Writes the fields of the object the parser is in, up to and including its end. */
    private static void writeFields(JsonParser parser, BsonBinaryWriter writer) throws IOException, NeedsFallback {
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            if (name.startsWith("$")) {
                throw new NeedsFallback();
            }
            writer.writeName(name);
            writeValue(parser, parser.nextToken(), writer);
        }
        if (token != JsonToken.END_OBJECT) {
            throw new NeedsFallback();
        }
        writer.writeEndDocument();
    }

    private static void writeValue(JsonParser parser, JsonToken token, BsonBinaryWriter writer)
            throws IOException, NeedsFallback {
        if (token == null) {
            throw new NeedsFallback();
        }
        switch (token) {
            case START_OBJECT -> {
                writer.writeStartDocument();
                writeFields(parser, writer);
            }
            case START_ARRAY -> {
                writer.writeStartArray();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    writeValue(parser, element, writer);
                }
                writer.writeEndArray();
            }
            case VALUE_STRING -> writer.writeString(parser.getText());
            case VALUE_NUMBER_INT -> {
                switch (parser.getNumberType()) {
                    case INT -> writer.writeInt32(parser.getIntValue());
                    case LONG -> writer.writeInt64(parser.getLongValue());
                    default -> throw new NeedsFallback();
                }
            }
            case VALUE_NUMBER_FLOAT -> {
                double value = parser.getDoubleValue();
                if (!Double.isFinite(value)) {
                    throw new NeedsFallback();
                }
                writer.writeDouble(value);
            }
            case VALUE_TRUE -> writer.writeBoolean(true);
            case VALUE_FALSE -> writer.writeBoolean(false);
            case VALUE_NULL -> writer.writeNull();
            default -> throw new NeedsFallback();
        }
    }
}
