package io.treecat.core.txn;

/** How read-write transactions are kept serializable (paper §5). */
public enum ConcurrencyProtocol {
    /**
     * Optimistic scan-range + precision locking, the default: a scan conflicts with a later write
     * only if the write falls in the scanned range AND its before- or after-image satisfies the
     * scan's predicate.
     */
    OSPL,
    /** Optimistic scan-range locking: any write in a scanned range (by parent and id bounds) conflicts. */
    OSL,
    /** Strict two-phase locking with multiple-granularity locks (IS, IX, S, SIX, X) on the tree. */
    MGL
}
