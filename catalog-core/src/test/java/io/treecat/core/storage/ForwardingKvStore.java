package io.treecat.core.storage;

import java.util.OptionalLong;

/** A store that passes every call to another: tests override the one call they make fail or wait. */
public class ForwardingKvStore implements KvStore {
    private final KvStore delegate;

    public ForwardingKvStore(KvStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public byte[] get(KeySpace space, byte[] key) {
        return delegate.get(space, key);
    }

    @Override
    public KvIterator iterator(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive) {
        return delegate.iterator(space, lowerInclusive, upperExclusive);
    }

    @Override
    public KvBatch newBatch() {
        return delegate.newBatch();
    }

    @Override
    public void write(KvBatch batch, boolean sync) {
        delegate.write(batch, sync);
    }

    @Override
    public void syncWal() {
        delegate.syncWal();
    }

    @Override
    public OptionalLong longProperty(String name) {
        return delegate.longProperty(name);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
