package io.treecat.core.storage;

/**
 * The key spaces of the store, one RocksDB column family each. Names are persisted: never rename.
 * The layout of keys and values in each is documented in {@code docs/storage.md} and in {@link
 * PathKeys}.
 */
public enum KeySpace {
    /** The current version of every inner object that ever existed (the paper's SnapshotStore). */
    INNER_CURRENT("inner_current"),
    /** Past versions of inner objects, newest first per path (the paper's DeltaStore). */
    INNER_HISTORY("inner_history"),
    /** Leaf objects with their create and tombstone vids (the paper's LeafObjectStore). */
    LEAF("leaf"),
    /** Fixed keys: format version, last committed vid, named snapshots. */
    META("meta"),
    /**
     * One commit record per vid, keyed by the big-endian vid ({@link
     * io.treecat.core.history.CommitRecordCodec}). Written in the commit's own batch.
     */
    COMMIT_LOG("commit_log");

    private final String familyName;

    KeySpace(String familyName) {
        this.familyName = familyName;
    }

    public String familyName() {
        return familyName;
    }
}
