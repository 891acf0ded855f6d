package io.treecat.grpc.client;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How {@link TransactionRunner} retries aborted transactions: up to {@code maxAttempts} runs in
 * all, waiting before retry {@code n} (1-based) a uniformly random time between 0 and {@code
 * min(maxDelay, baseDelay * 2^(n-1))} ("full jitter"), which spreads clients that collided so they
 * do not collide again in lockstep.
 */
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {
    public RetryPolicy {
        requireNonNull(baseDelay, "baseDelay is null");
        requireNonNull(maxDelay, "maxDelay is null");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (baseDelay.isNegative() || maxDelay.isNegative()) {
            throw new IllegalArgumentException("delays must not be negative");
        }
    }

    /** 5 attempts, 10 ms base, 1 s cap. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(5, Duration.ofMillis(10), Duration.ofSeconds(1));
    }

    /** The longest wait before retry {@code retry} (1 for the first retry). */
    public Duration delayCap(int retry) {
        long base = baseDelay.toNanos();
        int shift = Math.min(retry - 1, 62);
        long exponential = base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
        return Duration.ofNanos(Math.min(exponential, maxDelay.toNanos()));
    }
}
