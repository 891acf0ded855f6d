package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.treecat.core.txn.ConcurrencyProtocol;
import io.treecat.core.txn.TransactionConfig;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** {@code transactions.*}: the concurrency protocol and session timeouts (docs/transactions.md). */
public final class TransactionsConfig {
    @NotNull
    @JsonProperty("protocol")
    private ConcurrencyProtocol protocol = ConcurrencyProtocol.OSPL;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("idle-timeout")
    private Duration idleTimeout = Duration.minutes(5);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("lock-timeout")
    private Duration lockTimeout = Duration.seconds(10);

    @Min(1)
    @JsonProperty("max-tracked-changes")
    private int maxTrackedChanges = TransactionConfig.DEFAULT_MAX_TRACKED_CHANGES;

    public TransactionConfig toTransactionConfig() {
        return TransactionConfig.defaults()
                .withProtocol(protocol)
                .withIdleTimeout(idleTimeout.toJavaDuration())
                .withLockTimeout(lockTimeout.toJavaDuration())
                .withMaxTrackedChanges(maxTrackedChanges);
    }
}
