package io.treecat.core.query.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.tree.ComparisonOperator;
import io.treecat.core.query.tree.EvaluationTarget;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Not;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import io.treecat.core.query.tree.Predicates;
import io.treecat.core.query.tree.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.junit.jupiter.api.Test;

class TestIdBounds {
    @Test
    void boundsComparisonsOnObjectId() {
        assertThat(bounds("obj_id = 's'")).isEqualTo(IdRanges.of(IdRange.point("s")));
        assertThat(bounds("obj_id >= 's'")).isEqualTo(IdRanges.of(IdRange.atLeast("s")));
        assertThat(bounds("obj_id > 's'")).isEqualTo(IdRanges.of(IdRange.greaterThan("s")));
        assertThat(bounds("obj_id < 's'")).isEqualTo(IdRanges.of(IdRange.lessThan("s")));
        assertThat(bounds("obj_id <= 's'")).isEqualTo(IdRanges.of(IdRange.atMost("s")));
        assertThat(bounds("obj_id != 's'")).isEqualTo(IdRanges.of(IdRange.lessThan("s"), IdRange.greaterThan("s")));
    }

    @Test
    void mirrorsLiteralsOnTheLeft() {
        assertThat(bounds("'s' < obj_id")).isEqualTo(bounds("obj_id > 's'"));
        assertThat(bounds("'s' <= obj_id")).isEqualTo(bounds("obj_id >= 's'"));
        assertThat(bounds("'s' > obj_id")).isEqualTo(bounds("obj_id < 's'"));
        assertThat(bounds("'s' >= obj_id")).isEqualTo(bounds("obj_id <= 's'"));
        assertThat(bounds("'s' = obj_id")).isEqualTo(bounds("obj_id = 's'"));
    }

    @Test
    void nonStringLiteralsMatchNothing() {
        assertThat(bounds("obj_id = 5")).isEqualTo(IdRanges.NONE);
        assertThat(bounds("obj_id = null")).isEqualTo(IdRanges.NONE);
        assertThat(bounds("obj_id != null")).isEqualTo(IdRanges.NONE);
        assertThat(bounds("1 < obj_id and obj_id < 100")).isEqualTo(IdRanges.NONE);
        assertThat(bounds("obj_id in (1, true)")).isEqualTo(IdRanges.NONE);
    }

    @Test
    void boundsPrefixesAndLists() {
        assertThat(bounds("startswith(obj_id, 'ab')")).isEqualTo(IdRanges.of(IdRange.prefix("ab")));
        assertThat(bounds("startswith(obj_id, '')")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("obj_id in ('b', 1, 'a')")).isEqualTo(IdRanges.of(IdRange.point("a"), IdRange.point("b")));
    }

    @Test
    void combinesWithAndAndOr() {
        assertThat(bounds("obj_id = 'sales' and obj_type = 'table'")).isEqualTo(IdRanges.of(IdRange.point("sales")));
        assertThat(bounds("obj_id >= 'a' and obj_id < 'c'"))
                .isEqualTo(IdRanges.of(new IdRange(
                        IdRange.atLeast("a").lowerInclusive(),
                        IdRange.lessThan("c").upperExclusive())));
        assertThat(bounds("obj_id = 'a' and obj_id = 'b'")).isEqualTo(IdRanges.NONE);
        assertThat(bounds("obj_id = 'a' or obj_id = 'b'"))
                .isEqualTo(IdRanges.of(IdRange.point("a"), IdRange.point("b")));
        assertThat(bounds("obj_id = 'a' or x = 1")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("obj_id = 'a' or obj_id = 1")).isEqualTo(IdRanges.of(IdRange.point("a")));
    }

    @Test
    void leavesEverythingElseUnbounded() {
        assertThat(bounds("not obj_id = 'a'")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("endswith(obj_id, 'a')")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("exists(obj_id)")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("part_val = 'US'")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("obj_id = obj_type")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("obj_id = obj_id")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("obj_id.x = 'a'")).isEqualTo(IdRanges.ALL);
        assertThat(bounds("'a' = 'a'")).isEqualTo(IdRanges.ALL);
        assertThat(IdBounds.of(new Comparison(FieldRef.objectId(), ComparisonOperator.LT, Literal.of("\uD83D"))))
                .isEqualTo(IdRanges.ALL);
    }

    /** Property: ranges never exclude an id the predicate accepts, and are exact for single predicates. */
    @Test
    void rangesContainEveryAcceptedIdAndOnlyThoseForSinglePredicates() {
        Random random = new Random(42L);
        for (int i = 0; i < 3_000; i++) {
            boolean single = random.nextBoolean();
            Expr expr = single ? single(random) : compound(random, 3);
            IdRanges ranges = IdBounds.of(expr);
            for (int j = 0; j < 40; j++) {
                String id = id(random);
                boolean accepted = Predicates.test(expr, target(id));
                boolean contained = ranges.contains(id);
                if (accepted) {
                    assertThat(contained)
                            .as("sound: %s accepts %s but ranges %s exclude it", expr, id, ranges)
                            .isTrue();
                }
                if (single) {
                    assertThat(contained)
                            .as("tight: %s on %s with ranges %s", expr, id, ranges)
                            .isEqualTo(accepted);
                }
            }
        }
    }

    private static final String[] ALPHABET = {
        "a", "b", "s", "sales", "\u0000", "\u0001", "\u0002", "/", "\\", "😀", "\uffff", "é", "z", "\u007f", "'"
    };

    private static String id(Random random) {
        StringBuilder id = new StringBuilder();
        int length = 1 + random.nextInt(4);
        for (int i = 0; i < length; i++) {
            id.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return id.toString();
    }

    private static String literalText(Random random) {
        return random.nextInt(8) == 0 ? "" : id(random);
    }

    private static Expr single(Random random) {
        FieldRef objectId = FieldRef.objectId();
        ComparisonOperator operator = ComparisonOperator.values()[random.nextInt(6)];
        Literal literal = random.nextInt(6) == 0 ? nonString(random) : Literal.of(literalText(random));
        return switch (random.nextInt(4)) {
            case 0 -> new Comparison(objectId, operator, literal);
            case 1 -> new Comparison(literal, operator, objectId);
            case 2 -> new StringMatch(StringMatch.Kind.STARTS_WITH, objectId, literalText(random));
            default -> {
                List<Literal> values = new ArrayList<>();
                int count = 1 + random.nextInt(3);
                for (int i = 0; i < count; i++) {
                    values.add(random.nextInt(5) == 0 ? nonString(random) : Literal.of(literalText(random)));
                }
                yield new InList(objectId, values);
            }
        };
    }

    private static Literal nonString(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> new Literal(new BsonInt32(random.nextInt(10)));
            case 1 -> new Literal(BsonBoolean.TRUE);
            default -> new Literal(BsonNull.VALUE);
        };
    }

    private static Expr compound(Random random, int depth) {
        int choice = random.nextInt(depth <= 0 ? 2 : 6);
        return switch (choice) {
            case 0 -> single(random);
            case 1 ->
                random.nextBoolean()
                        ? new StringMatch(StringMatch.Kind.ENDS_WITH, FieldRef.objectId(), literalText(random))
                        : new Comparison(FieldRef.of("x"), ComparisonOperator.EQ, Literal.of(1));
            case 2 -> new Not(compound(random, depth - 1));
            case 3 -> new Expr.Or(List.of(compound(random, depth - 1), compound(random, depth - 1)));
            default ->
                new Expr.And(
                        List.of(compound(random, depth - 1), compound(random, depth - 1), compound(random, depth - 1)));
        };
    }

    private static EvaluationTarget target(String id) {
        BsonDocument value = new BsonDocument("x", new BsonInt32(id.length() % 2));
        return EvaluationTarget.of(id, value);
    }

    private static IdRanges bounds(String predicate) {
        return IdBounds.of(
                ((Step.Filter) QueryParser.parse("/[" + predicate + "]").steps().get(0)).expr());
    }
}
