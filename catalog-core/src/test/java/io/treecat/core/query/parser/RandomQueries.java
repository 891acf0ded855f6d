package io.treecat.core.query.parser;

import io.treecat.core.query.tree.ComparisonOperator;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.Exists;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Not;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonBoolean;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;

/** Random syntax trees that reach every node type, odd names and strings included, for round-trip tests. */
final class RandomQueries {
    private static final String[] NAMES = {
        "obj_id",
        "obj_type",
        "a",
        "part_val",
        "stats",
        "_x",
        "a-b",
        "c$d",
        "and",
        "NOT",
        "In",
        "null",
        "exists",
        "odd name",
        "1st",
        "a.b",
        "back`tick",
        "back\\slash",
        "é",
        "😀",
        "new\nline",
        "tab\t",
        "\u0000",
        "'",
        "\""
    };
    private static final String[] STRINGS = {
        "",
        "retail",
        "sales",
        "2025-01-01",
        "it's",
        "say \"hi\"",
        "a\\b",
        "line\nbreak",
        "\t",
        "\u0000",
        "\u0001",
        "\u007f",
        "é",
        "😀",
        "/[]",
        "`",
        "\\u0041",
        " "
    };

    private final Random random;

    RandomQueries(Random random) {
        this.random = random;
    }

    Query query() {
        int count = 1 + random.nextInt(4);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            steps.add(random.nextInt(4) == 0 ? new Step.Wildcard(1) : new Step.Filter(expr(4), 1));
        }
        return new Query(steps, "");
    }

    Expr expr(int depth) {
        int choice = random.nextInt(depth <= 0 ? 4 : 7);
        return switch (choice) {
            case 0 -> new Comparison(operand(), operator(), operand());
            case 1 -> new InList(operand(), literals());
            case 2 ->
                new StringMatch(
                        random.nextBoolean() ? StringMatch.Kind.STARTS_WITH : StringMatch.Kind.ENDS_WITH,
                        field(),
                        string());
            case 3 -> new Exists(field());
            case 4 -> new And(children(depth));
            case 5 -> new Or(children(depth));
            default -> new Not(expr(depth - 1));
        };
    }

    private List<Expr> children(int depth) {
        List<Expr> children = new ArrayList<>();
        int count = 2 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            children.add(expr(depth - 1));
        }
        return children;
    }

    private List<Literal> literals() {
        List<Literal> values = new ArrayList<>();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            values.add(literal());
        }
        return values;
    }

    ComparisonOperator operator() {
        ComparisonOperator[] operators = ComparisonOperator.values();
        return operators[random.nextInt(operators.length)];
    }

    Operand operand() {
        return random.nextBoolean() ? field() : literal();
    }

    FieldRef field() {
        List<String> names = new ArrayList<>();
        int count = 1 + (random.nextInt(3) == 0 ? random.nextInt(3) : 0);
        for (int i = 0; i < count; i++) {
            names.add(NAMES[random.nextInt(NAMES.length)]);
        }
        return new FieldRef(names);
    }

    Literal literal() {
        return switch (random.nextInt(8)) {
            case 0 -> new Literal(new BsonInt32(random.nextInt()));
            case 1 -> new Literal(new BsonInt64(random.nextLong()));
            case 2 -> new Literal(new BsonInt32(random.nextInt(200) - 100));
            case 3 -> new Literal(new BsonDouble(randomDouble()));
            case 4 -> new Literal(BsonBoolean.valueOf(random.nextBoolean()));
            case 5 -> new Literal(BsonNull.VALUE);
            default -> new Literal(new BsonString(string()));
        };
    }

    private double randomDouble() {
        return switch (random.nextInt(5)) {
            case 0 -> -0.0;
            case 1 -> Double.MIN_VALUE * (random.nextBoolean() ? 1 : -1);
            case 2 -> Double.MAX_VALUE * (random.nextBoolean() ? 1 : -1);
            case 3 -> random.nextInt(1000) / 8.0;
            default -> {
                double value = Double.longBitsToDouble(random.nextLong());
                yield Double.isFinite(value) ? value : random.nextGaussian();
            }
        };
    }

    String string() {
        if (random.nextBoolean()) {
            return STRINGS[random.nextInt(STRINGS.length)];
        }
        StringBuilder out = new StringBuilder();
        int length = random.nextInt(6);
        for (int i = 0; i < length; i++) {
            out.append(STRINGS[random.nextInt(STRINGS.length)]);
        }
        return out.toString();
    }
}
