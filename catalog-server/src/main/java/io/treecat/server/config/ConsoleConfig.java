package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code console.*}: the web console, served under {@code /ui} on the application port (docs/console.md). It is
 * static files only: every page reads the lake through the native JSON API and Iceberg REST, with the signed-in
 * user's token, so it sees exactly what that user may see and adds no route a script could not use.
 */
public final class ConsoleConfig {
    @JsonProperty("enabled")
    private boolean enabled = true;

    public boolean enabled() {
        return enabled;
    }
}
