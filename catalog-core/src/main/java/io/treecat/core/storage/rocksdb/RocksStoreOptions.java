package io.treecat.core.storage.rocksdb;

/**
 * Tuning for the RocksDB store.
 *
 * @param blockCacheBytes the shared LRU block cache
 * @param writeBufferBytes the memtable size per column family
 * @param backgroundJobs flush and compaction threads
 */
public record RocksStoreOptions(long blockCacheBytes, long writeBufferBytes, int backgroundJobs) {
    public RocksStoreOptions {
        if (blockCacheBytes <= 0 || writeBufferBytes <= 0 || backgroundJobs <= 0) {
            throw new IllegalArgumentException("RocksDB options must be positive");
        }
    }

    public static RocksStoreOptions defaults() {
        return new RocksStoreOptions(256L << 20, 64L << 20, 2);
    }
}
