package io.treecat.core.query.tree;

import static java.util.Objects.requireNonNull;

/**
 * One step of a query. {@link #position} is the 1-based character offset of the {@code /} that
 * starts the step in the query text, so the executor and explain can point back at it.
 */
public sealed interface Step permits Step.Wildcard, Step.Filter {
    int position();

    /** {@code *}: every child matches. */
    record Wildcard(int position) implements Step {
        public Wildcard {
            checkPosition(position);
        }

        @Override
        public String toString() {
            return "*";
        }
    }

    /** {@code [expr]}: the children for which the predicate is true. */
    record Filter(Expr expr, int position) implements Step {
        public Filter {
            requireNonNull(expr, "expr is null");
            checkPosition(position);
        }

        @Override
        public String toString() {
            return "[" + expr + "]";
        }
    }

    private static void checkPosition(int position) {
        if (position < 1) {
            throw new IllegalArgumentException("position is 1-based: " + position);
        }
    }
}
