package io.treecat.core.version;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.IdOrder;
import java.math.BigDecimal;
import java.util.Map;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNumber;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * Commit-time updates (paper §3.3): a delta applied to an object's value when the commit is written,
 * so concurrent writers of counters and statistics need not read-modify-write.
 *
 * <p>A delta is a document. Each field is one of:
 *
 * <ul>
 *   <li>an operation {@code {"op": "+" | "-" | "min" | "max", "val": v}} (exactly these two keys),
 *       applied to the field of the same name. {@code +} and {@code -} need numbers; {@code min} and
 *       {@code max} take numbers, strings or dates. A missing field counts as absent: {@code +}
 *       sets {@code v}, {@code -} sets {@code -v}, {@code min}/{@code max} set {@code v};
 *   <li>any other document: a nested delta for the nested document of that name (created if absent);
 *   <li>any other value: set as is.
 * </ul>
 *
 * <p>Integer arithmetic stays integer (int32 widens to int64 on overflow; int64 overflow is an
 * error); any double makes the result a double; decimal128 stays decimal128.
 */
public final class MergeDelta {
    private static final String OP = "op";
    private static final String VAL = "val";

    private MergeDelta() {}

    /** Checks a delta's form without applying it, so a bad delta fails before anything is written. */
    public static void validate(BsonDocument delta) {
        validate(delta, "");
    }

    private static void validate(BsonDocument delta, String prefix) {
        for (Map.Entry<String, BsonValue> field : delta.entrySet()) {
            String name = prefix + field.getKey();
            BsonValue value = field.getValue();
            if (isOperation(value)) {
                String op = operator(value.asDocument(), name);
                BsonValue operand = value.asDocument().get(VAL);
                boolean arithmetic = op.equals("+") || op.equals("-");
                if (arithmetic ? !operand.isNumber() && !operand.isDecimal128() : !isOrderable(operand)) {
                    throw mismatch("Merge operand has the wrong type", name, op, operand);
                }
            } else if (value.isDocument()) {
                validate(value.asDocument(), name + ".");
            }
        }
    }

    /** The value after applying {@code delta} to {@code base}; neither argument is modified. */
    public static BsonDocument apply(BsonDocument base, BsonDocument delta) {
        validate(delta);
        return apply(base, delta, "");
    }

    private static BsonDocument apply(BsonDocument base, BsonDocument delta, String prefix) {
        BsonDocument result = new BsonDocument();
        for (Map.Entry<String, BsonValue> field : base.entrySet()) {
            result.put(field.getKey(), field.getValue());
        }
        for (Map.Entry<String, BsonValue> field : delta.entrySet()) {
            String key = field.getKey();
            String name = prefix + key;
            BsonValue change = field.getValue();
            BsonValue current = result.get(key);
            if (isOperation(change)) {
                BsonDocument operation = change.asDocument();
                result.put(key, applyOperation(current, operator(operation, name), operation.get(VAL), name));
            } else if (change.isDocument()) {
                if (current != null && !current.isDocument()) {
                    throw mismatch("Merge expects a document", name, "nested", current);
                }
                BsonDocument nested = current == null ? new BsonDocument() : current.asDocument();
                result.put(key, apply(nested, change.asDocument(), name + "."));
            } else {
                result.put(key, change);
            }
        }
        return result;
    }

    private static boolean isOperation(BsonValue value) {
        if (!value.isDocument()) {
            return false;
        }
        BsonDocument document = value.asDocument();
        return document.size() == 2 && document.containsKey(OP) && document.containsKey(VAL);
    }

    private static String operator(BsonDocument operation, String field) {
        BsonValue op = operation.get(OP);
        if (op.isString()) {
            switch (op.asString().getValue()) {
                case "+":
                case "-":
                case "min":
                case "max":
                    return op.asString().getValue();
                default:
                    break;
            }
        }
        String shown = op.isString() ? "'" + op.asString().getValue() + "'" : "of type " + op.getBsonType();
        throw new CatalogException(
                        ErrorCode.INVALID_VALUE, "Unknown merge operator " + shown + " (use +, -, min or max)")
                .with("field", field);
    }

    private static BsonValue applyOperation(BsonValue current, String op, BsonValue operand, String field) {
        switch (op) {
            case "+":
                return current == null ? operand : add(current, operand, false, field);
            case "-":
                return current == null
                        ? add(new BsonInt32(0), operand, true, field)
                        : add(current, operand, true, field);
            case "min":
            case "max":
                if (current == null) {
                    return operand;
                }
                int order = compareOrderable(current, operand, op, field);
                boolean takeOperand = op.equals("min") ? order > 0 : order < 0;
                return takeOperand ? operand : current;
            default:
                throw new IllegalStateException(op);
        }
    }

    private static BsonValue add(BsonValue current, BsonValue operand, boolean subtract, String field) {
        if (!isNumeric(current)) {
            throw mismatch("Merge cannot do arithmetic on this field", field, subtract ? "-" : "+", current);
        }
        if (current.isDecimal128() || operand.isDecimal128()) {
            BigDecimal a = decimal(current);
            BigDecimal b = decimal(operand);
            return new BsonDecimal128(new Decimal128(subtract ? a.subtract(b) : a.add(b)));
        }
        if (current.isDouble() || operand.isDouble()) {
            double a = current.asNumber().doubleValue();
            double b = operand.asNumber().doubleValue();
            return new BsonDouble(subtract ? a - b : a + b);
        }
        long a = current.asNumber().longValue();
        long b = operand.asNumber().longValue();
        long sum;
        try {
            sum = subtract ? Math.subtractExact(a, b) : Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw new CatalogException(ErrorCode.INVALID_VALUE, "Merge overflows a 64-bit integer")
                    .with("field", field);
        }
        if (current.isInt32() && operand.isInt32() && sum == (int) sum) {
            return new BsonInt32((int) sum);
        }
        return new BsonInt64(sum);
    }

    private static boolean isNumeric(BsonValue value) {
        return value.isNumber() || value.isDecimal128();
    }

    private static boolean isOrderable(BsonValue value) {
        return isNumeric(value) || value.isString() || value.isDateTime();
    }

    private static BigDecimal decimal(BsonValue value) {
        if (value.isDecimal128()) {
            return value.asDecimal128().getValue().bigDecimalValue();
        }
        BsonNumber number = value.asNumber();
        return number.isDouble() ? BigDecimal.valueOf(number.doubleValue()) : BigDecimal.valueOf(number.longValue());
    }

    private static int compareOrderable(BsonValue current, BsonValue operand, String op, String field) {
        if (isNumeric(current) && isNumeric(operand)) {
            if (current.isDecimal128() || operand.isDecimal128()) {
                return decimal(current).compareTo(decimal(operand));
            }
            if (current.isDouble() || operand.isDouble()) {
                return Double.compare(
                        current.asNumber().doubleValue(), operand.asNumber().doubleValue());
            }
            return Long.compare(
                    current.asNumber().longValue(), operand.asNumber().longValue());
        }
        if (current.isString() && operand.isString()) {
            return IdOrder.compare(((BsonString) current).getValue(), ((BsonString) operand).getValue());
        }
        if (current.isDateTime() && operand.isDateTime()) {
            return Long.compare(
                    current.asDateTime().getValue(), operand.asDateTime().getValue());
        }
        throw mismatch("Merge cannot compare unlike types", field, op, current);
    }

    private static CatalogException mismatch(String message, String field, String op, BsonValue value) {
        return new CatalogException(ErrorCode.MERGE_TYPE_MISMATCH, message + " at field '" + field + "'")
                .with("field", field)
                .with("operator", op)
                .with("type", value.getBsonType());
    }
}
