package io.treecat.core.query.exec;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.tree.EvaluationTarget;
import io.treecat.core.query.tree.Predicates;
import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.ReferenceTree;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;

/** Evaluates a query by brute force over a map of objects: no bounds, no storage, no batching. */
public final class NaiveEvaluator {
    private NaiveEvaluator() {}

    public static List<ObjectPath> evaluate(Query query, Map<ObjectPath, ReferenceTree.Entry> state, ChildKinds kinds) {
        Set<ObjectPath> contexts = Set.of(ObjectPath.ROOT);
        List<ObjectPath> matched = List.of();
        for (int i = 0; i < query.steps().size(); i++) {
            Step step = query.steps().get(i);
            boolean last = i == query.steps().size() - 1;
            List<ObjectPath> next = new ArrayList<>();
            for (Map.Entry<ObjectPath, ReferenceTree.Entry> entry : state.entrySet()) {
                ObjectPath path = entry.getKey();
                if (path.isRoot() || !contexts.contains(path.parent())) {
                    continue;
                }
                ObjectKind kind = entry.getValue().kind();
                if (last ? !kinds.includes(kind) : kind != ObjectKind.INNER) {
                    continue;
                }
                if (step instanceof Step.Filter filter
                        && !Predicates.test(
                                filter.expr(),
                                target(path.id(), entry.getValue().value()))) {
                    continue;
                }
                next.add(path);
            }
            next.sort(null);
            matched = next;
            contexts = new HashSet<>(next);
        }
        return matched;
    }

    private static EvaluationTarget target(String id, BsonDocument value) {
        return EvaluationTarget.of(id, value);
    }
}
