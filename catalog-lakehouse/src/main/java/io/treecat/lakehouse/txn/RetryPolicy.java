package io.treecat.lakehouse.txn;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often {@link TransactionRunner} runs a transaction again after it lost a race
 * ({@code COMMIT_CONFLICT} or {@code LOCK_TIMEOUT}), and how long it waits in between: a random
 * time up to {@code initialBackoff · 2^(attempt-1)}, capped at {@code maxBackoff} ("full jitter"), so
 * writers that collided once do not collide again in step.
 *
 * @param maxAttempts attempts in all, the first included; 1 never retries
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    /** One attempt: the loser's conflict reaches the client, which retries (Iceberg clients, a native caller). */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
    /** What every lake write uses unless it says otherwise. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofMillis(2), Duration.ofMillis(100));

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        requireNonNull(initialBackoff, "initialBackoff is null");
        requireNonNull(maxBackoff, "maxBackoff is null");
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "Backoff must satisfy 0 <= initial <= max: " + initialBackoff + ", " + maxBackoff);
        }
    }

    /** The wait before attempt {@code attempt + 1}, after {@code attempt} failed ({@code attempt} ≥ 1). */
    Duration backoff(int attempt) {
        long ceiling = initialBackoff.toNanos();
        for (int i = 1; i < attempt && ceiling < maxBackoff.toNanos(); i++) {
            ceiling *= 2;
        }
        ceiling = Math.min(ceiling, maxBackoff.toNanos());
        return ceiling <= 0
                ? Duration.ZERO
                : Duration.ofNanos(ThreadLocalRandom.current().nextLong(ceiling + 1));
    }
}
