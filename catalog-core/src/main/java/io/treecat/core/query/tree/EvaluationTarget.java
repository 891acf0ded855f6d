package io.treecat.core.query.tree;

import org.bson.BsonDocument;

/**
 * The object a step's predicate is tested against. {@link #value} may be expensive (a read and a
 * decode), so {@link Predicates} calls it only when the predicate needs a field other than {@code
 * obj_id}, and at most once per test.
 */
public interface EvaluationTarget {
    /** The object's own id, which {@code obj_id} refers to. */
    String id();

    /** The object's value; null is read as an empty document. */
    BsonDocument value();

    /** A target whose value is already at hand, such as a before- or after-image. */
    static EvaluationTarget of(String id, BsonDocument value) {
        return new EvaluationTarget() {
            @Override
            public String id() {
                return id;
            }

            @Override
            public BsonDocument value() {
                return value;
            }
        };
    }
}
