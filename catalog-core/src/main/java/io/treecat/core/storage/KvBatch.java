package io.treecat.core.storage;

/** Writes collected for one atomic {@link KvStore#write}. Must be closed. */
public interface KvBatch extends AutoCloseable {
    void put(KeySpace space, byte[] key, byte[] value);

    void delete(KeySpace space, byte[] key);

    /**
     * Deletes every key in [{@code fromInclusive}, {@code toExclusive}) with one range tombstone, however
     * many keys that is. For the garbage collector: use it only where no key can be written into the
     * range concurrently, since a later put in the same range would survive but an earlier one would not.
     */
    void deleteRange(KeySpace space, byte[] fromInclusive, byte[] toExclusive);

    /** The number of puts and deletes so far. */
    int count();

    /** The approximate encoded size in bytes. */
    long sizeInBytes();

    @Override
    void close();
}
