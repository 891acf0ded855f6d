package io.treecat.server;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.lifecycle.Managed;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.maintenance.TablePurger;
import io.treecat.server.config.PurgeConfig;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;

/**
 * The {@link TablePurger}, started after the catalog opened and stopped before it closes (Dropwizard stops managed
 * objects in reverse order), with its gauges {@code treecat.purge.*}. With {@code purge.enabled: false} it never
 * starts: drops still queue their purges, which wait.
 */
final class PurgeLifecycle implements Managed {
    private final TablePurger purger;
    private final boolean enabled;

    /** @param active whether this server runs the passes now: in a replicated group, only while it leads */
    PurgeLifecycle(Lakehouse lake, PurgeConfig config, MetricRegistry metrics, BooleanSupplier active) {
        requireNonNull(config, "config is null");
        this.purger = new TablePurger(
                lake.forInterface("purge"), Clock.systemUTC(), config.interval(), config.maxBackoff(), active);
        this.enabled = config.enabled();
        gauge(metrics, "treecat.purge.queued", TablePurger.Stats::queued);
        gauge(metrics, "treecat.purge.completed", TablePurger.Stats::completed);
        gauge(metrics, "treecat.purge.deferred", TablePurger.Stats::deferred);
        gauge(metrics, "treecat.purge.failed-attempts", TablePurger.Stats::failedAttempts);
        gauge(metrics, "treecat.purge.files-deleted", TablePurger.Stats::filesDeleted);
    }

    private void gauge(MetricRegistry metrics, String name, ToLongFunction<TablePurger.Stats> value) {
        metrics.register(name, (Gauge<Long>) () -> value.applyAsLong(purger.stats()));
    }

    /** What a drop with purge calls once it committed. */
    Runnable wake() {
        return purger::wake;
    }

    @Override
    public void start() {
        if (enabled) {
            purger.start();
        }
    }

    @Override
    public void stop() {
        purger.close();
    }
}
