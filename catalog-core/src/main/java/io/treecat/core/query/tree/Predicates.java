package io.treecat.core.query.tree;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.IdOrder;
import io.treecat.core.model.RawBson;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.Exists;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Not;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import java.math.BigDecimal;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The meaning of a predicate, as docs/query-language.md states it. Evaluation never fails: a
 * comparison that cannot be decided (missing field, unlike types, NaN) is false, for every operator
 * including {@code !=}.
 *
 * <p>The object's value is read lazily, at most once per {@link #test}, and only when evaluation
 * reaches a field other than {@code obj_id}; a predicate on ids alone never reads a value.
 */
public final class Predicates {
    private Predicates() {}

    public static boolean test(Expr expr, EvaluationTarget target) {
        requireNonNull(expr, "expr is null");
        requireNonNull(target, "target is null");
        return new Evaluation(target).test(expr);
    }

    /** Whether the predicate refers to a field other than {@code obj_id}, so testing it may read the value. */
    public static boolean needsValue(Expr expr) {
        if (expr instanceof And and) {
            return anyNeedsValue(and.children());
        }
        if (expr instanceof Or or) {
            return anyNeedsValue(or.children());
        }
        if (expr instanceof Not not) {
            return needsValue(not.expr());
        }
        if (expr instanceof Comparison comparison) {
            return needsValue(comparison.left()) || needsValue(comparison.right());
        }
        if (expr instanceof InList in) {
            return needsValue(in.operand());
        }
        if (expr instanceof StringMatch match) {
            return !match.field().isObjectId();
        }
        if (expr instanceof Exists exists) {
            return !exists.field().isObjectId();
        }
        throw new IllegalArgumentException("unknown expression " + expr.getClass());
    }

    private static boolean anyNeedsValue(List<Expr> children) {
        for (Expr child : children) {
            if (needsValue(child)) {
                return true;
            }
        }
        return false;
    }

    private static boolean needsValue(Operand operand) {
        return operand instanceof FieldRef field && !field.isObjectId();
    }

    /**
     * Compares two present values under the query rules; false when they are not comparable.
     * Exposed so the executor and tests can apply exactly the same rules.
     */
    public static boolean compare(BsonValue left, ComparisonOperator operator, BsonValue right) {
        if (left == null || right == null) {
            return false;
        }
        if (isNumber(left) && isNumber(right)) {
            Integer comparison = compareNumbers(left, right);
            return comparison != null && operator.holds(comparison);
        }
        BsonType type = left.getBsonType();
        if (type != right.getBsonType()) {
            return false;
        }
        switch (type) {
            case STRING:
                return operator.holds(IdOrder.compare(
                        left.asString().getValue(), right.asString().getValue()));
            case BOOLEAN:
                return operator.holds(Boolean.compare(
                        left.asBoolean().getValue(), right.asBoolean().getValue()));
            case DATE_TIME:
                return operator.holds(Long.compare(
                        left.asDateTime().getValue(), right.asDateTime().getValue()));
            default:
                // null, documents, arrays, object ids, binary and the rest: equality only.
                if (operator == ComparisonOperator.EQ) {
                    return left.equals(right);
                }
                if (operator == ComparisonOperator.NE) {
                    return !left.equals(right);
                }
                return false;
        }
    }

    private static boolean isNumber(BsonValue value) {
        BsonType type = value.getBsonType();
        return type == BsonType.INT32
                || type == BsonType.INT64
                || type == BsonType.DOUBLE
                || type == BsonType.DECIMAL128;
    }

    private static boolean isIntegral(BsonValue value) {
        return value.getBsonType() == BsonType.INT32 || value.getBsonType() == BsonType.INT64;
    }

    /** The numeric order of two numbers of any numeric types, or null when either is NaN. */
    private static Integer compareNumbers(BsonValue left, BsonValue right) {
        if (isIntegral(left) && isIntegral(right)) {
            return Long.compare(left.asNumber().longValue(), right.asNumber().longValue());
        }
        if (left.isDouble() && right.isDouble()) {
            double a = left.asDouble().getValue();
            double b = right.asDouble().getValue();
            if (Double.isNaN(a) || Double.isNaN(b)) {
                return null;
            }
            // Not Double.compare: that orders -0.0 below 0.0, which are numerically equal.
            return a < b ? -1 : (a > b ? 1 : 0);
        }
        Integer leftInfinity = infinity(left);
        Integer rightInfinity = infinity(right);
        if (leftInfinity == null || rightInfinity == null) {
            return null;
        }
        if (leftInfinity != 0 || rightInfinity != 0) {
            return Integer.compare(leftInfinity, rightInfinity);
        }
        return exact(left).compareTo(exact(right));
    }

    /** -1 for negative infinity, 1 for positive infinity, 0 for a finite number, null for NaN. */
    private static Integer infinity(BsonValue number) {
        if (number.isDouble()) {
            double value = number.asDouble().getValue();
            if (Double.isNaN(value)) {
                return null;
            }
            return Double.isInfinite(value) ? (value > 0 ? 1 : -1) : 0;
        }
        if (number.isDecimal128()) {
            Decimal128 value = number.asDecimal128().getValue();
            if (value.isNaN()) {
                return null;
            }
            return value.isInfinite() ? (value.isNegative() ? -1 : 1) : 0;
        }
        return 0;
    }

    private static BigDecimal exact(BsonValue number) {
        switch (number.getBsonType()) {
            case INT32:
                return BigDecimal.valueOf(number.asInt32().getValue());
            case INT64:
                return BigDecimal.valueOf(number.asInt64().getValue());
            case DOUBLE:
                return new BigDecimal(number.asDouble().getValue());
            case DECIMAL128:
                Decimal128 value = number.asDecimal128().getValue();
                try {
                    return value.bigDecimalValue();
                } catch (ArithmeticException negativeZero) {
                    // BigDecimal has no negative zero; numerically it is zero.
                    return BigDecimal.ZERO;
                }
            default:
                throw new IllegalArgumentException("not a number: " + number.getBsonType());
        }
    }

    /** What {@link RawBson#find} answers when the BSON library must look the field up instead. */
    private static final BsonValue NOT_RAW = new BsonString("not found by the raw walker");

    /** One test of one predicate: holds the lazily read value so it is read at most once. */
    private static final class Evaluation {
        private final EvaluationTarget target;
        private BsonDocument value;
        private boolean valueRead;
        /** The field resolved last, and its value: a range names its field twice ({@code x >= a and x <= b}). */
        private FieldRef lastField;

        private BsonValue lastValue;

        Evaluation(EvaluationTarget target) {
            this.target = target;
        }

        boolean test(Expr expr) {
            if (expr instanceof And and) {
                for (Expr child : and.children()) {
                    if (!test(child)) {
                        return false;
                    }
                }
                return true;
            }
            if (expr instanceof Or or) {
                for (Expr child : or.children()) {
                    if (test(child)) {
                        return true;
                    }
                }
                return false;
            }
            if (expr instanceof Not not) {
                return !test(not.expr());
            }
            if (expr instanceof Comparison comparison) {
                BsonValue left = resolve(comparison.left());
                if (left == null) {
                    return false;
                }
                return compare(left, comparison.operator(), resolve(comparison.right()));
            }
            if (expr instanceof InList in) {
                BsonValue operand = resolve(in.operand());
                if (operand == null) {
                    return false;
                }
                for (Literal literal : in.values()) {
                    if (compare(operand, ComparisonOperator.EQ, literal.value())) {
                        return true;
                    }
                }
                return false;
            }
            if (expr instanceof StringMatch match) {
                BsonValue field = resolve(match.field());
                if (field == null || !field.isString()) {
                    return false;
                }
                String text = field.asString().getValue();
                return match.kind() == StringMatch.Kind.STARTS_WITH
                        ? text.startsWith(match.text())
                        : text.endsWith(match.text());
            }
            if (expr instanceof Exists exists) {
                return resolve(exists.field()) != null;
            }
            throw new IllegalArgumentException("unknown expression " + expr.getClass());
        }

        /** The operand's value, or null when the field is missing. */
        private BsonValue resolve(Operand operand) {
            if (operand instanceof Literal literal) {
                return literal.value();
            }
            FieldRef field = (FieldRef) operand;
            if (field.isObjectId()) {
                return new BsonString(target.id());
            }
            if (field.equals(lastField)) {
                return lastValue;
            }
            BsonValue found = lookUp(field);
            lastField = field;
            lastValue = found;
            return found;
        }

        private BsonValue lookUp(FieldRef field) {
            BsonValue raw = RawBson.find(value(), field.names(), NOT_RAW);
            if (raw != NOT_RAW) {
                return raw;
            }
            BsonValue current = value();
            for (String name : field.names()) {
                if (!(current instanceof BsonDocument document)) {
                    return null;
                }
                current = document.get(name);
                if (current == null) {
                    return null;
                }
            }
            return current;
        }

        private BsonDocument value() {
            if (!valueRead) {
                value = target.value();
                valueRead = true;
                if (value == null) {
                    value = new BsonDocument();
                }
            }
            return value;
        }
    }
}
