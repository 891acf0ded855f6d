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
 */
public record TransactionConfig(
        ConcurrencyProtocol protocol,
        Duration idleTimeout,
        Duration lockTimeout,
        int validationThreads,
        int parallelValidationThreshold) {
    public TransactionConfig {
        requireNonNull(protocol, "protocol is null");
        requireNonNull(idleTimeout, "idleTimeout is null");
        requireNonNull(lockTimeout, "lockTimeout is null");
        if (idleTimeout.isNegative() || idleTimeout.isZero() || lockTimeout.isNegative() || lockTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (validationThreads < 1 || parallelValidationThreshold < 1) {
            throw new IllegalArgumentException("validationThreads and parallelValidationThreshold must be positive");
        }
    }

    public static TransactionConfig defaults() {
        return new TransactionConfig(ConcurrencyProtocol.OSPL, Duration.ofMinutes(5), Duration.ofSeconds(10), 2, 256);
    }

    public TransactionConfig withProtocol(ConcurrencyProtocol value) {
        return new TransactionConfig(value, idleTimeout, lockTimeout, validationThreads, parallelValidationThreshold);
    }

    public TransactionConfig withIdleTimeout(Duration value) {
        return new TransactionConfig(protocol, value, lockTimeout, validationThreads, parallelValidationThreshold);
    }

    public TransactionConfig withLockTimeout(Duration value) {
        return new TransactionConfig(protocol, idleTimeout, value, validationThreads, parallelValidationThreshold);
    }
}
