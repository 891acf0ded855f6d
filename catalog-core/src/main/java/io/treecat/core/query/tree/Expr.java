package io.treecat.core.query.tree;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A predicate over one object. {@link Predicates#test} gives the meaning; {@code toString} writes
 * query text that parses back to the same tree: {@code and}/{@code or} are always parenthesized so
 * nesting survives the round trip.
 */
public sealed interface Expr
        permits Expr.And, Expr.Or, Expr.Not, Expr.Comparison, Expr.InList, Expr.StringMatch, Expr.Exists {

    /** True when every child is; at least two children (the parser never makes a one-child and). */
    record And(List<Expr> children) implements Expr {
        public And {
            children = checkChildren(children, "and");
        }

        public static And of(Expr... children) {
            return new And(List.of(children));
        }

        @Override
        public String toString() {
            return join(children, " and ");
        }
    }

    /** True when some child is; at least two children. */
    record Or(List<Expr> children) implements Expr {
        public Or {
            children = checkChildren(children, "or");
        }

        public static Or of(Expr... children) {
            return new Or(List.of(children));
        }

        @Override
        public String toString() {
            return join(children, " or ");
        }
    }

    /** Plain boolean negation: {@code not (x = 1)} is true when {@code x} is missing. */
    record Not(Expr expr) implements Expr {
        public Not {
            requireNonNull(expr, "expr is null");
        }

        @Override
        public String toString() {
            return "not " + expr;
        }
    }

    /** {@code left op right}; false whenever the operands are missing or of unlike types. */
    record Comparison(Operand left, ComparisonOperator operator, Operand right) implements Expr {
        public Comparison {
            requireNonNull(left, "left is null");
            requireNonNull(operator, "operator is null");
            requireNonNull(right, "right is null");
        }

        @Override
        public String toString() {
            return left + " " + operator.symbol() + " " + right;
        }
    }

    /** {@code operand in (v1, v2, ...)}: equal to one of the values. */
    record InList(Operand operand, List<Literal> values) implements Expr {
        public InList {
            requireNonNull(operand, "operand is null");
            requireNonNull(values, "values is null");
            values = ImmutableList.copyOf(values);
            if (values.isEmpty()) {
                throw new IllegalArgumentException("an in list has at least one value");
            }
        }

        @Override
        public String toString() {
            return operand + " in (" + values.stream().map(Literal::toString).collect(Collectors.joining(", ")) + ")";
        }
    }

    /** {@code startswith(field, 'text')} or {@code endswith(field, 'text')}. */
    record StringMatch(Kind kind, FieldRef field, String text) implements Expr {
        public enum Kind {
            STARTS_WITH("startswith"),
            ENDS_WITH("endswith");

            private final String keyword;

            Kind(String keyword) {
                this.keyword = keyword;
            }

            public String keyword() {
                return keyword;
            }
        }

        public StringMatch {
            requireNonNull(kind, "kind is null");
            requireNonNull(field, "field is null");
            requireNonNull(text, "text is null");
        }

        @Override
        public String toString() {
            return kind.keyword() + "(" + field + ", " + QueryText.string(text) + ")";
        }
    }

    /** {@code exists(field)}: the field is present, even if its value is null. */
    record Exists(FieldRef field) implements Expr {
        public Exists {
            requireNonNull(field, "field is null");
        }

        @Override
        public String toString() {
            return "exists(" + field + ")";
        }
    }

    private static List<Expr> checkChildren(List<Expr> children, String operator) {
        requireNonNull(children, "children is null");
        List<Expr> copy = ImmutableList.copyOf(children);
        if (copy.size() < 2) {
            throw new IllegalArgumentException("'" + operator + "' has at least two children");
        }
        return copy;
    }

    private static String join(List<Expr> children, String separator) {
        return children.stream().map(Expr::toString).collect(Collectors.joining(separator, "(", ")"));
    }
}
