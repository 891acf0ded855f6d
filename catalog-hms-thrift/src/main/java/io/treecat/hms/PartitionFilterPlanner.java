package io.treecat.hms;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * A {@link HiveFilter} bound to a table's partition keys: a path query predicate per partition level
 * (pushed down to the tree) and an exact evaluation in Java of what the tree returned.
 *
 * <p><b>Meaning</b> (Hive's, as its metastore evaluates filters with direct SQL):
 * <ul>
 *   <li>A key of an integral type ({@code tinyint smallint int integer bigint}) compared with an
 *       integer (or a string that is an integer) compares numerically; a partition whose value is not
 *       an integer ({@code __HIVE_DEFAULT_PARTITION__}) is unknown for that comparison, so neither it
 *       nor its negation matches (SQL's three-valued logic, as Hive's cast to a number gives NULL).
 *   <li>Every other comparison compares strings by code point ({@code date} keys' ISO dates order
 *       correctly); an integer literal compares as its text.
 *   <li>{@code like} is Java regular-expression matching of the whole value (Hive's JDO filter uses
 *       {@code String.matches}; Spark sends {@code like ".*x.*"}).
 * </ul>
 *
 * <p><b>Pushdown.</b> For each level {@code i} the planner derives a predicate that every partition the
 * filter accepts satisfies at level {@code i} (a superset): {@code k = 'v'} becomes {@code obj_id =
 * 'k=v'} (a bounded seek), {@code k in (...)} an {@code obj_id in (...)}, other string comparisons
 * {@code part_val op 'v'}, numeric ones {@code part_num op n}; {@code and} intersects, {@code or}
 * unites per level, and {@code not}, {@code like}, {@code not in}, {@code not between} push nothing.
 * The Java evaluation then runs on every row the query returns, so a filter the tree cannot express
 * exactly still gets the exact answer.
 */
final class PartitionFilterPlanner {
  static final String PART_VAL = "part_val";
  static final String PART_NUM = "part_num";
  static final String PARTITION = "partition";

  private static final Set<String> INTEGRAL = Set.of("tinyint", "smallint", "int", "integer", "bigint");

  private final HiveFilter.Node filter;
  private final List<String> keys;
  private final List<Boolean> integral;

  private PartitionFilterPlanner(HiveFilter.Node filter, List<String> keys, List<Boolean> integral) {
    this.filter = filter;
    this.keys = keys;
    this.integral = integral;
  }

  static boolean isIntegral(FieldSchema key) {
    return key.getType() != null && INTEGRAL.contains(key.getType().toLowerCase(Locale.ROOT).trim());
  }

  /** Binds {@code filter} to {@code partitionKeys}; a key the table does not have is an error. */
  static PartitionFilterPlanner plan(HiveFilter.Node filter, List<FieldSchema> partitionKeys) throws MetaException {
    List<String> keys = new ArrayList<>();
    List<Boolean> integral = new ArrayList<>();
    for (FieldSchema key : partitionKeys) {
      keys.add(key.getName().toLowerCase(Locale.ROOT));
      integral.add(isIntegral(key));
    }
    PartitionFilterPlanner planner = new PartitionFilterPlanner(filter, keys, integral);
    HiveFilter.validate(filter, "partition filter", planner::level);
    return planner;
  }

  private int level(String key) throws MetaException {
    int level = levelOf(key);
    if (level < 0) {
      throw new MetaException("Error parsing partition filter: '" + key + "' is not a partition key of the table (its keys are " + keys + ")");
    }
    return level;
  }

  private int levelOf(String key) {
    return keys.indexOf(key.toLowerCase(Locale.ROOT));
  }

  // ---- pushdown

  /** One predicate per level, in the path query language; never empty. */
  List<String> levelPredicates() {
    List<String> predicates = new ArrayList<>();
    for (int level = 0; level < keys.size(); level++) {
      String pushed = push(filter, level);
      predicates.add(pushed == null ? "obj_type = '" + PARTITION + "'" : "obj_type = '" + PARTITION + "' and (" + pushed + ")");
    }
    return predicates;
  }

  /** A predicate on level {@code level} implied by {@code node}, or null (nothing to push). */
  private String push(HiveFilter.Node node, int level) {
    if (node instanceof HiveFilter.And and) {
      String left = push(and.left(), level);
      String right = push(and.right(), level);
      return left == null ? right : right == null ? left : "(" + left + ") and (" + right + ")";
    }
    if (node instanceof HiveFilter.Or or) {
      String left = push(or.left(), level);
      String right = push(or.right(), level);
      return left == null || right == null ? null : "(" + left + ") or (" + right + ")";
    }
    if (node instanceof HiveFilter.Compare compare && levelOf(compare.key()) == level) {
      if (compare.operator() == HiveFilter.Operator.LIKE) {
        return null;
      }
      if (numeric(level, compare.value())) {
        return PART_NUM + " " + compare.operator().symbol() + " " + Long.parseLong(compare.value().text().trim());
      }
      if (compare.operator() == HiveFilter.Operator.EQUALS) {
        return "obj_id = " + quote(HivePartitionNames.component(keys.get(level), compare.value().text()));
      }
      return PART_VAL + " " + compare.operator().symbol() + " " + quote(compare.value().text());
    }
    if (node instanceof HiveFilter.In in && levelOf(in.key()) == level && !in.negated()) {
      List<String> items = new ArrayList<>();
      boolean allNumeric = in.values().stream().allMatch(value -> numeric(level, value));
      boolean noneNumeric = in.values().stream().noneMatch(value -> numeric(level, value));
      if (!allNumeric && !noneNumeric) {
        return null;
      }
      for (HiveFilter.Literal value : in.values()) {
        items.add(allNumeric ? Long.toString(Long.parseLong(value.text().trim())) : quote(HivePartitionNames.component(keys.get(level), value.text())));
      }
      return (allNumeric ? PART_NUM : "obj_id") + " in (" + String.join(", ", items) + ")";
    }
    if (node instanceof HiveFilter.Between between && levelOf(between.key()) == level && !between.negated()) {
      String low = push(new HiveFilter.Compare(between.key(), HiveFilter.Operator.GREATER_OR_EQUAL, between.low()), level);
      String high = push(new HiveFilter.Compare(between.key(), HiveFilter.Operator.LESS_OR_EQUAL, between.high()), level);
      return "(" + low + ") and (" + high + ")";
    }
    return null;
  }

  static String quote(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** Whether a comparison of {@code level} with {@code value} is numeric. */
  private boolean numeric(int level, HiveFilter.Literal value) {
    return integral.get(level) && parseLong(value.text()) != null;
  }

  static Long parseLong(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---- exact evaluation

  /** Whether the partition with these values (one per key, in key order) matches. */
  boolean test(List<String> values) {
    return Boolean.TRUE.equals(evaluate(filter, values));
  }

  /** Three-valued: null is SQL's unknown. */
  private Boolean evaluate(HiveFilter.Node node, List<String> values) {
    if (node instanceof HiveFilter.All) {
      return true;
    }
    if (node instanceof HiveFilter.And and) {
      Boolean left = evaluate(and.left(), values);
      if (Boolean.FALSE.equals(left)) {
        return false;
      }
      Boolean right = evaluate(and.right(), values);
      if (Boolean.FALSE.equals(right)) {
        return false;
      }
      return left == null || right == null ? null : true;
    }
    if (node instanceof HiveFilter.Or or) {
      Boolean left = evaluate(or.left(), values);
      if (Boolean.TRUE.equals(left)) {
        return true;
      }
      Boolean right = evaluate(or.right(), values);
      if (Boolean.TRUE.equals(right)) {
        return true;
      }
      return left == null || right == null ? null : false;
    }
    if (node instanceof HiveFilter.Not not) {
      Boolean operand = evaluate(not.operand(), values);
      return operand == null ? null : Boolean.valueOf(!operand);
    }
    if (node instanceof HiveFilter.Compare compare) {
      return compare(levelOf(compare.key()), values.get(levelOf(compare.key())), compare.operator(), compare.value());
    }
    if (node instanceof HiveFilter.In in) {
      int level = levelOf(in.key());
      Boolean any = false;
      for (HiveFilter.Literal value : in.values()) {
        Boolean equal = compare(level, values.get(level), HiveFilter.Operator.EQUALS, value);
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
      int level = levelOf(between.key());
      Boolean low = compare(level, values.get(level), HiveFilter.Operator.GREATER_OR_EQUAL, between.low());
      Boolean high = compare(level, values.get(level), HiveFilter.Operator.LESS_OR_EQUAL, between.high());
      Boolean inside = Boolean.FALSE.equals(low) || Boolean.FALSE.equals(high) ? Boolean.FALSE : low == null || high == null ? null : Boolean.TRUE;
      return between.negated() && inside != null ? Boolean.valueOf(!inside) : inside;
    }
    throw new IllegalStateException("unknown filter node " + node);
  }

  private Boolean compare(int level, String value, HiveFilter.Operator operator, HiveFilter.Literal literal) {
    if (operator == HiveFilter.Operator.LIKE) {
      return value.matches(literal.text());
    }
    int order;
    if (numeric(level, literal)) {
      Long number = parseLong(value);
      if (number == null) {
        return null;
      }
      order = Long.compare(number, parseLong(literal.text()));
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
      case LIKE -> throw new IllegalStateException("like handled above");
    };
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
