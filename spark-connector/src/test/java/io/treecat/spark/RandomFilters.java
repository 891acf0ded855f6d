package io.treecat.spark;

import java.time.LocalDate;
import java.util.Random;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Random filters over the columns {@code id BIGINT, day DATE, kind STRING, amount DOUBLE}, each as Spark SQL
 * and as the Iceberg expression it means: comparisons, {@code IN}, {@code IS [NOT] NULL} and {@code LIKE 'x%'}
 * on every column, joined by {@code AND}, {@code OR} and {@code NOT} up to two levels deep.
 */
final class RandomFilters {
    /** One filter in both forms. */
    record Filter(String sql, Expression expression) {}

    static final LocalDate FIRST_DAY = LocalDate.of(2025, 1, 1);
    static final int DAYS = 8;
    static final int MAX_ID = 400;
    static final String KINDS = "abcde";

    private final Random random;

    RandomFilters(long seed) {
        this.random = new Random(seed);
    }

    Filter next() {
        return filter(2);
    }

    private Filter filter(int depth) {
        if (depth == 0 || random.nextInt(3) == 0) {
            return atom();
        }
        Filter left = filter(depth - 1);
        return switch (random.nextInt(3)) {
            case 0 -> {
                Filter right = filter(depth - 1);
                yield new Filter(
                        "(" + left.sql() + " AND " + right.sql() + ")",
                        Expressions.and(left.expression(), right.expression()));
            }
            case 1 -> {
                Filter right = filter(depth - 1);
                yield new Filter(
                        "(" + left.sql() + " OR " + right.sql() + ")",
                        Expressions.or(left.expression(), right.expression()));
            }
            default -> new Filter("(NOT " + left.sql() + ")", Expressions.not(left.expression()));
        };
    }

    private Filter atom() {
        return switch (random.nextInt(4)) {
            case 0 -> dayAtom();
            case 1 -> idAtom();
            case 2 -> kindAtom();
            default -> amountAtom();
        };
    }

    private String day() {
        return FIRST_DAY.plusDays(random.nextInt(DAYS)).toString();
    }

    private Filter dayAtom() {
        String day = day();
        String sql = "DATE '" + day + "'";
        return switch (random.nextInt(6)) {
            case 0 -> new Filter("day = " + sql, Expressions.equal("day", day));
            case 1 -> new Filter("day < " + sql, Expressions.lessThan("day", day));
            case 2 -> new Filter("day >= " + sql, Expressions.greaterThanOrEqual("day", day));
            case 3 -> new Filter("day <> " + sql, Expressions.notEqual("day", day));
            case 4 -> {
                String other = day();
                yield new Filter("day IN (" + sql + ", DATE '" + other + "')", Expressions.in("day", day, other));
            }
            default -> {
                String other = day();
                yield new Filter(
                        "day NOT IN (" + sql + ", DATE '" + other + "')", Expressions.notIn("day", day, other));
            }
        };
    }

    private Filter idAtom() {
        long id = 1 + random.nextInt(MAX_ID);
        return switch (random.nextInt(4)) {
            case 0 -> new Filter("id = " + id, Expressions.equal("id", id));
            case 1 -> new Filter("id < " + id, Expressions.lessThan("id", id));
            case 2 -> new Filter("id >= " + id, Expressions.greaterThanOrEqual("id", id));
            default -> {
                long other = 1 + random.nextInt(MAX_ID);
                yield new Filter("id IN (" + id + ", " + other + ")", Expressions.in("id", id, other));
            }
        };
    }

    private Filter kindAtom() {
        String kind = String.valueOf(KINDS.charAt(random.nextInt(KINDS.length())));
        return switch (random.nextInt(4)) {
            case 0 -> new Filter("kind = '" + kind + "'", Expressions.equal("kind", kind));
            case 1 -> new Filter("kind IS NULL", Expressions.isNull("kind"));
            case 2 -> new Filter("kind IS NOT NULL", Expressions.notNull("kind"));
            default -> new Filter("kind LIKE '" + kind + "%'", Expressions.startsWith("kind", kind));
        };
    }

    private Filter amountAtom() {
        double amount = random.nextInt(1000) / 10.0;
        return switch (random.nextInt(3)) {
            case 0 -> new Filter("amount > " + amount, Expressions.greaterThan("amount", amount));
            case 1 -> new Filter("amount <= " + amount, Expressions.lessThanOrEqual("amount", amount));
            default -> new Filter("amount IS NULL", Expressions.isNull("amount"));
        };
    }
}
