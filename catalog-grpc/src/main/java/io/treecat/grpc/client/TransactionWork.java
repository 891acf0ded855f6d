package io.treecat.grpc.client;

import io.treecat.core.version.WriteSet;

/**
 * The body of a transaction for {@link TransactionRunner}: it reads through the context and
 * returns what to write. It may run several times, once per attempt, so it must not have effects
 * outside the transaction other than ones safe to repeat.
 */
@FunctionalInterface
public interface TransactionWork {
    /** @return the writes to commit; null to write nothing */
    WriteSet run(TransactionContext transaction);
}
