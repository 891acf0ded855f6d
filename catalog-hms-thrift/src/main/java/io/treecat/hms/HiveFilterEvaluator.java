package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one evaluator of Hive's filter language ({@link HiveFilter} parses it), for partition filters
 * ({@link PartitionFilterPlanner}) and table filters ({@link HmsTableFilter}) alike. A {@link Row}
 * says what each key stands for in one partition or table, and of which {@link KeyType} it is.
 *
 * <p><b>Meaning</b>, Hive 4's (its metastore's direct SQL over the partition values):
 * <ul>
 *   <li>A {@link KeyType#STRING} key compares as text, by code point; {@code like} is SQL's LIKE
 *       ({@link LikePattern}, {@code %} and {@code _}, {@code \} escaping) on the whole value.</li>
 *   <li>A {@link KeyType#INTEGRAL} key compared with an integer compares numerically; a value that
 *       is no integer ({@code __HIVE_DEFAULT_PARTITION__}) is unknown, as Hive's cast gives NULL.
 *       {@code =} also wants the value written as the integer is ({@code yr = 9} does not match
 *       {@code 09}): Hive adds a partition-name condition {@code yr=9} to it.</li>
 *   <li>A {@link KeyType#DATE} key compared with a date compares as dates; a value that is no date is
 *       unknown.</li>
 *   <li>A literal {@code '__HIVE_DEFAULT_PARTITION__'} compares as text with a key of any type.</li>
 *   <li>Other combinations (an integral key with a string, a string key with an integer, {@code like}
 *       on an integral or date key) are refused before evaluation, as Hive refuses them
 *       ({@link PartitionFilterPlanner}); met here anyway, they compare as text.</li>
 *   <li>{@code in} is an {@code or} of {@code =}, {@code not in} an {@code and} of {@code !=};
 *       {@code between} is {@code >= and <=}, {@code not between} is {@code < or >}.</li>
 *   <li>Three-valued logic, SQL's: {@code and} and {@code or} propagate unknown; a row matches only
 *       if the filter is true. (Hive's grammar has no prefix {@code not}, so unknown and false select
 *       the same rows.)</li>
 *   <li>A key the row has no value for (a table parameter the table lacks) compares as Java's null
 *       does in Hive's JDO query: {@code <>} is true, every other comparison false.</li>
 * </ul>
 *
 * <p>{@code like} patterns are compiled once per filter, in the {@link LikePattern.Syntax} the caller
 * names (table filters use the JDOQL spelling, see {@link HmsTableFilter}).
 */
final class HiveFilterEvaluator {
    /** How a key's values compare with literals. */
    enum KeyType {
        STRING,
        INTEGRAL,
        DATE
    }

    /** What the keys of a filter stand for in one row. */
    interface Row {
        /** The key's value as text; null when the row has none. */
        String value(String key);

        /** How the key's values compare. */
        KeyType type(String key);
    }

    static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd", Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);

    private final HiveFilter.Node filter;
    private final Map<String, LikePattern> patterns = new HashMap<>();

    HiveFilterEvaluator(HiveFilter.Node filter, LikePattern.Syntax syntax) {
        this.filter = requireNonNull(filter, "filter is null");
        requireNonNull(syntax, "syntax is null");
        try {
            HiveFilter.forEachCondition(filter, (key, operator, value) -> {
                if (operator == HiveFilter.Operator.LIKE) {
                    patterns.computeIfAbsent(value.text(), text -> LikePattern.compile(text, syntax));
                }
            });
        } catch (org.apache.hadoop.hive.metastore.api.MetaException e) {
            throw new IllegalStateException(e); // the check above throws nothing
        }
    }

    /** Whether {@code row} matches (the filter is true, not false or unknown). */
    boolean matches(Row row) {
        return Boolean.TRUE.equals(evaluate(row));
    }

    /** Three-valued: null is SQL's unknown. */
    Boolean evaluate(Row row) {
        return evaluate(filter, row);
    }

    private Boolean evaluate(HiveFilter.Node node, Row row) {
        if (node instanceof HiveFilter.All) {
            return true;
        }
        // A chain of and (or) is one node: a loop, short-circuiting left to right as the binary chain did;
        // recursion is only per level of alternation, which the parser bounds.
        if (node instanceof HiveFilter.And and) {
            Boolean result = true;
            for (HiveFilter.Node child : and.children()) {
                Boolean one = evaluate(child, row);
                if (Boolean.FALSE.equals(one)) {
                    return false;
                }
                if (one == null) {
                    result = null;
                }
            }
            return result;
        }
        if (node instanceof HiveFilter.Or or) {
            Boolean result = false;
            for (HiveFilter.Node child : or.children()) {
                Boolean one = evaluate(child, row);
                if (Boolean.TRUE.equals(one)) {
                    return true;
                }
                if (one == null) {
                    result = null;
                }
            }
            return result;
        }
        if (node instanceof HiveFilter.Compare compare) {
            return compare(row, compare.key(), compare.operator(), compare.value());
        }
        if (node instanceof HiveFilter.In in) {
            Boolean result = in.negated();
            for (HiveFilter.Literal value : in.values()) {
                Boolean one = compare(
                        row,
                        in.key(),
                        in.negated() ? HiveFilter.Operator.NOT_EQUALS : HiveFilter.Operator.EQUALS,
                        value);
                result = in.negated() ? and(result, () -> one) : or(result, () -> one);
            }
            return result;
        }
        if (node instanceof HiveFilter.Between between) {
            if (between.negated()) {
                return or(
                        compare(row, between.key(), HiveFilter.Operator.LESS, between.low()),
                        () -> compare(row, between.key(), HiveFilter.Operator.GREATER, between.high()));
            }
            return and(
                    compare(row, between.key(), HiveFilter.Operator.GREATER_OR_EQUAL, between.low()),
                    () -> compare(row, between.key(), HiveFilter.Operator.LESS_OR_EQUAL, between.high()));
        }
        throw new IllegalStateException("unknown filter node " + node);
    }

    private static Boolean and(Boolean left, java.util.function.Supplier<Boolean> right) {
        if (Boolean.FALSE.equals(left)) {
            return false;
        }
        Boolean other = right.get();
        if (Boolean.FALSE.equals(other)) {
            return false;
        }
        return left == null || other == null ? null : Boolean.TRUE;
    }

    private static Boolean or(Boolean left, java.util.function.Supplier<Boolean> right) {
        if (Boolean.TRUE.equals(left)) {
            return true;
        }
        Boolean other = right.get();
        if (Boolean.TRUE.equals(other)) {
            return true;
        }
        return left == null || other == null ? null : Boolean.FALSE;
    }

    private Boolean compare(Row row, String key, HiveFilter.Operator operator, HiveFilter.Literal literal) {
        String value = row.value(key);
        if (value == null) {
            return operator == HiveFilter.Operator.NOT_EQUALS;
        }
        KeyType type = row.type(key);
        if (operator == HiveFilter.Operator.LIKE) {
            return patterns.get(literal.text()).matches(value);
        }
        int order;
        if (type == KeyType.INTEGRAL && literal.integer()) {
            Long actual = parseLong(value);
            if (actual == null) {
                return null;
            }
            order = Long.compare(actual, literal.number());
            if (operator == HiveFilter.Operator.EQUALS) {
                return order == 0 && value.equals(literal.text());
            }
        } else if (type == KeyType.DATE && !literal.integer() && parseDate(literal.text()) != null) {
            LocalDate actual = parseDate(value);
            if (actual == null) {
                return null;
            }
            order = actual.compareTo(parseDate(literal.text()));
        } else {
            order = compareCodePoints(value, literal.text());
        }
        return switch (operator) {
            case EQUALS -> order == 0;
            case NOT_EQUALS -> order != 0;
            case LESS -> order < 0;
            case LESS_OR_EQUAL -> order <= 0;
            case GREATER -> order > 0;
            case GREATER_OR_EQUAL -> order >= 0;
            case LIKE -> throw new IllegalStateException("like is handled above");
        };
    }

    /** An integer as a partition value holds one (surrounding blanks allowed); null if it is none. */
    static Long parseLong(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A date {@code yyyy-mm-dd}; null if the text is none. */
    static LocalDate parseDate(String text) {
        try {
            return LocalDate.parse(text.trim(), DATE);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Code point order, the tree's order of strings (String.compareTo orders UTF-16 units). */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
