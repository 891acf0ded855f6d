package io.treecat.core.version;

import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.PathKeys;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;

/**
 * Merges the inner-object and leaf key spaces into one id-ordered stream of the children visible at
 * a vid. Each id range is one seek per key space plus a scan bounded by the store itself.
 */
final class TreeChildCursor implements ChildCursor {
    private final VersionedTree tree;
    /** The store the children are read from: the tree's, or a view of it with a group commit's writes staged. */
    private final KvStore kv;
    /** Where the iterators over {@link #kv} come from: opened for this cursor, or a {@link ChildScan}'s shared ones. */
    private final RangeIterators iterators;

    private final long vid;
    private final List<byte[][]> ranges;
    private final ChildKinds kinds;
    private final byte[] prefix;
    private int rangeIndex = -1;
    private InnerSide inner;
    private LeafSide leaf;
    private Side current;

    /** Opens iterators of the cursor's own: one per key space and range. */
    TreeChildCursor(
            VersionedTree tree, KvStore kv, ObjectPath parent, long vid, List<byte[][]> ranges, ChildKinds kinds) {
        this(tree, kv, kv::iterator, parent, vid, ranges, kinds);
    }

    TreeChildCursor(
            VersionedTree tree,
            KvStore kv,
            RangeIterators iterators,
            ObjectPath parent,
            long vid,
            List<byte[][]> ranges,
            ChildKinds kinds) {
        this.tree = tree;
        this.kv = kv;
        this.iterators = iterators;
        this.vid = vid;
        this.ranges = ranges;
        this.kinds = kinds;
        this.prefix = PathKeys.childrenPrefix(parent);
    }

    @Override
    public boolean advance() {
        if (current != null) {
            current.moveOn();
            current = null;
        }
        while (true) {
            if (inner == null && leaf == null && !openNextRange()) {
                return false;
            }
            boolean innerReady = inner != null && inner.ready();
            boolean leafReady = leaf != null && leaf.ready();
            if (!innerReady && !leafReady) {
                closeSides();
                continue;
            }
            if (innerReady && leafReady) {
                current = compareIds(inner.key, inner.idEnd(), leaf.key, leaf.idEnd()) <= 0 ? inner : leaf;
            } else {
                current = innerReady ? inner : leaf;
            }
            return true;
        }
    }

    private int compareIds(byte[] a, int aEnd, byte[] b, int bEnd) {
        return Arrays.compareUnsigned(a, prefix.length, aEnd, b, prefix.length, bEnd);
    }

    private boolean openNextRange() {
        if (++rangeIndex >= ranges.size()) {
            return false;
        }
        byte[][] range = ranges.get(rangeIndex);
        byte[] lower = range[0] == null ? prefix : PathKeys.concat(prefix, range[0]);
        byte[] upper = range[1] == null ? PathKeys.prefixEnd(prefix) : PathKeys.concat(prefix, range[1]);
        if (kinds.includes(ObjectKind.INNER)) {
            inner = new InnerSide(iterators.open(KeySpace.INNER_CURRENT, lower, upper));
        }
        if (kinds.includes(ObjectKind.LEAF)) {
            leaf = new LeafSide(iterators.open(KeySpace.LEAF, lower, upper));
        }
        // Iterators read the store as it was when they opened: if the horizon has not passed the vid by
        // now, nothing they will read was collected under them.
        try {
            tree.checkNotExpired(vid);
        } catch (RuntimeException e) {
            closeSides();
            throw e;
        }
        return true;
    }

    @Override
    public String id() {
        return current.id();
    }

    @Override
    public ObjectKind kind() {
        return current.kind();
    }

    @Override
    public BsonDocument value() {
        return current.value();
    }

    @Override
    public long version() {
        return current.version;
    }

    /** For clone: the key of the primary copy of the current leaf. */
    byte[] leafPrimaryKey() {
        LeafSide side = (LeafSide) current;
        return Records.leafIsReference(side.record) ? Records.leafReference(side.record) : side.key.clone();
    }

    private void closeSides() {
        if (inner != null) {
            inner.iterator.close();
            inner = null;
        }
        if (leaf != null) {
            leaf.iterator.close();
            leaf = null;
        }
    }

    @Override
    public void close() {
        closeSides();
    }

    private abstract class Side {
        final KvIterator iterator;
        byte[] key;
        byte[] record;
        int valueOffset;
        long version;
        boolean positioned;
        boolean exhausted;
        private String id;
        private BsonDocument value;

        Side(KvIterator iterator) {
            this.iterator = iterator;
            iterator.seek(new byte[0]);
        }

        /** Positions on the next visible child if not positioned yet; false when none is left. */
        final boolean ready() {
            if (!positioned && !exhausted) {
                id = null;
                value = null;
                positioned = findVisible();
                exhausted = !positioned;
            }
            return positioned;
        }

        /** Leaves the current child; the next {@link #ready} looks for the one after it. */
        void moveOn() {
            positioned = false;
        }

        abstract boolean findVisible();

        byte[] valueRecord() {
            return record;
        }

        abstract int idEnd();

        abstract ObjectKind kind();

        final String id() {
            if (id == null) {
                id = IdOrder.decode(key, prefix.length);
            }
            return id;
        }

        final BsonDocument value() {
            if (value == null) {
                value = Records.document(valueRecord(), valueOffset);
            }
            return value;
        }
    }

    private final class InnerSide extends Side {
        InnerSide(KvIterator iterator) {
            super(iterator);
        }

        @Override
        void moveOn() {
            super.moveOn();
            iterator.next();
        }

        @Override
        boolean findVisible() {
            for (; iterator.isValid(); iterator.next()) {
                key = iterator.key();
                byte[] currentRecord = iterator.value();
                long currentVid = Records.innerCurrentVid(currentRecord);
                if (currentVid <= vid) {
                    if (!Records.innerCurrentRemoved(currentRecord)) {
                        record = currentRecord;
                        valueOffset = Records.INNER_CURRENT_HEADER;
                        version = currentVid;
                        return true;
                    }
                    continue;
                }
                if (findInHistory()) {
                    return true;
                }
            }
            return false;
        }

        /** The child changed after {@code vid}: look up the version that was current then. */
        private boolean findInHistory() {
            VersionedTree.HistoryEntry entry = tree.historyAt(kv, key, vid);
            // A fresh seek: refuse it if the collector passed vid since the cursor opened.
            tree.checkNotExpired(vid);
            if (entry == null) {
                return false;
            }
            record = entry.record();
            valueOffset = Records.HEADER;
            version = entry.startVid();
            return true;
        }

        @Override
        int idEnd() {
            return key.length;
        }

        @Override
        ObjectKind kind() {
            return ObjectKind.INNER;
        }
    }

    private final class LeafSide extends Side {
        private byte[] resolved;
        /** The key at the iterator's position, when {@link #skipPath} already read it. */
        private byte[] peeked;

        LeafSide(KvIterator iterator) {
            super(iterator);
        }

        @Override
        void moveOn() {
            super.moveOn();
            skipPath();
        }

        /** Moves past the remaining (older) versions of the current path. */
        private void skipPath() {
            int pathLength = key.length - PathKeys.VID_BYTES;
            byte[] path = key;
            for (iterator.next(); iterator.isValid(); iterator.next()) {
                byte[] next = iterator.key();
                if (next.length != path.length || !Arrays.equals(next, 0, pathLength, path, 0, pathLength)) {
                    // Keep the key: reading it again from RocksDB would copy it a second time.
                    peeked = next;
                    return;
                }
            }
        }

        @Override
        boolean findVisible() {
            while (peeked != null || iterator.isValid()) {
                key = peeked != null ? peeked : iterator.key();
                peeked = null;
                long createVid = PathKeys.vidOfVersionedKey(key);
                if (createVid > vid) {
                    // A newer version than we read at; older ones of the same path follow.
                    iterator.next();
                    continue;
                }
                byte[] leafRecord = iterator.value();
                if (Records.leafTombstoneVid(leafRecord) > vid) {
                    record = leafRecord;
                    resolved = null;
                    valueOffset = Records.HEADER;
                    version = createVid;
                    if (Records.leafIsReference(leafRecord)) {
                        resolved = tree.resolveLeaf(kv, leafRecord);
                    }
                    return true;
                }
                // Removed by then; older versions were removed no later than this one was created.
                skipPath();
            }
            return false;
        }

        @Override
        byte[] valueRecord() {
            return resolved != null ? resolved : record;
        }

        @Override
        int idEnd() {
            return key.length - PathKeys.VID_BYTES;
        }

        @Override
        ObjectKind kind() {
            return ObjectKind.LEAF;
        }
    }

    @Override
    public String toString() {
        return "TreeChildCursor{vid=" + vid + "}";
    }

    /** Opens an iterator over [lower, upper) of a key space; closing it ends that range. */
    @FunctionalInterface
    interface RangeIterators {
        KvIterator open(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive);
    }
}
