package io.treecat.core.storage;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A store as it will be once some writes not in it yet are: reads see those writes over the store's own.
 * A replicated group commit prepares each of its commits through one, over the writes of the commits
 * before it in the same log entry, which reach the store only once the group agreed on the entry.
 *
 * <p>Read-only, and for one thread: the one that stages writes and reads them. Range deletes are refused
 * (commits never make them; only the collector does, which writes to the store itself).
 */
public final class StagedKvView implements KvStore {
    /** A staged delete; compared by identity, so an empty value stays a value. */
    private static final byte[] DELETED = new byte[0];

    private final KvStore store;
    private final Map<KeySpace, TreeMap<byte[], byte[]>> staged = new EnumMap<>(KeySpace.class);

    public StagedKvView(KvStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /** Adds writes over the store's contents, in order: later ones win. */
    public void stage(List<KvOp> ops) {
        for (KvOp op : ops) {
            TreeMap<byte[], byte[]> space =
                    staged.computeIfAbsent(op.space(), unused -> new TreeMap<>(Arrays::compareUnsigned));
            switch (op.kind()) {
                case PUT -> space.put(op.key(), op.value());
                case DELETE -> space.put(op.key(), DELETED);
                case DELETE_RANGE ->
                    throw new IllegalArgumentException(
                            "a staged view does not take range deletes (in " + op.space() + ")");
            }
        }
    }

    @Override
    public byte[] get(KeySpace space, byte[] key) {
        TreeMap<byte[], byte[]> writes = staged.get(space);
        if (writes != null && writes.containsKey(key)) {
            byte[] value = writes.get(key);
            return value == DELETED ? null : value.clone();
        }
        return store.get(space, key);
    }

    @Override
    public KvIterator iterator(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive) {
        NavigableMap<byte[], byte[]> writes = staged.getOrDefault(space, new TreeMap<>(Arrays::compareUnsigned));
        if (lowerInclusive != null) {
            writes = writes.tailMap(lowerInclusive, true);
        }
        if (upperExclusive != null) {
            writes = writes.headMap(upperExclusive, false);
        }
        return new MergedIterator(store.iterator(space, lowerInclusive, upperExclusive), writes, lowerInclusive);
    }

    @Override
    public KvBatch newBatch() {
        throw new UnsupportedOperationException("a staged view is read-only");
    }

    @Override
    public void write(KvBatch batch, boolean sync) {
        throw new UnsupportedOperationException("a staged view is read-only");
    }

    @Override
    public void syncWal() {
        throw new UnsupportedOperationException("a staged view is read-only");
    }

    /** Leaves the store open: it is not the view's. */
    @Override
    public void close() {}

    /**
     * The store's iterator and the staged writes in one key order: a staged write hides the store's entry
     * of the same key, and a staged delete hides it without taking its place.
     */
    private static final class MergedIterator implements KvIterator {
        private final KvIterator stored;
        private final NavigableMap<byte[], byte[]> writes;
        private final byte[] lower;
        private Iterator<Map.Entry<byte[], byte[]>> stagedCursor;
        private Map.Entry<byte[], byte[]> write;
        /** Whether the current entry is the staged write (else the store's). */
        private boolean onWrite;

        private boolean positioned;

        MergedIterator(KvIterator stored, NavigableMap<byte[], byte[]> writes, byte[] lower) {
            this.stored = stored;
            this.writes = writes;
            this.lower = lower;
        }

        @Override
        public void seek(byte[] key) {
            stored.seek(key);
            byte[] from = lower != null && Arrays.compareUnsigned(key, lower) < 0 ? lower : key;
            stagedCursor = writes.tailMap(from, true).entrySet().iterator();
            write = stagedCursor.hasNext() ? stagedCursor.next() : null;
            positioned = true;
            settle();
        }

        /** Moves past staged deletes, and the store's entries they hide, to the next visible entry. */
        private void settle() {
            while (true) {
                boolean storedValid = stored.isValid();
                if (write == null) {
                    onWrite = false;
                    return;
                }
                int order = storedValid ? Arrays.compareUnsigned(write.getKey(), stored.key()) : -1;
                if (order > 0) {
                    onWrite = false;
                    return;
                }
                if (order == 0) {
                    stored.next(); // hidden by the staged write
                }
                if (write.getValue() != DELETED) {
                    onWrite = true;
                    return;
                }
                write = stagedCursor.hasNext() ? stagedCursor.next() : null;
            }
        }

        @Override
        public boolean isValid() {
            return positioned && (onWrite || stored.isValid());
        }

        @Override
        public void next() {
            if (onWrite) {
                write = stagedCursor.hasNext() ? stagedCursor.next() : null;
            } else {
                stored.next();
            }
            settle();
        }

        @Override
        public byte[] key() {
            return onWrite ? write.getKey().clone() : stored.key();
        }

        @Override
        public byte[] value() {
            return onWrite ? write.getValue().clone() : stored.value();
        }

        @Override
        public void close() {
            stored.close();
        }
    }
}
