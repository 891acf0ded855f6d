package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.treecat.core.json.JsonLimits;

/**
 * The one way the HTTP APIs read request bodies with Jackson: within the {@link JsonLimits}, and
 * strictly, so a value of the wrong JSON type is refused rather than converted. Jackson by default
 * reads {@code 1.5} into a {@code long} as 1, {@code "7"} into a number, {@code 1} or {@code true}
 * into a string and {@code null} into a primitive's zero, keeps the last of a repeated field and
 * ignores what follows the value. Here each of those fails the read (a 400 naming the field): a
 * string field takes only a JSON string, an integer field only a JSON integer, a boolean field only
 * {@code true} or {@code false}.
 *
 * <p>What follows the value is refused by the reader of a whole body ({@link #reader}), not by the
 * mapper: Iceberg's deserializers read their part of a request through the mapper
 * ({@code p.getCodec().readTree(p)}), where more of the request follows.
 */
public final class StrictJson {
    private StrictJson() {}

    /** A mapper builder with the limits and the strict reading; each API adds its own naming and modules. */
    public static JsonMapper.Builder builder(JsonLimits limits) {
        // A factory of its own: a mapper makes itself its factory's codec, which Iceberg's deserializers use.
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(limits.constraints())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        return JsonMapper.builder(factory)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .withCoercionConfig(
                        LogicalType.Textual,
                        config -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .withCoercionConfig(
                        LogicalType.Boolean,
                        config -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .withCoercionConfig(
                        LogicalType.Integer,
                        config -> config.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .withCoercionConfig(
                        LogicalType.Float,
                        config -> config.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
    }

    /** The mapper's reader of a whole request body: nothing may follow the JSON value. */
    public static ObjectReader reader(ObjectMapper mapper) {
        return mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }
}
