package io.treecat.core.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.plan.IdRanges;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.ReferenceTree;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor against a naive evaluator over a reference model, on random trees and random
 * queries: with the planner's iterator bounds, without them, page by page through continuation
 * tokens, and at old vids.
 */
class TestQueryExecutorDifferential {
    private static final String[] IDS = {
        "a", "b", "c", "ab", "b\u0000", "date=2025-01-01", "date=2025-01-02", "\uD83D\uDE00", "a/b"
    };
    private static final String[] TAGS = {"x", "y", "2025-01-01", "2025-01-02"};

    @TempDir
    Path directory;

    @Test
    void executorMatchesNaiveEvaluation() {
        int queries = 0;
        int nonEmpty = 0;
        for (int seed = 0; seed < 6; seed++) {
            Random random = new Random(seed);
            ReferenceTree model = new ReferenceTree();
            try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory.resolve("t" + seed)))) {
                buildRandomTree(random, tree, model);
                QueryExecutor executor = new QueryExecutor(tree);
                for (int q = 0; q < 150; q++) {
                    String text = randomQuery(random);
                    QueryPlan plan = QueryPlanner.plan(QueryParser.parse(text));
                    long vid = random.nextInt(4) == 0 ? random.nextInt((int) tree.lastVid() + 1) : tree.lastVid();
                    ChildKinds kinds = ChildKinds.values()[random.nextInt(3)];
                    List<ObjectPath> expected = NaiveEvaluator.evaluate(plan.query(), model.at(vid), kinds);
                    QueryOptions options = QueryOptions.at(vid).withResults(kinds);

                    assertThat(run(executor, plan, options))
                            .as("seed %d: %s at %d (%s)", seed, text, vid, kinds)
                            .isEqualTo(expected);
                    assertThat(run(executor, withoutPushdown(plan), options))
                            .as("no pushdown: %s", text)
                            .isEqualTo(expected);
                    assertThat(runInPages(executor, plan, options, 1 + random.nextInt(3)))
                            .as("paged: %s", text)
                            .isEqualTo(expected);
                    queries++;
                    nonEmpty += expected.isEmpty() ? 0 : 1;
                }
            }
        }
        // Random queries that always come back empty would prove little.
        assertThat(nonEmpty).isGreaterThan(queries / 4);
    }

    private static void buildRandomTree(Random random, VersionedTree tree, ReferenceTree model) {
        List<ObjectPath> inner = new ArrayList<>(List.of(ObjectPath.ROOT));
        for (int commit = 0; commit < 40; commit++) {
            List<WriteOp> ops = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(6); i++) {
                ObjectPath parent = inner.get(random.nextInt(inner.size()));
                if (parent.depth() >= 4) {
                    continue;
                }
                ObjectPath path = parent.child(IDS[random.nextInt(IDS.length)]);
                BsonDocument value = BsonDocument.parse(
                        "{n: " + random.nextInt(10) + ", tag: '" + TAGS[random.nextInt(TAGS.length)] + "'"
                                + (random.nextBoolean() ? ", stats: {min: " + random.nextInt(10) + "}" : "") + "}");
                int choice = random.nextInt(10);
                if (choice < 7) {
                    ObjectKind kind = parent.depth() >= 2 && random.nextInt(3) > 0 ? ObjectKind.LEAF : ObjectKind.INNER;
                    ops.add(new WriteOp.Update(path, kind, value));
                } else if (choice < 9 && !parent.isRoot()) {
                    ops.add(new WriteOp.Remove(path));
                } else if (!parent.isRoot()) {
                    ops.add(new WriteOp.Merge(parent, BsonDocument.parse("{n: {op: '+', val: 1}}")));
                }
            }
            if (ops.isEmpty()) {
                continue;
            }
            WriteSet writes = new WriteSet(ops);
            boolean accepted = model.commit(writes);
            if (accepted) {
                tree.commit(writes);
                for (WriteOp op : ops) {
                    if (op instanceof WriteOp.Update update && update.kind() == ObjectKind.INNER) {
                        inner.add(update.path());
                    }
                }
            }
        }
    }

    private static String randomQuery(Random random) {
        StringBuilder query = new StringBuilder();
        int depth = 1 + random.nextInt(4);
        for (int i = 0; i < depth; i++) {
            query.append('/').append(random.nextInt(4) == 0 ? "*" : "[" + randomExpr(random, 2) + "]");
        }
        return query.toString();
    }

    private static String randomExpr(Random random, int budget) {
        int choice = random.nextInt(budget > 0 ? 12 : 8);
        String id = "'" + IDS[random.nextInt(IDS.length)].replace("\\", "\\\\").replace("'", "\\'") + "'";
        String[] ops = {"=", "!=", "<", "<=", ">", ">="};
        String op = ops[random.nextInt(ops.length)];
        switch (choice) {
            case 0:
            case 1:
            case 2:
                return "obj_id " + op + " " + id;
            case 3:
                return "startswith(obj_id, '" + "abd".charAt(random.nextInt(3)) + "')";
            case 4:
                return "obj_id in (" + id + ", 'c')";
            case 5:
                return "n " + op + " " + random.nextInt(10);
            case 6:
                return "tag " + op + " '" + TAGS[random.nextInt(TAGS.length)] + "'";
            case 7:
                return random.nextBoolean() ? "stats.min >= " + random.nextInt(10) : "exists(stats)";
            case 8:
                return "(" + randomExpr(random, budget - 1) + " and " + randomExpr(random, budget - 1) + ")";
            case 9:
                return "(" + randomExpr(random, budget - 1) + " or " + randomExpr(random, budget - 1) + ")";
            case 10:
                return "not " + randomExpr(random, budget - 1);
            default:
                return id + " " + op + " obj_id";
        }
    }

    private static QueryPlan withoutPushdown(QueryPlan plan) {
        List<PlanStep> steps = new ArrayList<>();
        for (PlanStep step : plan.steps()) {
            steps.add(new PlanStep(step.depth(), step.step(), IdRanges.ALL, step.needsValue()));
        }
        return new QueryPlan(plan.query(), steps);
    }

    private static List<ObjectPath> run(QueryExecutor executor, QueryPlan plan, QueryOptions options) {
        List<ObjectPath> paths = new ArrayList<>();
        try (QueryCursor cursor = executor.execute(plan, options)) {
            while (cursor.advance()) {
                paths.add(cursor.current().path());
            }
        }
        return paths;
    }

    private static List<ObjectPath> runInPages(
            QueryExecutor executor, QueryPlan plan, QueryOptions options, int pageSize) {
        List<ObjectPath> paths = new ArrayList<>();
        QueryOptions pageOptions = options;
        for (int pages = 0; pages < 10_000; pages++) {
            QueryPage page;
            try (QueryCursor cursor = executor.execute(plan, pageOptions)) {
                page = cursor.page(pageSize);
            }
            page.rows().stream().map(CatalogObject::path).forEach(paths::add);
            if (page.continuation().isEmpty()) {
                return paths;
            }
            pageOptions = options.after(Continuation.decode(page.continuation().get()));
        }
        throw new AssertionError("paging did not end");
    }
}
