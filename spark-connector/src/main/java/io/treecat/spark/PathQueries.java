package io.treecat.spark;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.And;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Or;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's filters as path-query predicates (docs/query-language.md), added to the last step of a query, so that
 * the server returns only the matching objects.
 *
 * <p>A pushed predicate may only keep more rows than Spark's own filter, never fewer: Spark still evaluates every
 * filter on the rows. So a filter on a value field is pushed only when every sampled value of that field had the
 * literal's JSON type (TreeCat compares a number with a string as "cannot be decided", false, where Spark, having
 * read the field as a string, would compare the text); inside {@code NOT} only exact translations are used.
 */
final class PathQueries {
    /** The JSON types a value field held in the sample. */
    enum Kind {
        STRING,
        NUMBER,
        BOOLEAN,
        OTHER
    }

    private static final Pattern BARE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$-]*");
    private static final Set<String> KEYWORDS =
            Set.of("and", "or", "not", "in", "true", "false", "null", "startswith", "endswith", "exists");

    private PathQueries() {}

    /** The index of the {@code /} that starts the last step, outside brackets, strings and quoted names. */
    static int lastStep(String query) {
        int depth = 0;
        int last = -1;
        char quote = 0;
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '[' || c == '(') {
                depth++;
            } else if (c == ']' || c == ')') {
                depth--;
            } else if (c == '/' && depth == 0) {
                last = i;
            }
        }
        return last;
    }

    /** {@code query} with {@code predicate} and-ed into its last step; unchanged without a predicate. */
    static String withPredicate(String query, String predicate) {
        if (predicate == null) {
            return query;
        }
        int at = lastStep(query);
        if (at < 0) {
            return query;
        }
        String step = query.substring(at + 1).strip();
        if (step.equals("*")) {
            return query.substring(0, at) + "/[" + predicate + "]";
        }
        if (step.startsWith("[") && step.endsWith("]")) {
            return query.substring(0, at) + "/[(" + step.substring(1, step.length() - 1) + ") and " + predicate + "]";
        }
        return query;
    }

    /** A string literal of the query language. */
    static String string(String text) {
        return "'"
                + text.replace("\\", "\\\\")
                        .replace("'", "\\'")
                        .replace("\n", "\\n")
                        .replace("\t", "\\t") + "'";
    }

    /** A field path in the query language: bare names as they are, others quoted. */
    static String field(List<String> names) {
        List<String> parts = new ArrayList<>();
        for (String name : names) {
            parts.add(
                    BARE.matcher(name).matches() && !KEYWORDS.contains(name.toLowerCase(Locale.ROOT))
                            ? name
                            : "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`");
        }
        return String.join(".", parts);
    }

    /** Whether every name can be written bare (the {@code fields} parameter takes only those). */
    static boolean allBare(List<String> names) {
        return names.stream()
                .allMatch(name -> BARE.matcher(name).matches() && !KEYWORDS.contains(name.toLowerCase(Locale.ROOT)));
    }

    /**
     * The predicate for Spark's {@code predicate}, or empty when it cannot be pushed. {@code kinds} has the JSON
     * types each sampled value field held (keyed by its dotted path); {@code exact} asks for the same rows as
     * Spark's (inside a NOT), else a superset will do (a conjunct).
     */
    static Optional<String> translate(Predicate predicate, Map<String, Set<Kind>> kinds, boolean exact) {
        if (predicate instanceof And and) {
            Optional<String> left = translate(and.left(), kinds, exact);
            Optional<String> right = translate(and.right(), kinds, exact);
            if (left.isPresent() && right.isPresent()) {
                return Optional.of("(" + left.get() + " and " + right.get() + ")");
            }
            // Dropping one side of an AND keeps more rows: fine for a conjunct, not inside a NOT.
            return exact ? Optional.empty() : left.or(() -> right);
        }
        if (predicate instanceof Or or) {
            Optional<String> left = translate(or.left(), kinds, exact);
            Optional<String> right = translate(or.right(), kinds, exact);
            return left.isPresent() && right.isPresent()
                    ? Optional.of("(" + left.get() + " or " + right.get() + ")")
                    : Optional.empty();
        }
        if (predicate instanceof Not not) {
            return translate(not.child(), kinds, true).map(child -> "(not " + child + ")");
        }
        Expression[] children = predicate.children();
        String name = predicate.name();
        switch (name) {
            case "=", "<>", "<", "<=", ">", ">=" -> {
                if (children.length != 2) {
                    return Optional.empty();
                }
                boolean flipped = children[0] instanceof Literal<?>;
                Expression column = flipped ? children[1] : children[0];
                Expression value = flipped ? children[0] : children[1];
                Optional<String> field = field(column, value, kinds);
                Optional<String> literal = literal(value);
                if (field.isEmpty() || literal.isEmpty()) {
                    return Optional.empty();
                }
                String op = name.equals("<>") ? "!=" : flipped ? flip(name) : name;
                return Optional.of(field.get() + " " + op + " " + literal.get());
            }
            case "IN" -> {
                if (children.length < 2) {
                    return Optional.empty();
                }
                List<String> literals = new ArrayList<>();
                for (int i = 1; i < children.length; i++) {
                    Optional<String> field = field(children[0], children[i], kinds);
                    Optional<String> literal = literal(children[i]);
                    if (field.isEmpty() || literal.isEmpty()) {
                        return Optional.empty();
                    }
                    literals.add(literal.get());
                }
                return field(children[0], children[1], kinds)
                        .map(field -> field + " in (" + String.join(", ", literals) + ")");
            }
            case "STARTS_WITH" -> {
                if (children.length != 2) {
                    return Optional.empty();
                }
                Optional<String> field = field(children[0], children[1], kinds);
                Optional<String> literal = literal(children[1]);
                return field.isPresent() && literal.isPresent() && literal.get().startsWith("'")
                        ? Optional.of("startswith(" + field.get() + ", " + literal.get() + ")")
                        : Optional.empty();
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    private static String flip(String op) {
        return switch (op) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> op;
        };
    }

    /**
     * The query field a column stands for when compared with {@code value}: {@code id} is the object's id,
     * {@code value.a.b} a field of its value if every sampled value of it had the literal's type.
     */
    private static Optional<String> field(Expression column, Expression value, Map<String, Set<Kind>> kinds) {
        if (!(column instanceof NamedReference reference) || !(value instanceof Literal<?> literal)) {
            return Optional.empty();
        }
        List<String> names = List.of(reference.fieldNames());
        Kind kind = kindOf(literal.value());
        if (names.equals(List.of("id"))) {
            return kind == Kind.STRING ? Optional.of("obj_id") : Optional.empty();
        }
        if (names.size() < 2 || !names.get(0).equals("value") || kind == Kind.OTHER) {
            return Optional.empty();
        }
        List<String> path = names.subList(1, names.size());
        Set<Kind> seen = kinds.get(String.join("\u0000", path));
        if (seen == null || seen.isEmpty() || !EnumSet.of(kind).containsAll(seen)) {
            return Optional.empty();
        }
        if (path.size() == 1 && path.get(0).equals("obj_id")) {
            // The query language's obj_id is the object's own id, not this value field.
            return Optional.empty();
        }
        return Optional.of(field(path));
    }

    static Kind kindOf(Object value) {
        if (value instanceof UTF8String || value instanceof String) {
            return Kind.STRING;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return Kind.NUMBER;
        }
        if (value instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? Kind.OTHER : Kind.NUMBER;
        }
        if (value instanceof Float f) {
            return f.isNaN() || f.isInfinite() ? Kind.OTHER : Kind.NUMBER;
        }
        if (value instanceof Boolean) {
            return Kind.BOOLEAN;
        }
        return Kind.OTHER;
    }

    private static Optional<String> literal(Expression expression) {
        if (!(expression instanceof Literal<?> literal)) {
            return Optional.empty();
        }
        Object value = literal.value();
        return switch (kindOf(value)) {
            case STRING -> Optional.of(string(value.toString()));
            case NUMBER ->
                Optional.of(
                        value instanceof Double || value instanceof Float
                                ? Double.toString(((Number) value).doubleValue())
                                : Long.toString(((Number) value).longValue()));
            case BOOLEAN -> Optional.of(value.toString());
            case OTHER -> Optional.empty();
        };
    }
}
