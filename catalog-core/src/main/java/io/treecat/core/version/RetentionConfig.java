package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How much history the garbage collector keeps, and how it runs.
 *
 * <p>A vid stays readable while either rule keeps it: it was current less than {@code retainFor}
 * ago, or it is among the newest {@code retainVersions} vids. At least one rule is set. Named
 * snapshots and active reads keep their vids beyond both.
 *
 * @param enabled run the collector in the background; when false nothing is ever deleted
 * @param retainFor keep every vid that was current within this long before now
 * @param retainVersions keep the newest this many vids
 * @param interval the pause between two background passes
 * @param rateLimit the most keys a pass deletes per second, so it never starves commits of I/O
 * @param batchSize deletions per write batch
 * @param paused start with background passes paused (an admin call resumes them)
 */
public record RetentionConfig(
        boolean enabled,
        Optional<Duration> retainFor,
        OptionalLong retainVersions,
        Duration interval,
        long rateLimit,
        int batchSize,
        boolean paused) {
    public RetentionConfig {
        requireNonNull(retainFor, "retainFor is null");
        requireNonNull(retainVersions, "retainVersions is null");
        requireNonNull(interval, "interval is null");
        if (retainFor.isEmpty() && retainVersions.isEmpty()) {
            throw new IllegalArgumentException("set a retention duration, a number of versions to retain, or both");
        }
        if (retainFor.isPresent() && retainFor.get().isNegative()) {
            throw new IllegalArgumentException("the retention duration must not be negative");
        }
        if (retainVersions.isPresent() && retainVersions.getAsLong() < 1) {
            throw new IllegalArgumentException("at least 1 version must be retained (the newest)");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the collection interval must be positive");
        }
        if (rateLimit < 1 || batchSize < 1) {
            throw new IllegalArgumentException("rateLimit and batchSize must be positive");
        }
    }

    /** 7 days of history, a pass every minute, at most 100,000 deletions a second. */
    public static RetentionConfig defaults() {
        return new RetentionConfig(
                true,
                Optional.of(Duration.ofDays(7)),
                OptionalLong.empty(),
                Duration.ofMinutes(1),
                100_000,
                1_000,
                false);
    }

    public RetentionConfig withEnabled(boolean value) {
        return new RetentionConfig(value, retainFor, retainVersions, interval, rateLimit, batchSize, paused);
    }

    /** Both rules at once, as each alone may not be empty. */
    public RetentionConfig withRetention(Optional<Duration> duration, OptionalLong versions) {
        return new RetentionConfig(enabled, duration, versions, interval, rateLimit, batchSize, paused);
    }

    public RetentionConfig withRetainFor(Optional<Duration> value) {
        return new RetentionConfig(enabled, value, retainVersions, interval, rateLimit, batchSize, paused);
    }

    public RetentionConfig withRetainVersions(OptionalLong value) {
        return new RetentionConfig(enabled, retainFor, value, interval, rateLimit, batchSize, paused);
    }

    public RetentionConfig withInterval(Duration value) {
        return new RetentionConfig(enabled, retainFor, retainVersions, value, rateLimit, batchSize, paused);
    }

    public RetentionConfig withRateLimit(long value) {
        return new RetentionConfig(enabled, retainFor, retainVersions, interval, value, batchSize, paused);
    }

    public RetentionConfig withBatchSize(int value) {
        return new RetentionConfig(enabled, retainFor, retainVersions, interval, rateLimit, value, paused);
    }

    public RetentionConfig withPaused(boolean value) {
        return new RetentionConfig(enabled, retainFor, retainVersions, interval, rateLimit, batchSize, value);
    }
}
