package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code purge.*}: the background deletion of dropped tables' files ({@code purgeRequested=true}), docs/object-storage.md,
 * "Purge". Off, drops still queue their purges, which wait until it is on again.
 */
public final class PurgeConfig {
    @JsonProperty("enabled")
    private boolean enabled = true;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.DAYS)
    @JsonProperty("interval")
    private Duration interval = Duration.minutes(1);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 7, unit = TimeUnit.DAYS)
    @JsonProperty("max-backoff")
    private Duration maxBackoff = Duration.hours(1);

    public boolean enabled() {
        return enabled;
    }

    /** How often the queues are read again for purges that are due (a drop with purge wakes the purger at once). */
    public java.time.Duration interval() {
        return interval.toJavaDuration();
    }

    /** The longest wait between two attempts of a failing or deferred purge. */
    public java.time.Duration maxBackoff() {
        return maxBackoff.toJavaDuration();
    }

    @JsonIgnore
    @AssertTrue(message = "purge.max-backoff must be at least purge.interval")
    public boolean isMaxBackoffAtLeastInterval() {
        return maxBackoff.toJavaDuration().compareTo(interval.toJavaDuration()) >= 0;
    }
}
