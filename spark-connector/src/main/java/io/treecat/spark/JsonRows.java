package io.treecat.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * JSON values (an object's value as relaxed Extended JSON) as Spark's internal values of the types Spark's JSON
 * schema inference gives them. A value that does not fit its inferred type is null, as Spark's own JSON reader
 * answers in its permissive mode.
 */
final class JsonRows {
    private JsonRows() {}

    static Object convert(JsonNode node, DataType type) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (type instanceof StringType) {
            return UTF8String.fromString(node.isTextual() ? node.asText() : node.toString());
        }
        if (type instanceof LongType) {
            return node.isIntegralNumber() && node.canConvertToLong() ? node.asLong() : null;
        }
        if (type instanceof DoubleType) {
            return node.isNumber() ? node.asDouble() : null;
        }
        if (type instanceof DecimalType decimal) {
            if (!node.isNumber()) {
                return null;
            }
            Decimal value = Decimal.apply(new BigDecimal(node.asText()));
            return value.changePrecision(decimal.precision(), decimal.scale()) ? value : null;
        }
        if (type instanceof BooleanType) {
            return node.isBoolean() ? node.asBoolean() : null;
        }
        if (type instanceof StructType struct) {
            return node.isObject() ? struct(node, struct) : null;
        }
        if (type instanceof ArrayType array) {
            if (!node.isArray()) {
                return null;
            }
            Object[] elements = new Object[node.size()];
            for (int i = 0; i < elements.length; i++) {
                elements[i] = convert(node.get(i), array.elementType());
            }
            return new GenericArrayData(elements);
        }
        return null;
    }

    static InternalRow struct(JsonNode node, StructType type) {
        StructField[] fields = type.fields();
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = convert(node.get(fields[i].name()), fields[i].dataType());
        }
        return new GenericInternalRow(values);
    }

    /** Records the JSON type of every field under {@code node}, keyed by its names joined with NUL. */
    static void kinds(JsonNode node, String prefix, Map<String, Set<PathQueries.Kind>> kinds) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String path = prefix.isEmpty() ? field.getKey() : prefix + "\u0000" + field.getKey();
            JsonNode value = field.getValue();
            if (value.isNull()) {
                continue;
            }
            PathQueries.Kind kind = value.isTextual()
                    ? PathQueries.Kind.STRING
                    : value.isNumber()
                            ? PathQueries.Kind.NUMBER
                            : value.isBoolean() ? PathQueries.Kind.BOOLEAN : PathQueries.Kind.OTHER;
            kinds.computeIfAbsent(path, key -> java.util.EnumSet.noneOf(PathQueries.Kind.class))
                    .add(kind);
            if (value.isObject()) {
                kinds(value, path, kinds);
            }
        }
    }
}
