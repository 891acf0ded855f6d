package io.treecat.core.storage;

/** Writes collected for one atomic {@link KvStore#write}. Must be closed. */
public interface KvBatch extends AutoCloseable {
    void put(KeySpace space, byte[] key, byte[] value);

    void delete(KeySpace space, byte[] key);

    /** The number of puts and deletes so far. */
    int count();

    /** The approximate encoded size in bytes. */
    long sizeInBytes();

    @Override
    void close();
}
