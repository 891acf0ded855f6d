package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.treecat.rest.nativeapi.BodyLimits;
import jakarta.validation.constraints.NotNull;

/** {@code http.*}: limits of the HTTP APIs (listeners and threads are Dropwizard's {@code server.*}). */
public final class HttpConfig {
    @NotNull
    @JsonProperty("max-request-size")
    private DataSize maxRequestSize = DataSize.mebibytes(16);

    @NotNull
    @JsonProperty("max-load-size")
    private DataSize maxLoadSize = DataSize.gibibytes(4);

    public BodyLimits toBodyLimits() {
        return new BodyLimits(maxRequestSize.toBytes(), maxLoadSize.toBytes());
    }
}
