package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.treecat.core.feed.ChangeFeed;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code feed.*}: the change feed (gRPC {@code Subscribe}, JSON {@code GET /treecat/v1/changes}).
 * A subscriber over the limit is refused with gRPC RESOURCE_EXHAUSTED (HTTP 429) naming the key.
 */
public final class FeedConfig {
    @Min(1)
    @Max(100_000)
    @JsonProperty("max-subscribers")
    private int maxSubscribers = ChangeFeed.DEFAULT_MAX_SUBSCRIBERS;

    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.HOURS)
    @JsonProperty("max-wait")
    private Duration maxWait = Duration.seconds(60);

    /** Open gRPC streams and waiting long polls together. */
    public int maxSubscribers() {
        return maxSubscribers;
    }

    /** The longest a long poll waits; a longer {@code wait} is cut to it. */
    public java.time.Duration maxWait() {
        return maxWait.toJavaDuration();
    }
}
