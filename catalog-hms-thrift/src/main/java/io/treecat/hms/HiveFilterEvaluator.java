package io.treecat.hms;

/**
 * The one evaluator of Hive's filter language ({@link HiveFilter} parses it), for partition filters
 * ({@link PartitionFilterPlanner}) and table filters ({@link HmsTableFilter}) alike. A {@link Row}
 * says what each key stands for in one partition or table.
 *
 * <p><b>Meaning</b> (Hive's, as its metastore evaluates filters):
 * <ul>
 *   <li>Three-valued logic, SQL's: a comparison may be unknown, and {@code not}, {@code and},
 *       {@code or}, {@code in} and {@code between} propagate it; a row matches only if the filter is
 *       true.</li>
 *   <li>A key the row says is integral ({@link Row#integral}), compared with an integer literal (or
 *       a string that is one), compares numerically; a value that is not an integer
 *       ({@code __HIVE_DEFAULT_PARTITION__}) is unknown for that comparison, as Hive's cast to a
 *       number gives NULL.</li>
 *   <li>Every other comparison compares strings by code point; an integer literal compares as its text.</li>
 *   <li>{@code like} is Java regular-expression matching of the whole value (Hive's JDO filter uses
 *       {@code String.matches}; Spark sends {@code like ".*x.*"}).</li>
 *   <li>A key the row has no value for (a table parameter it lacks) compares as Java's null does in
 *       Hive's JDO query: {@code <>} is true, every other comparison false.</li>
 * </ul>
 */
final class HiveFilterEvaluator {
  private HiveFilterEvaluator() {}

  /** What the keys of a filter stand for in one row. */
  interface Row {
    /** The key's value as text; null when the row has none. */
    String value(String key);

    /** Whether comparisons of the key with integer literals are numeric. */
    boolean integral(String key);
  }

  /** Whether {@code row} matches {@code filter} (the filter is true, not false or unknown). */
  static boolean matches(HiveFilter.Node filter, Row row) {
    return Boolean.TRUE.equals(evaluate(filter, row));
  }

  /** Three-valued: null is SQL's unknown. */
  static Boolean evaluate(HiveFilter.Node node, Row row) {
    if (node instanceof HiveFilter.All) {
      return true;
    }
    if (node instanceof HiveFilter.And and) {
      Boolean left = evaluate(and.left(), row);
      if (Boolean.FALSE.equals(left)) {
        return false;
      }
      Boolean right = evaluate(and.right(), row);
      if (Boolean.FALSE.equals(right)) {
        return false;
      }
      return left == null || right == null ? null : true;
    }
    if (node instanceof HiveFilter.Or or) {
      Boolean left = evaluate(or.left(), row);
      if (Boolean.TRUE.equals(left)) {
        return true;
      }
      Boolean right = evaluate(or.right(), row);
      if (Boolean.TRUE.equals(right)) {
        return true;
      }
      return left == null || right == null ? null : false;
    }
    if (node instanceof HiveFilter.Not not) {
      Boolean operand = evaluate(not.operand(), row);
      return operand == null ? null : Boolean.valueOf(!operand);
    }
    if (node instanceof HiveFilter.Compare compare) {
      return compare(row, compare.key(), compare.operator(), compare.value());
    }
    if (node instanceof HiveFilter.In in) {
      Boolean any = false;
      for (HiveFilter.Literal value : in.values()) {
        Boolean equal = compare(row, in.key(), HiveFilter.Operator.EQUALS, value);
        if (Boolean.TRUE.equals(equal)) {
          any = true;
          break;
        }
        if (equal == null) {
          any = null;
        }
      }
      return in.negated() && any != null ? Boolean.valueOf(!any) : any;
    }
    if (node instanceof HiveFilter.Between between) {
      Boolean low = compare(row, between.key(), HiveFilter.Operator.GREATER_OR_EQUAL, between.low());
      Boolean high = compare(row, between.key(), HiveFilter.Operator.LESS_OR_EQUAL, between.high());
      Boolean inside = Boolean.FALSE.equals(low) || Boolean.FALSE.equals(high) ? Boolean.FALSE : low == null || high == null ? null : Boolean.TRUE;
      return between.negated() && inside != null ? Boolean.valueOf(!inside) : inside;
    }
    throw new IllegalStateException("unknown filter node " + node);
  }

  private static Boolean compare(Row row, String key, HiveFilter.Operator operator, HiveFilter.Literal literal) {
    String value = row.value(key);
    if (value == null) {
      return operator == HiveFilter.Operator.NOT_EQUALS;
    }
    if (operator == HiveFilter.Operator.LIKE) {
      return value.matches(literal.text());
    }
    int order;
    Long number = row.integral(key) ? parseLong(literal.text()) : null;
    if (number != null) {
      Long actual = parseLong(value);
      if (actual == null) {
        return null;
      }
      order = Long.compare(actual, number);
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

  /** An integer as Hive's filter reads one (surrounding blanks allowed); null if it is none. */
  static Long parseLong(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
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
