package io.treecat.lakehouse.iceberg;

import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.NamedReference;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.bson.BsonValue;

/**
 * Translates Iceberg's inclusive projection of a scan filter onto a partition spec (an expression
 * over partition fields) into a TreeCat path-query predicate on a partition node's {@code part_val}.
 *
 * <p>The translation only ever widens: the tree predicate is true for every partition Iceberg's
 * {@code Evaluator} could accept, so pruning by it never loses a file; the exact check runs on the
 * files afterwards. Where the two semantics could differ the part becomes "anything" ({@code
 * null}): floating point and decimal values (NaN), binary values, string ranges against literals
 * with characters from U+D800 up (Iceberg compares UTF-16 units, the tree code points), and every
 * operator other than comparisons, {@code in} and the null tests. A comparison also accepts a null
 * partition value, whatever Iceberg's comparator makes of it.
 */
final class PartitionPredicates {
    /** A predicate no partition satisfies. */
    static final String FALSE = "1 = 0";

    private PartitionPredicates() {}

    /** The predicate, or null when it cannot narrow anything (every partition may match). */
    static String translate(Expression expression, PartitionSpec spec) {
        return translate(expression, spec, Integer.MAX_VALUE);
    }

    /**
     * The predicate, nesting at most {@code depth} levels of parentheses, or null when it cannot narrow
     * anything. Iceberg's {@code and} and {@code or} are binary, so a chain of 100 {@code or}s nests 100
     * deep: past the depth a part narrows nothing (null), which keeps the query one the path query
     * parser takes (its {@code query.max-depth}) and still a superset, checked exactly after.
     */
    static String translate(Expression expression, PartitionSpec spec, int depth) {
        if (depth < 1) {
            return null; // a comparison is itself one level: (field op value or field = null)
        }
        switch (expression.op()) {
            case TRUE:
                return null;
            case FALSE:
                return FALSE;
            case AND: {
                And and = (And) expression;
                String left = translate(and.left(), spec, depth - 1);
                String right = translate(and.right(), spec, depth - 1);
                if (FALSE.equals(left) || FALSE.equals(right)) {
                    return FALSE;
                }
                if (left == null) {
                    return right;
                }
                return right == null ? left : "(" + left + " and " + right + ")";
            }
            case OR: {
                Or or = (Or) expression;
                String left = translate(or.left(), spec, depth - 1);
                String right = translate(or.right(), spec, depth - 1);
                if (left == null || right == null) {
                    return null;
                }
                if (FALSE.equals(left)) {
                    return right;
                }
                return FALSE.equals(right) ? left : "(" + left + " or " + right + ")";
            }
            default:
                return expression instanceof UnboundPredicate<?> predicate ? predicate(predicate, spec) : null;
        }
    }

    private static String predicate(UnboundPredicate<?> predicate, PartitionSpec spec) {
        if (!(predicate.term() instanceof NamedReference<?> reference)) {
            return null;
        }
        Types.NestedField field = spec.partitionType().field(reference.name());
        if (field == null) {
            return null;
        }
        String name = LakeKeys.PART_VAL + "." + quoteName(field.name());
        Type type = field.type();
        switch (predicate.op()) {
            case IS_NULL:
                return name + " = null";
            case NOT_NULL:
                return "not " + name + " = null";
            case LT, LT_EQ, GT, GT_EQ, EQ: {
                String literal = literal(
                        type,
                        predicate.literal(),
                        predicate.op() != org.apache.iceberg.expressions.Expression.Operation.EQ);
                if (literal == null) {
                    return null;
                }
                return "(" + name + " " + operator(predicate.op()) + " " + literal + " or " + name + " = null)";
            }
            case IN: {
                List<String> literals = new ArrayList<>();
                for (Literal<?> value : predicate.literals()) {
                    String literal = literal(type, value, false);
                    if (literal == null) {
                        return null;
                    }
                    literals.add(literal);
                }
                return "(" + name + " in (" + String.join(", ", literals) + ") or " + name + " = null)";
            }
            default:
                return null;
        }
    }

    /**
     * Bounds on partition node ids, from an {@code =} or {@code in} on the spec's first partition
     * field at the top level of the projection: the ids of partitions with those values (and a null
     * value) are exactly known ({@link FileLeaves#partitionId}), so the tree seeks to them instead of
     * reading every partition node. Null when there is no such conjunct.
     */
    static String idConstraint(Expression expression, PartitionSpec spec) {
        if (spec.isUnpartitioned()) {
            return null;
        }
        if (expression.op() == Expression.Operation.AND) {
            And and = (And) expression;
            String left = idConstraint(and.left(), spec);
            return left != null ? left : idConstraint(and.right(), spec);
        }
        if (!(expression instanceof UnboundPredicate<?> predicate)
                || !(predicate.term() instanceof NamedReference<?> reference)) {
            return null;
        }
        org.apache.iceberg.PartitionField first = spec.fields().get(0);
        if (!first.name().equals(reference.name())) {
            return null;
        }
        List<Literal<?>> values = switch (predicate.op()) {
            case EQ -> List.of(predicate.literal());
            case IN -> List.copyOf(predicate.literals());
            default -> null;
        };
        if (values == null) {
            return null;
        }
        Type type = spec.partitionType().fields().get(0).type();
        boolean single = spec.fields().size() == 1;
        String prefix = spec.specId() + ":" + first.name();
        List<String> forms = new ArrayList<>();
        forms.add(idForm(prefix, single));
        for (Literal<?> value : values) {
            Literal<?> converted = value.to(type);
            if (converted == null) {
                return null;
            }
            @SuppressWarnings("unchecked")
            String human = ((org.apache.iceberg.transforms.Transform<Object, Object>) first.transform())
                    .toHumanString(type, converted.value());
            forms.add(idForm(
                    prefix + "=" + java.net.URLEncoder.encode(human, java.nio.charset.StandardCharsets.UTF_8), single));
        }
        return "(" + String.join(" or ", forms) + ")";
    }

    private static String idForm(String id, boolean single) {
        return single ? "obj_id = " + PathSteps.literal(id) : "startswith(obj_id, " + PathSteps.literal(id + "/") + ")";
    }

    private static String operator(Expression.Operation op) {
        return switch (op) {
            case LT -> "<";
            case LT_EQ -> "<=";
            case GT -> ">";
            case GT_EQ -> ">=";
            case EQ -> "=";
            default -> throw new IllegalArgumentException("Not a comparison: " + op);
        };
    }

    /** The literal in query syntax, converted to the partition field's type as Iceberg does; null if not translatable. */
    private static String literal(Type type, Literal<?> literal, boolean ordered) {
        Literal<?> converted = literal.to(type);
        if (converted == null) {
            return null;
        }
        BsonValue value;
        switch (type.typeId()) {
            case BOOLEAN, INTEGER, DATE, LONG, TIME, TIMESTAMP, TIMESTAMP_NANO, STRING:
                value = FileLeaves.toBson(type, converted.value());
                break;
            default:
                return null;
        }
        if (value.isString()) {
            String text = value.asString().getValue();
            if (ordered && text.chars().anyMatch(c -> c >= 0xD800)) {
                return null;
            }
            return "'"
                    + text.replace("\\", "\\\\")
                            .replace("'", "\\'")
                            .replace("\n", "\\n")
                            .replace("\t", "\\t") + "'";
        }
        if (value.isBoolean()) {
            return Boolean.toString(value.asBoolean().getValue());
        }
        if (value.isInt32()) {
            return Integer.toString(value.asInt32().getValue());
        }
        if (value.isInt64()) {
            return Long.toString(value.asInt64().getValue());
        }
        return null;
    }

    private static String quoteName(String name) {
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }
}
