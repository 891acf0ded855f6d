package io.treecat.hms;

import io.treecat.core.query.parser.QueryLimits;
import io.treecat.lakehouse.catalog.Partitions;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.txn.PathSteps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * A {@link HiveFilter} bound to a table's partition keys: a path query predicate per partition level
 * (pushed down to the tree) and an exact evaluation of what the tree returned by the one
 * {@link HiveFilterEvaluator}.
 *
 * <p><b>Binding</b> refuses what Hive 4 refuses, with a {@link MetaException} as Hive throws: a key
 * the table does not have; a key whose type Hive's filter cannot compare (only {@code string},
 * {@code char}, {@code varchar}, the integral types and {@code date}); an integral key with a string
 * or {@code like}, a string key with an integer, a date key with anything but a date or {@code like}
 * (a literal {@code '__HIVE_DEFAULT_PARTITION__'} goes with every key type).
 *
 * <p><b>Pushdown.</b> For each level {@code i} the planner derives a predicate that every partition the
 * filter accepts satisfies at level {@code i} (a superset): {@code k = 'v'} becomes {@code obj_id =
 * 'k=v'} (a bounded seek), {@code k in (...)} an {@code obj_id in (...)}, other string comparisons
 * {@code part_val op 'v'}, numeric ones {@code part_num op n}, a {@code like} without wildcards an
 * {@code obj_id =}, a {@code like} with a literal prefix {@code part_val >= 'prefix'}; {@code and}
 * intersects, {@code or} unites per level, and date keys, other {@code like}s, {@code not in} and
 * {@code not between} push nothing. The exact evaluation then runs on every row the query returns,
 * so a filter the tree cannot express exactly still gets the exact answer.
 */
final class PartitionFilterPlanner {
    private static final Set<String> INTEGRAL = Set.of("tinyint", "smallint", "int", "integer", "bigint");
    private static final Set<String> STRING = Set.of("string", "char", "varchar");

    private final HiveFilter.Node filter;
    private final List<String> keys;
    private final List<HiveFilterEvaluator.KeyType> types;
    private final HiveFilterEvaluator evaluator;

    private PartitionFilterPlanner(HiveFilter.Node filter, List<String> keys, List<HiveFilterEvaluator.KeyType> types) {
        this.filter = filter;
        this.keys = keys;
        this.types = types;
        this.evaluator = new HiveFilterEvaluator(filter, LikePattern.Syntax.SQL);
    }

    static boolean isIntegral(FieldSchema key) {
        return keyType(key) == HiveFilterEvaluator.KeyType.INTEGRAL;
    }

    /** How Hive's filter compares the key's values; null for a type it cannot filter on. */
    static HiveFilterEvaluator.KeyType keyType(FieldSchema key) {
        String type = key.getType() == null
                ? ""
                : key.getType().toLowerCase(Locale.ROOT).trim();
        int parameters = type.indexOf('(');
        String name = (parameters < 0 ? type : type.substring(0, parameters)).trim();
        if (INTEGRAL.contains(name)) {
            return HiveFilterEvaluator.KeyType.INTEGRAL;
        }
        if (STRING.contains(name)) {
            return HiveFilterEvaluator.KeyType.STRING;
        }
        return name.equals("date") ? HiveFilterEvaluator.KeyType.DATE : null;
    }

    /** Binds {@code filter} to {@code partitionKeys}, refusing what Hive refuses (see the class comment). */
    static PartitionFilterPlanner plan(HiveFilter.Node filter, List<FieldSchema> partitionKeys) throws MetaException {
        List<String> keys = new ArrayList<>();
        List<HiveFilterEvaluator.KeyType> types = new ArrayList<>();
        List<String> typeNames = new ArrayList<>();
        for (FieldSchema key : partitionKeys) {
            keys.add(key.getName().toLowerCase(Locale.ROOT));
            types.add(keyType(key));
            typeNames.add(key.getType());
        }
        PartitionFilterPlanner planner = new PartitionFilterPlanner(filter, keys, Collections.unmodifiableList(types));
        HiveFilter.forEachCondition(filter, (key, operator, value) -> planner.check(key, operator, value, typeNames));
        return planner;
    }

    private void check(String key, HiveFilter.Operator operator, HiveFilter.Literal value, List<String> typeNames)
            throws MetaException {
        int level = levelOf(key);
        if (level < 0) {
            throw new MetaException("Error parsing partition filter: '" + key
                    + "' is not a partition key of the table (its keys are " + keys + ")");
        }
        HiveFilterEvaluator.KeyType type = types.get(level);
        boolean defaultPartition = !value.integer() && value.text().equals(HivePartitionNames.DEFAULT_PARTITION);
        String refusal = null;
        if (type == null) {
            refusal = "key " + key + " is of type " + typeNames.get(level);
        } else if (!defaultPartition) {
            refusal = switch (type) {
                case STRING -> value.integer() ? "it compares string key " + key + " with an integer" : null;
                case INTEGRAL ->
                    !value.integer()
                            ? "it compares integral key " + key + " with a string"
                            : operator == HiveFilter.Operator.LIKE
                                    ? "like does not apply to integral key " + key
                                    : null;
                case DATE ->
                    value.integer() || HiveFilterEvaluator.parseDate(value.text()) == null
                            ? "it compares date key " + key + " with no date"
                            : operator == HiveFilter.Operator.LIKE ? "like does not apply to date key " + key : null;
            };
        }
        if (refusal != null) {
            throw new MetaException(
                    "Filtering is supported only on partition keys of type string, integral keys with integers and date keys with dates: "
                            + key + " " + operator.symbol() + " " + value.show() + ": " + refusal);
        }
    }

    private int levelOf(String key) {
        return keys.indexOf(key.toLowerCase(Locale.ROOT));
    }

    // ---- pushdown

    /** One predicate per level, in the path query language, within the default query limits; never empty. */
    List<String> levelPredicates() {
        return levelPredicates(QueryLimits.DEFAULTS);
    }

    /**
     * One predicate per level, in the path query language; never empty. The query they make stays
     * inside {@code limits} whatever the filter: a level's predicate nests no deeper than the query
     * may (a deeper part pushes nothing), and the pushed parts together take at most half the query's
     * text (the longest are dropped first; the rest of the text is the table's path and the level
     * tests). Pushing less only returns more rows to the exact evaluation, never another answer.
     */
    List<String> levelPredicates(QueryLimits limits) {
        List<String> pushed = new ArrayList<>();
        long total = 0;
        for (int level = 0; level < keys.size(); level++) {
            // One level of the query's nesting goes to "obj_type = 'partition' and (…)".
            String predicate = push(filter, level, limits.maxDepth() - 1);
            pushed.add(predicate);
            total += bytes(predicate);
        }
        long budget = limits.maxTextBytes() / 2;
        while (total > budget) {
            int longest = 0;
            for (int level = 1; level < pushed.size(); level++) {
                if (bytes(pushed.get(level)) > bytes(pushed.get(longest))) {
                    longest = level;
                }
            }
            total -= bytes(pushed.get(longest));
            pushed.set(longest, null);
        }
        List<String> predicates = new ArrayList<>();
        for (String predicate : pushed) {
            predicates.add(predicate == null ? isPartition() : isPartition() + " and (" + predicate + ")");
        }
        return predicates;
    }

    private static long bytes(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * A predicate on level {@code level} implied by {@code node}, or null (nothing to push), nesting at
     * most {@code depth} levels of parentheses. A chain of {@code and} (or {@code or}) is one level: its
     * children, each in parentheses, joined by the operator.
     */
    private String push(HiveFilter.Node node, int level, int depth) {
        if (node instanceof HiveFilter.And and) {
            if (depth < 1) {
                return null; // an and pushes a superset of its children's ids: nothing is one
            }
            List<String> parts = new ArrayList<>();
            for (HiveFilter.Node child : and.children()) {
                String part = push(child, level, depth - 1);
                if (part != null) {
                    parts.add(part);
                }
            }
            return parts.isEmpty() ? null : parts.size() == 1 ? parts.get(0) : joined(parts, " and ");
        }
        if (node instanceof HiveFilter.Or or) {
            if (depth < 1) {
                return null;
            }
            List<String> parts = new ArrayList<>();
            for (HiveFilter.Node child : or.children()) {
                String part = push(child, level, depth - 1);
                if (part == null) {
                    return null; // a child that does not constrain the level lets every value through
                }
                parts.add(part);
            }
            return joined(parts, " or ");
        }
        if (types.get(level) == HiveFilterEvaluator.KeyType.DATE) {
            return null; // dates compare as dates, which the tree's string and number order do not know
        }
        if (node instanceof HiveFilter.Compare compare && levelOf(compare.key()) == level) {
            return push(level, compare.operator(), compare.value());
        }
        if (node instanceof HiveFilter.In in && levelOf(in.key()) == level && !in.negated()) {
            List<String> items = new ArrayList<>();
            boolean allNumeric = in.values().stream().allMatch(value -> numeric(level, value));
            boolean noneNumeric = in.values().stream().noneMatch(value -> numeric(level, value));
            if (!allNumeric && !noneNumeric) {
                return null;
            }
            for (HiveFilter.Literal value : in.values()) {
                items.add(
                        allNumeric
                                ? Long.toString(value.number())
                                : quote(HivePartitionNames.component(keys.get(level), value.text())));
            }
            return (allNumeric ? LakeKeys.PART_NUM : "obj_id") + " in (" + String.join(", ", items) + ")";
        }
        if (node instanceof HiveFilter.Between between
                && levelOf(between.key()) == level
                && !between.negated()
                && depth >= 1) {
            String low = push(level, HiveFilter.Operator.GREATER_OR_EQUAL, between.low());
            String high = push(level, HiveFilter.Operator.LESS_OR_EQUAL, between.high());
            return "(" + low + ") and (" + high + ")";
        }
        return null;
    }

    /** {@code (p1) op (p2) op …}, in one pass. */
    private static String joined(List<String> parts, String operator) {
        StringBuilder text = new StringBuilder();
        for (String part : parts) {
            if (text.length() > 0) {
                text.append(operator);
            }
            text.append('(').append(part).append(')');
        }
        return text.toString();
    }

    private String push(int level, HiveFilter.Operator operator, HiveFilter.Literal value) {
        if (operator == HiveFilter.Operator.LIKE) {
            LikePattern pattern = LikePattern.compile(value.text(), LikePattern.Syntax.SQL);
            if (pattern.isLiteral() && !pattern.literalPrefix().isEmpty()) {
                return "obj_id = " + quote(HivePartitionNames.component(keys.get(level), pattern.literalPrefix()));
            }
            String prefix = pattern.literalPrefix();
            return prefix.isEmpty() ? null : LakeKeys.PART_VAL + " >= " + quote(prefix);
        }
        if (numeric(level, value)) {
            return LakeKeys.PART_NUM + " " + operator.symbol() + " " + value.number();
        }
        if (operator == HiveFilter.Operator.EQUALS) {
            return "obj_id = " + quote(HivePartitionNames.component(keys.get(level), value.text()));
        }
        return LakeKeys.PART_VAL + " " + operator.symbol() + " " + quote(value.text());
    }

    /** The predicate of a partition level (of any value). */
    static String isPartition() {
        return Partitions.anyLevel();
    }

    static String quote(String text) {
        return PathSteps.literal(text);
    }

    /** Whether a comparison of {@code level} with {@code value} is numeric. */
    private boolean numeric(int level, HiveFilter.Literal value) {
        return types.get(level) == HiveFilterEvaluator.KeyType.INTEGRAL && value.integer();
    }

    // ---- exact evaluation

    /** Whether the partition with these values (one per key, in key order) matches. */
    boolean test(List<String> values) {
        return evaluator.matches(new HiveFilterEvaluator.Row() {
            @Override
            public String value(String key) {
                return values.get(levelOf(key));
            }

            @Override
            public HiveFilterEvaluator.KeyType type(String key) {
                return types.get(levelOf(key));
            }
        });
    }
}
