package io.treecat.core.storage;

import static java.util.Objects.requireNonNull;

/**
 * One write of a {@link KvBatch}, as data: what a replicated commit ships to the other nodes, which
 * replay it into their own store ({@link OpsBatch}).
 *
 * @param value the value of a put; for a range delete, the exclusive upper bound; null for a delete
 */
public record KvOp(Kind kind, KeySpace space, byte[] key, byte[] value) {
    public enum Kind {
        PUT,
        DELETE,
        DELETE_RANGE
    }

    public KvOp {
        requireNonNull(kind, "kind is null");
        requireNonNull(space, "space is null");
        requireNonNull(key, "key is null");
        if ((kind == Kind.DELETE) != (value == null)) {
            throw new IllegalArgumentException(kind + " " + (value == null ? "needs" : "takes no") + " value");
        }
    }

    /** Adds this write to {@code batch}. */
    public void addTo(KvBatch batch) {
        switch (kind) {
            case PUT -> batch.put(space, key, value);
            case DELETE -> batch.delete(space, key);
            case DELETE_RANGE -> batch.deleteRange(space, key, value);
        }
    }
}
