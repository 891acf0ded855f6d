package io.treecat.core.txn;

/** What a transaction may do. */
public enum TransactionMode {
    /** Reads one snapshot; never aborts, never blocks, never writes. */
    READ_ONLY,
    /** Reads, then commits a write set after validation (or under locks, with MGL). */
    READ_WRITE
}
