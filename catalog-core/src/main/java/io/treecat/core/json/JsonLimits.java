package io.treecat.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Optional;

/**
 * How much JSON one request may hold: Jackson's {@link StreamReadConstraints}, which the parser
 * checks as it reads, so an over-deep or over-long document is refused before anything is built
 * from it (and before a recursive reader such as org.bson's {@code JsonReader} can overflow the
 * stack on it). Every JSON reader of client input uses one of these: the native API's write sets,
 * request bodies and bulk-load lines, and the Iceberg REST requests.
 *
 * <p>Each limit is named in errors by its configuration key in the server ({@code http.json.*},
 * docs/configuration.md), so a client learns which limit it passed and what to ask an operator to
 * raise.
 *
 * <p>A value: equal limits are equal. It keeps its one {@link JsonFactory}, which parsers share.
 */
public final class JsonLimits {
    public static final String MAX_DEPTH_KEY = "http.json.max-depth";
    public static final String MAX_STRING_LENGTH_KEY = "http.json.max-string-length";
    public static final String MAX_NAME_LENGTH_KEY = "http.json.max-name-length";
    public static final String MAX_NUMBER_LENGTH_KEY = "http.json.max-number-length";

    /**
     * The deepest nesting a limit may allow: org.bson writes at most 1024 levels, and its readers
     * recurse once per level.
     */
    public static final int DEPTH_CEILING = 1000;

    public static final JsonLimits DEFAULTS = new JsonLimits(256, 10_000_000, 10_000, 100);

    private final int maxDepth;
    private final int maxStringLength;
    private final int maxNameLength;
    private final int maxNumberLength;
    private final JsonFactory factory;

    /**
     * @param maxDepth the deepest nesting of objects and arrays (1 to {@link #DEPTH_CEILING})
     * @param maxStringLength the longest string value, in characters
     * @param maxNameLength the longest field name, in characters
     * @param maxNumberLength the longest number, in characters
     */
    public JsonLimits(int maxDepth, int maxStringLength, int maxNameLength, int maxNumberLength) {
        if (maxDepth < 1 || maxDepth > DEPTH_CEILING) {
            throw new IllegalArgumentException("maxDepth must be between 1 and " + DEPTH_CEILING);
        }
        if (maxStringLength < 1 || maxNameLength < 1 || maxNumberLength < 1) {
            throw new IllegalArgumentException("JSON length limits must be positive");
        }
        this.maxDepth = maxDepth;
        this.maxStringLength = maxStringLength;
        this.maxNameLength = maxNameLength;
        this.maxNumberLength = maxNumberLength;
        this.factory = JsonFactory.builder()
                .streamReadConstraints(constraints())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    public int maxDepth() {
        return maxDepth;
    }

    public int maxStringLength() {
        return maxStringLength;
    }

    public int maxNameLength() {
        return maxNameLength;
    }

    public int maxNumberLength() {
        return maxNumberLength;
    }

    public StreamReadConstraints constraints() {
        return StreamReadConstraints.builder()
                .maxNestingDepth(maxDepth)
                .maxStringLength(maxStringLength)
                .maxNameLength(maxNameLength)
                .maxNumberLength(maxNumberLength)
                .build();
    }

    /** A factory whose parsers apply these limits and refuse a field name given twice in one object. */
    public JsonFactory factory() {
        return factory;
    }

    /**
     * Reads {@code json} through once, building nothing.
     *
     * @throws CatalogException {@code INVALID_REQUEST} naming the limit, if the text passes one
     * @throws JsonProcessingException if the text is not one JSON value (or repeats a field name)
     */
    public void check(String json) throws JsonProcessingException {
        try (JsonParser parser = factory.createParser(json)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return;
            }
            int depth = 0;
            do {
                if (token.isStructStart()) {
                    depth++;
                } else if (token.isStructEnd()) {
                    depth--;
                } else if (token == JsonToken.VALUE_STRING) {
                    // Jackson checks a string's length when it decodes it; skipping would not.
                    parser.getText();
                }
            } while (depth > 0 && (token = parser.nextToken()) != null);
            if (parser.nextToken() != null) {
                // The same message Jackson gives a mapper with FAIL_ON_TRAILING_TOKENS.
                throw new com.fasterxml.jackson.core.JsonParseException(
                        parser, "Trailing token (of type " + parser.currentToken() + ") after the JSON value");
            }
        } catch (StreamConstraintsException e) {
            throw exceeded(e);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            // Reading a String does no I/O.
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The limit a failure of Jackson's (or anything it caused) passed, as the error a client gets; empty if
     * no limit was passed.
     */
    public Optional<CatalogException> exceeded(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StreamConstraintsException e) {
                return Optional.of(exceeded(e));
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return Optional.empty();
    }

    /**
     * The limit Jackson's exception names. Jackson says which limit only in its message (each starts
     * with the limit's name); one that matches none (a limit Jackson adds later) is still a refusal,
     * named by what Jackson says.
     */
    private CatalogException exceeded(StreamConstraintsException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (message.startsWith("Document nesting depth")) {
            return limit("JSON nesting is deeper than the limit", MAX_DEPTH_KEY, maxDepth);
        }
        if (message.startsWith("String value length")) {
            return limit("A JSON string is longer than the limit", MAX_STRING_LENGTH_KEY, maxStringLength);
        }
        if (message.startsWith("Name length")) {
            return limit("A JSON field name is longer than the limit", MAX_NAME_LENGTH_KEY, maxNameLength);
        }
        if (message.startsWith("Number value length") || message.startsWith("BigDecimal scale")) {
            return limit("A JSON number is longer than the limit", MAX_NUMBER_LENGTH_KEY, maxNumberLength);
        }
        // Jackson's text ends with the getter it checked ("from `StreamReadConstraints.getMax…`"): not the client's
        // concern.
        int from = message.indexOf(", from ");
        return new CatalogException(ErrorCode.INVALID_REQUEST, "The JSON is over a limit")
                .with("detail", from < 0 ? message : message.substring(0, from) + ")");
    }

    private static CatalogException limit(String message, String key, int max) {
        return new CatalogException(ErrorCode.INVALID_REQUEST, message)
                .with("limit", key)
                .with("max", max);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonLimits that
                && maxDepth == that.maxDepth
                && maxStringLength == that.maxStringLength
                && maxNameLength == that.maxNameLength
                && maxNumberLength == that.maxNumberLength;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxDepth, maxStringLength, maxNameLength, maxNumberLength);
    }

    @Override
    public String toString() {
        return "JsonLimits[maxDepth=" + maxDepth + ", maxStringLength=" + maxStringLength + ", maxNameLength="
                + maxNameLength + ", maxNumberLength=" + maxNumberLength + "]";
    }
}
