package io.treecat.hms;

import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * A {@link HiveFilter} bound to a table's partition keys: a path query predicate per partition level
 * (pushed down to the tree) and an exact evaluation of what the tree returned by the one
 * {@link HiveFilterEvaluator}, in which a key of an integral type ({@code tinyint smallint int integer
 * bigint}) compares numerically with an integer ({@code date} keys' ISO dates order correctly as strings).
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
      predicates.add(pushed == null ? isPartition() : isPartition() + " and (" + pushed + ")");
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
        return LakeKeys.PART_NUM + " " + compare.operator().symbol() + " " + Long.parseLong(compare.value().text().trim());
      }
      if (compare.operator() == HiveFilter.Operator.EQUALS) {
        return "obj_id = " + quote(HivePartitionNames.component(keys.get(level), compare.value().text()));
      }
      return LakeKeys.PART_VAL + " " + compare.operator().symbol() + " " + quote(compare.value().text());
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
      return (allNumeric ? LakeKeys.PART_NUM : "obj_id") + " in (" + String.join(", ", items) + ")";
    }
    if (node instanceof HiveFilter.Between between && levelOf(between.key()) == level && !between.negated()) {
      String low = push(new HiveFilter.Compare(between.key(), HiveFilter.Operator.GREATER_OR_EQUAL, between.low()), level);
      String high = push(new HiveFilter.Compare(between.key(), HiveFilter.Operator.LESS_OR_EQUAL, between.high()), level);
      return "(" + low + ") and (" + high + ")";
    }
    return null;
  }

  /** The predicate of a partition level (of any value). */
  static String isPartition() {
    return LakeKeys.OBJ_TYPE + " = " + quote(ObjectType.PARTITION.storedName());
  }

  static String quote(String text) {
    return PathSteps.literal(text);
  }

  /** Whether a comparison of {@code level} with {@code value} is numeric. */
  private boolean numeric(int level, HiveFilter.Literal value) {
    return integral.get(level) && parseLong(value.text()) != null;
  }

  static Long parseLong(String text) {
    return HiveFilterEvaluator.parseLong(text);
  }

  // ---- exact evaluation

  /** Whether the partition with these values (one per key, in key order) matches. */
  boolean test(List<String> values) {
    return HiveFilterEvaluator.matches(filter, new HiveFilterEvaluator.Row() {
      @Override
      public String value(String key) {
        return values.get(levelOf(key));
      }

      @Override
      public boolean integral(String key) {
        return integral.get(levelOf(key));
      }
    });
  }
}
