package io.treecat.core.query.plan;

import static java.util.Objects.requireNonNull;

import io.treecat.core.query.tree.ComparisonOperator;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonValue;

/**
 * Derives, from a step's predicate, the ids it can possibly accept, so the executor scans only those
 * key ranges instead of every child.
 *
 * <p>The result is sound: it contains every id for which {@code Predicates.test} can be true,
 * whatever the value. It is tight for single comparisons, {@code in} lists and {@code startswith} on
 * {@code obj_id}; anything it cannot bound (other fields, {@code not}, {@code endswith}) is {@link
 * IdRanges#ALL}, and the executor still evaluates the full predicate on every candidate.
 */
public final class IdBounds {
    private IdBounds() {}

    public static IdRanges of(Expr expr) {
        requireNonNull(expr, "expr is null");
        if (expr instanceof And and) {
            // Intersected in pairs, then pairs of pairs: each round is linear in the ranges, and there are
            // log(children) rounds. Folding left to right would intersect the growing result once per child,
            // quadratic in a long and of obj_id != ….
            List<IdRanges> parts = new ArrayList<>();
            for (Expr child : and.children()) {
                IdRanges bounds = of(child);
                if (bounds.isEmpty()) {
                    return bounds;
                }
                if (!bounds.isAll()) {
                    parts.add(bounds);
                }
            }
            if (parts.isEmpty()) {
                return IdRanges.ALL;
            }
            while (parts.size() > 1) {
                List<IdRanges> next = new ArrayList<>((parts.size() + 1) / 2);
                for (int i = 0; i + 1 < parts.size(); i += 2) {
                    next.add(parts.get(i).intersect(parts.get(i + 1)));
                }
                if (parts.size() % 2 == 1) {
                    next.add(parts.get(parts.size() - 1));
                }
                parts = next;
            }
            return parts.get(0);
        }
        if (expr instanceof Or or) {
            // One sort over every child's ranges: a union per child would sort the growing result once per
            // child, quadratic in a long or of ids.
            List<IdRange> ranges = new ArrayList<>();
            for (Expr child : or.children()) {
                IdRanges bounds = of(child);
                if (bounds.isAll()) {
                    return bounds;
                }
                ranges.addAll(bounds.ranges());
            }
            return IdRanges.of(ranges);
        }
        if (expr instanceof Comparison comparison) {
            return comparison(comparison);
        }
        if (expr instanceof InList in && isObjectId(in.operand())) {
            List<IdRange> points = new ArrayList<>();
            for (Literal literal : in.values()) {
                BsonValue value = literal.value();
                if (value.isString()) {
                    if (!isWellFormed(value.asString().getValue())) {
                        return IdRanges.ALL;
                    }
                    points.add(IdRange.point(value.asString().getValue()));
                }
            }
            return IdRanges.of(points);
        }
        if (expr instanceof StringMatch match
                && match.kind() == StringMatch.Kind.STARTS_WITH
                && match.field().isObjectId()
                && isWellFormed(match.text())) {
            return IdRanges.of(IdRange.prefix(match.text()));
        }
        // not, endswith, exists and predicates on other fields do not bound the id.
        return IdRanges.ALL;
    }

    private static IdRanges comparison(Comparison comparison) {
        Operand left = comparison.left();
        Operand right = comparison.right();
        ComparisonOperator operator = comparison.operator();
        if (isObjectId(right) && !isObjectId(left)) {
            Operand swapped = left;
            left = right;
            right = swapped;
            operator = operator.mirrored();
        }
        if (!isObjectId(left) || !(right instanceof Literal literal)) {
            return IdRanges.ALL;
        }
        BsonValue value = literal.value();
        if (!value.isString()) {
            // An id is a string, and a comparison across types is false for every operator.
            return IdRanges.NONE;
        }
        String id = value.asString().getValue();
        if (!isWellFormed(id)) {
            // Lone surrogates do not survive UTF-8, so their encoding does not order like the string.
            return IdRanges.ALL;
        }
        return switch (operator) {
            case EQ -> IdRanges.of(IdRange.point(id));
            case NE -> IdRanges.of(IdRange.lessThan(id), IdRange.greaterThan(id));
            case LT -> IdRanges.of(IdRange.lessThan(id));
            case LE -> IdRanges.of(IdRange.atMost(id));
            case GT -> IdRanges.of(IdRange.greaterThan(id));
            case GE -> IdRanges.of(IdRange.atLeast(id));
        };
    }

    private static boolean isObjectId(Operand operand) {
        return operand instanceof FieldRef field && field.isObjectId();
    }

    private static boolean isWellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
