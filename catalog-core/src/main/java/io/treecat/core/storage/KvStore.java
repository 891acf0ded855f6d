package io.treecat.core.storage;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The ordered key-value store the versioned tree is built on. Keys order by unsigned bytes in every
 * key space. Implementations are thread safe.
 */
public interface KvStore extends AutoCloseable {
    /** The value of {@code key}, or null. */
    byte[] get(KeySpace space, byte[] key);

    /**
     * Opens an iterator over the keys in [{@code lowerInclusive}, {@code upperExclusive}); either bound
     * may be null for unbounded. The upper bound is enforced by the store itself, so a scan never reads
     * past it.
     */
    KvIterator iterator(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive);

    KvBatch newBatch();

    /**
     * Applies the batch atomically: after a crash, either all of it or none of it is present.
     *
     * @param sync when true the write-ahead log is synced before returning, so the batch survives a
     *     crash of the process or the machine once this returns
     */
    void write(KvBatch batch, boolean sync);

    /** Syncs the write-ahead log: every batch written before this call becomes durable. */
    void syncWal();

    /**
     * A numeric property of the store summed over its key spaces, such as RocksDB's {@code
     * rocksdb.total-sst-files-size} or {@code rocksdb.estimate-live-data-size}; empty if the store does not
     * know it. For metrics and benchmarks.
     */
    default OptionalLong longProperty(String name) {
        return OptionalLong.empty();
    }

    /**
     * Writes a consistent copy of the whole store, every key space, into {@code directory}, which must
     * not exist yet; it can be opened as a store of its own. Holds every batch written before the call.
     * A new node of a replicated group is sent one (docs/replication.md).
     *
     * @throws UnsupportedOperationException if the store cannot make one
     */
    default void checkpoint(Path directory) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot write a checkpoint");
    }

    @Override
    void close();
}
