package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code iceberg.*}: how the Iceberg REST catalog commits (docs/iceberg-rest.md). */
public final class IcebergConfig {
    /**
     * Whether an append that lost a race is rebased on the server for tables that do not say
     * otherwise with their {@code treecat.rebase-appends} property. Off by default: only the writers
     * know their appends are blind (docs/iceberg-rest.md, "Server-side retry and rebase").
     */
    @JsonProperty("rebase-appends")
    private boolean rebaseAppends = false;

    /**
     * Whether {@code POST /v1/{prefix}/events} is served: the Iceberg REST events endpoint as
     * proposed, not yet in Iceberg's spec (experimental; docs/iceberg-rest.md).
     */
    @JsonProperty("events-endpoint")
    private boolean eventsEndpoint = false;

    public boolean eventsEndpoint() {
        return eventsEndpoint;
    }

    public boolean rebaseAppends() {
        return rebaseAppends;
    }
}
