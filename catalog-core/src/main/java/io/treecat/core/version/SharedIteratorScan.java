package io.treecat.core.version;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link ChildScan} over one unbounded store iterator per key space, opened at the first scan that needs it. Each
 * cursor sees its ranges through {@link RangeView}s: a seek to the lower bound, and the upper bound checked here
 * rather than by the store.
 */
final class SharedIteratorScan implements ChildScan {
    private final VersionedTree tree;
    private final KvStore kv;
    private final ChildKinds kinds;
    private final Map<KeySpace, KvIterator> iterators = new EnumMap<>(KeySpace.class);
    /** The vid the open iterators were opened for; they see every commit up to it. */
    private long openedFor = -1;

    SharedIteratorScan(VersionedTree tree, KvStore kv, ChildKinds kinds) {
        this.tree = tree;
        this.kv = kv;
        this.kinds = kinds;
    }

    @Override
    public ChildCursor children(ObjectPath parent, long vid, List<byte[][]> idRanges) {
        tree.checkReadable(vid);
        if (vid != openedFor) {
            // A locking protocol reads each scan at the newest vid once its lock is granted: an iterator opened
            // before that commit would not see it.
            closeIterators();
            openedFor = vid;
        }
        return new TreeChildCursor(tree, kv, this::range, parent, vid, idRanges, kinds);
    }

    private KvIterator range(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive) {
        KvIterator shared = iterators.get(space);
        if (shared == null) {
            shared = kv.iterator(space, null, null);
            iterators.put(space, shared);
        }
        return new RangeView(shared, lowerInclusive, upperExclusive);
    }

    private void closeIterators() {
        RuntimeException failure = null;
        for (KvIterator iterator : iterators.values()) {
            try {
                iterator.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        iterators.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        closeIterators();
    }

    /**
     * One range of a shared iterator. Closing it leaves the iterator open for the next range. It reads each key from
     * the store once: a key is a fresh copy on every call, and the bound check needs it before the cursor does.
     */
    private static final class RangeView implements KvIterator {
        private final KvIterator shared;
        private final byte[] lower;
        private final byte[] upper;
        private byte[] key;

        RangeView(KvIterator shared, byte[] lower, byte[] upper) {
            this.shared = shared;
            this.lower = lower;
            this.upper = upper;
        }

        @Override
        public void seek(byte[] target) {
            key = null;
            shared.seek(lower != null && Arrays.compareUnsigned(target, lower) < 0 ? lower : target);
        }

        @Override
        public boolean isValid() {
            if (key == null) {
                if (!shared.isValid()) {
                    return false;
                }
                key = shared.key();
            }
            return upper == null || Arrays.compareUnsigned(key, upper) < 0;
        }

        @Override
        public void next() {
            key = null;
            shared.next();
        }

        @Override
        public byte[] key() {
            if (key == null) {
                key = shared.key();
            }
            return key;
        }

        @Override
        public byte[] value() {
            return shared.value();
        }

        @Override
        public void close() {
            key = null;
        }
    }
}
