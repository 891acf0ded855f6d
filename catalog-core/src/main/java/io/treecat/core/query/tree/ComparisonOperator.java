package io.treecat.core.query.tree;

/** The six comparison operators, with the symbol each is written as. */
public enum ComparisonOperator {
    EQ("="),
    NE("!="),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    ComparisonOperator(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** Whether the operator holds for two values whose comparison (as by {@code compareTo}) is {@code comparison}. */
    public boolean holds(int comparison) {
        return switch (this) {
            case EQ -> comparison == 0;
            case NE -> comparison != 0;
            case LT -> comparison < 0;
            case LE -> comparison <= 0;
            case GT -> comparison > 0;
            case GE -> comparison >= 0;
        };
    }

    /** The operator with its operands swapped: {@code a < b} is {@code b > a}. */
    public ComparisonOperator mirrored() {
        return switch (this) {
            case EQ, NE -> this;
            case LT -> GT;
            case LE -> GE;
            case GT -> LT;
            case GE -> LE;
        };
    }

    /** The operator written {@code symbol}, or null when there is none. */
    public static ComparisonOperator fromSymbol(String symbol) {
        for (ComparisonOperator operator : values()) {
            if (operator.symbol.equals(symbol)) {
                return operator;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return symbol;
    }
}
