package io.treecat.core.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import org.junit.jupiter.api.Test;

/**
 * Each limit is Jackson's own check, and each refusal names the limit by its configuration key (the
 * error a client gets), whatever Jackson's message says.
 */
class TestJsonLimits {
    private static final JsonLimits SMALL = new JsonLimits(4, 10, 5, 6);

    static String nested(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    }

    private static void assertOver(String json, String message, String key, int max) {
        assertThatThrownBy(() -> SMALL.check(json))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(e.context()).containsEntry("limit", key).containsEntry("max", String.valueOf(max));
                })
                .hasMessage(message);
    }

    @Test
    void eachLimitIsNamedByItsKey() {
        assertThatCode(() -> SMALL.check(nested(4))).doesNotThrowAnyException();
        assertOver(nested(5), "JSON nesting is deeper than the limit", "http.json.max-depth", 4);
        assertOver("[[[[[1]]]]]", "JSON nesting is deeper than the limit", "http.json.max-depth", 4);
        assertOver(
                "{\"a\": \"" + "x".repeat(11) + "\"}",
                "A JSON string is longer than the limit",
                "http.json.max-string-length",
                10);
        assertOver("{\"abcdef\": 1}", "A JSON field name is longer than the limit", "http.json.max-name-length", 5);
        assertOver("{\"a\": 1234567}", "A JSON number is longer than the limit", "http.json.max-number-length", 6);
        assertOver("{\"a\": 1.234567}", "A JSON number is longer than the limit", "http.json.max-number-length", 6);
    }

    @Test
    void textThatIsNotOneJsonValueIsJacksonsError() {
        assertThatThrownBy(() -> SMALL.check("{\"a\": 1, \"a\": 2}"))
                .isInstanceOf(JsonProcessingException.class)
                .hasMessageContaining("Duplicate field 'a'");
        assertThatThrownBy(() -> SMALL.check("{} {}"))
                .isInstanceOf(JsonProcessingException.class)
                .hasMessageContaining("Trailing token");
        assertThatThrownBy(() -> SMALL.check("{a: 1}")).isInstanceOf(JsonProcessingException.class);
        assertThatCode(() -> SMALL.check("")).doesNotThrowAnyException();
    }

    @Test
    void aFailureCausedByALimitIsFoundThroughItsCauses() throws Exception {
        Throwable wrapped;
        try (var parser = SMALL.factory().createParser(nested(9))) {
            while (parser.nextToken() != null) {
                // read until the limit
            }
            throw new AssertionError("not refused");
        } catch (JsonProcessingException e) {
            wrapped = new IllegalStateException("wrapped", e);
        }
        assertThat(SMALL.exceeded(wrapped))
                .hasValueSatisfying(e -> assertThat(e.context()).containsEntry("limit", "http.json.max-depth"));
        assertThat(SMALL.exceeded(new IllegalStateException("no limit"))).isEmpty();
    }

    @Test
    void depthIsBoundedBelowWhatOrgBsonCanWrite() {
        assertThatThrownBy(() -> new JsonLimits(1001, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxDepth must be between 1 and 1000");
        assertThat(new JsonLimits(4, 10, 5, 6)).isEqualTo(SMALL).hasSameHashCodeAs(SMALL);
    }
}
