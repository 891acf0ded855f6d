package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.treecat.core.json.JsonLimits;
import io.treecat.rest.nativeapi.BodyLimits;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code http.*}: limits of the HTTP APIs (listeners and threads are Dropwizard's {@code server.*}).
 * Every limit answers a client that passes it with a 4xx naming the key (docs/configuration.md).
 */
public final class HttpConfig {
    @NotNull
    @JsonProperty("max-request-size")
    private DataSize maxRequestSize = DataSize.mebibytes(16);

    @NotNull
    @JsonProperty("max-load-size")
    private DataSize maxLoadSize = DataSize.gibibytes(4);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("read-timeout")
    private Duration readTimeout = Duration.seconds(30);

    @Valid
    @NotNull
    @JsonProperty("json")
    private Json json = new Json();

    public BodyLimits toBodyLimits() {
        return new BodyLimits(maxRequestSize.toBytes(), maxLoadSize.toBytes(), readTimeout.toJavaDuration());
    }

    public JsonLimits toJsonLimits() {
        return json.toLimits();
    }

    /** {@code http.json.*}: what one JSON request body (or bulk-load line) may hold. */
    public static final class Json {
        @Min(1)
        @Max(JsonLimits.DEPTH_CEILING)
        @JsonProperty("max-depth")
        private int maxDepth = JsonLimits.DEFAULTS.maxDepth();

        @Min(1)
        @JsonProperty("max-string-length")
        private int maxStringLength = JsonLimits.DEFAULTS.maxStringLength();

        @Min(1)
        @JsonProperty("max-name-length")
        private int maxNameLength = JsonLimits.DEFAULTS.maxNameLength();

        @Min(1)
        @JsonProperty("max-number-length")
        private int maxNumberLength = JsonLimits.DEFAULTS.maxNumberLength();

        JsonLimits toLimits() {
            return new JsonLimits(maxDepth, maxStringLength, maxNameLength, maxNumberLength);
        }
    }
}
