package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.treecat.core.version.RetentionConfig;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * {@code retention.*}: how much history the catalog keeps, and the garbage collector that removes the
 * rest (docs/storage.md, "Retention and garbage collection").
 */
public final class RetentionSettings {
    /** Keep every version current within this long before now; null (or empty) keeps by count only. */
    @JsonProperty("keep-for")
    private Duration keepFor = Duration.days(7);

    /** Keep the newest this many versions; null (the default) keeps by time only. */
    @Min(1)
    @JsonProperty("keep-versions")
    private Long keepVersions;

    @JsonProperty("gc-enabled")
    private boolean gcEnabled = true;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("gc-interval")
    private Duration gcInterval = Duration.minutes(1);

    @Min(1)
    @JsonProperty("gc-rate-limit")
    private long gcRateLimit = 100_000;

    @JsonProperty("gc-paused")
    private boolean gcPaused;

    @JsonIgnore
    @AssertTrue(message = "set retention.keep-for, retention.keep-versions, or both")
    public boolean isRetentionRuleSet() {
        return keepFor != null || keepVersions != null;
    }

    public RetentionConfig toRetentionConfig() {
        RetentionConfig defaults = RetentionConfig.defaults();
        return defaults.withRetention(
                        Optional.ofNullable(keepFor).map(Duration::toJavaDuration),
                        keepVersions == null ? OptionalLong.empty() : OptionalLong.of(keepVersions))
                .withEnabled(gcEnabled)
                .withInterval(gcInterval.toJavaDuration())
                .withRateLimit(gcRateLimit)
                .withPaused(gcPaused);
    }
}
