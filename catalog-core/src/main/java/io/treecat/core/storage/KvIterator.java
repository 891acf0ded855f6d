package io.treecat.core.storage;

/**
 * A forward iterator over one key space, confined to the bounds it was opened with. Not thread
 * safe; must be closed. {@link #key()} and {@link #value()} return fresh copies.
 */
public interface KvIterator extends AutoCloseable {
    /** Positions at the first key at or after {@code key} (and within the bounds). */
    void seek(byte[] key);

    boolean isValid();

    void next();

    byte[] key();

    byte[] value();

    @Override
    void close();
}
