package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Settings of the transaction manager.
 *
 * @param protocol the concurrency control protocol for read-write transactions
 * @param idleTimeout a session with no call for this long is aborted and its resources freed
 * @param lockTimeout with MGL, the longest a lock request waits before the transaction aborts
 * @param validationThreads threads that validate the partitions of a large scan set in parallel
 * @param parallelValidationThreshold scan sets at least this large are validated in parallel
 * @param maxTrackedChanges the most changes the in-memory validation log holds: beyond it, the
 *     read-write transactions with the oldest read vids are aborted ({@code TRANSACTION_ABORTED}) so
 *     that what only they needed can be dropped
 */
public record TransactionConfig(
        ConcurrencyProtocol protocol,
        Duration idleTimeout,
        Duration lockTimeout,
        int validationThreads,
        int parallelValidationThreshold,
        int maxTrackedChanges) {
    /** About 0.5-1 GiB of heap at a few hundred bytes of before- and after-image per change. */
    public static final int DEFAULT_MAX_TRACKED_CHANGES = 2_000_000;

    public TransactionConfig(
            ConcurrencyProtocol protocol,
            Duration idleTimeout,
            Duration lockTimeout,
            int validationThreads,
            int parallelValidationThreshold) {
        this(
                protocol,
                idleTimeout,
                lockTimeout,
                validationThreads,
                parallelValidationThreshold,
                DEFAULT_MAX_TRACKED_CHANGES);
    }

    public TransactionConfig {
        requireNonNull(protocol, "protocol is null");
        requireNonNull(idleTimeout, "idleTimeout is null");
        requireNonNull(lockTimeout, "lockTimeout is null");
        if (idleTimeout.isNegative() || idleTimeout.isZero() || lockTimeout.isNegative() || lockTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (validationThreads < 1 || parallelValidationThreshold < 1 || maxTrackedChanges < 1) {
            throw new IllegalArgumentException(
                    "validationThreads, parallelValidationThreshold and maxTrackedChanges must be positive");
        }
    }

    public static TransactionConfig defaults() {
        return new TransactionConfig(ConcurrencyProtocol.OSPL, Duration.ofMinutes(5), Duration.ofSeconds(10), 2, 256);
    }

    public TransactionConfig withProtocol(ConcurrencyProtocol value) {
        return new TransactionConfig(
                value, idleTimeout, lockTimeout, validationThreads, parallelValidationThreshold, maxTrackedChanges);
    }

    public TransactionConfig withIdleTimeout(Duration value) {
        return new TransactionConfig(
                protocol, value, lockTimeout, validationThreads, parallelValidationThreshold, maxTrackedChanges);
    }

    public TransactionConfig withLockTimeout(Duration value) {
        return new TransactionConfig(
                protocol, idleTimeout, value, validationThreads, parallelValidationThreshold, maxTrackedChanges);
    }

    public TransactionConfig withMaxTrackedChanges(int value) {
        return new TransactionConfig(
                protocol, idleTimeout, lockTimeout, validationThreads, parallelValidationThreshold, value);
    }
}
