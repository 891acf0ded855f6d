package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.iceberg.IcebergTables;
import jakarta.validation.constraints.Min;

/** {@code iceberg.*}: how the Iceberg REST catalog commits (docs/iceberg-rest.md). */
public final class IcebergConfig {
    /**
     * Whether a commit that lost a race and commutes with what won it (an append; a row-level delta, a
     * copy-on-write change or a compaction over appends) is rebased on the server, for tables that do not say otherwise with their
     * {@code treecat.rebase-appends} property. On by default, except on merge-on-read tables whose MERGE is
     * serializable: there a MERGE that only inserted rows commits an {@code append} that validated a conflict
     * filter, which the server cannot tell from a blind append (docs/iceberg-rest.md, "Server-side retry and
     * rebase", also for the cases this guard does not see).
     */
    @JsonProperty("rebase-appends")
    private boolean rebaseAppends = true;

    /**
     * Whether {@code POST /v1/{prefix}/events} is served: the Iceberg REST events endpoint as
     * proposed, not yet in Iceberg's spec (experimental; docs/iceberg-rest.md).
     */
    @JsonProperty("events-endpoint")
    private boolean eventsEndpoint = false;

    /**
     * The most commits one table may have waiting at once on this server (running, queued for the
     * table, or waiting for their chain). One more is answered 429 with {@code Retry-After}, before
     * anything is written; Iceberg's client retries it (docs/iceberg-rest.md, "Chained appends").
     */
    @Min(1)
    @JsonProperty("max-queued-commits-per-table")
    private int maxQueuedCommitsPerTable = IcebergTables.DEFAULT_MAX_QUEUED_COMMITS_PER_TABLE;

    public int maxQueuedCommitsPerTable() {
        return maxQueuedCommitsPerTable;
    }

    public boolean eventsEndpoint() {
        return eventsEndpoint;
    }

    public boolean rebaseAppends() {
        return rebaseAppends;
    }
}
