package io.treecat.lakehouse.txn;

/**
 * The body of one transaction: reads through {@link LakeTransaction}, stages writes there, and answers
 * a result. It may run more than once (a retry after a lost race), so it must not change anything
 * outside the transaction except through {@link LakeTransaction#onAbandon} and
 * {@link LakeTransaction#afterCommit}.
 *
 * @param <E> the checked exception the body throws (an adapter's own, such as Thrift's), or RuntimeException
 */
@FunctionalInterface
public interface Work<T, E extends Exception> {
    T run(LakeTransaction txn) throws E;
}
