package io.treecat.core.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * A batch that only records its writes, in order: a replicated commit is prepared into one, shipped as
 * data and replayed into each node's own store batch ({@link KvOp#addTo}).
 */
public final class OpsBatch implements KvBatch {
    private final List<KvOp> ops = new ArrayList<>();
    private long bytes;

    @Override
    public void put(KeySpace space, byte[] key, byte[] value) {
        add(new KvOp(KvOp.Kind.PUT, space, key.clone(), value.clone()));
    }

    @Override
    public void delete(KeySpace space, byte[] key) {
        add(new KvOp(KvOp.Kind.DELETE, space, key.clone(), null));
    }

    @Override
    public void deleteRange(KeySpace space, byte[] fromInclusive, byte[] toExclusive) {
        add(new KvOp(KvOp.Kind.DELETE_RANGE, space, fromInclusive.clone(), toExclusive.clone()));
    }

    private void add(KvOp op) {
        ops.add(op);
        bytes += op.key().length + (op.value() == null ? 0 : op.value().length);
    }

    /** The writes so far, in the order they were made. */
    public List<KvOp> ops() {
        return List.copyOf(ops);
    }

    @Override
    public int count() {
        return ops.size();
    }

    @Override
    public long sizeInBytes() {
        return bytes;
    }

    @Override
    public void close() {}
}
