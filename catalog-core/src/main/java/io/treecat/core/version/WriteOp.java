package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import org.bson.BsonDocument;

/** One change in a {@link WriteSet} (paper §3.3). */
public sealed interface WriteOp {
    ObjectPath path();

    /** Creates an object. The parent must exist and be inner; the path must be absent. */
    record Add(ObjectPath path, ObjectKind kind, BsonDocument value) implements WriteOp {
        public Add {
            requireNonNull(path, "path is null");
            requireNonNull(kind, "kind is null");
            requireNonNull(value, "value is null");
        }
    }

    /**
     * Sets an object's value, creating it if absent (the parent must exist). Updating a leaf replaces
     * it: the old leaf is removed and a new one added at the same vid, as leaves are immutable.
     */
    record Update(ObjectPath path, ObjectKind kind, BsonDocument value) implements WriteOp {
        public Update {
            requireNonNull(path, "path is null");
            requireNonNull(kind, "kind is null");
            requireNonNull(value, "value is null");
        }
    }

    /** Removes an object and all its descendants. The object must exist. */
    record Remove(ObjectPath path) implements WriteOp {
        public Remove {
            requireNonNull(path, "path is null");
        }
    }

    /**
     * Applies a delta to an inner object at commit time (a commit-time update). The object must exist.
     * See {@link MergeDelta} for the delta's form.
     */
    record Merge(ObjectPath path, BsonDocument delta) implements WriteOp {
        public Merge {
            requireNonNull(path, "path is null");
            requireNonNull(delta, "delta is null");
        }
    }

    /**
     * Copies the subtree at {@code source}, as it was at {@code sourceVid}, to {@code path}. Inner
     * objects are copied; leaves are shared with the source, not duplicated. The target's parent must
     * exist and the target must be absent.
     */
    record Clone(ObjectPath source, ObjectPath path, long sourceVid) implements WriteOp {
        public Clone {
            requireNonNull(source, "source is null");
            requireNonNull(path, "path is null");
        }
    }
}
