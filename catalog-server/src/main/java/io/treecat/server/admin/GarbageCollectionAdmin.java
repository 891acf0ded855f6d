package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.servlets.tasks.Task;
import io.treecat.core.error.CatalogException;
import io.treecat.core.version.GarbageCollector;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The garbage collector on the admin port: its gauges in the metric registry, and three Dropwizard
 * tasks, {@code POST /tasks/gc-pause}, {@code /tasks/gc-resume} and {@code /tasks/gc-run} (one pass
 * now). docs/storage.md, "Retention and garbage collection".
 */
public final class GarbageCollectionAdmin {
    private GarbageCollectionAdmin() {}

    /** Gauges read the collector of the open catalog; -1 while it is not open. */
    public static void registerGauges(MetricRegistry registry, Supplier<GarbageCollector> collector) {
        requireNonNull(registry, "registry is null");
        requireNonNull(collector, "collector is null");
        gauge(registry, "treecat.gc.horizon", collector, GarbageCollector::horizon);
        gauge(registry, "treecat.gc.lag", collector, GarbageCollector::lag);
        gauge(registry, "treecat.gc.keys-reclaimed", collector, GarbageCollector::keysReclaimed);
        gauge(registry, "treecat.gc.bytes-reclaimed", collector, GarbageCollector::bytesReclaimed);
        gauge(registry, "treecat.gc.passes", collector, GarbageCollector::passes);
        gauge(registry, "treecat.gc.last-pass-millis", collector, GarbageCollector::lastPassMillis);
        gauge(registry, "treecat.gc.pinned-reads", collector, GarbageCollector::pinnedReads);
        gauge(registry, "treecat.gc.paused", collector, running -> running.isPaused() ? 1 : 0);
        gauge(
                registry,
                "treecat.store.live-data-size",
                collector,
                running ->
                        running.storeProperty("rocksdb.estimate-live-data-size").orElse(-1));
        gauge(
                registry,
                "treecat.store.sst-files-size",
                collector,
                running -> running.storeProperty("rocksdb.total-sst-files-size").orElse(-1));
    }

    private static void gauge(
            MetricRegistry registry,
            String name,
            Supplier<GarbageCollector> collector,
            ToLongFunction<GarbageCollector> value) {
        registry.register(name, (Gauge<Long>) () -> {
            try {
                return value.applyAsLong(collector.get());
            } catch (CatalogException e) {
                return -1L;
            }
        });
    }

    /** The admin tasks: pause, resume, and run one pass now. */
    public static List<Task> tasks(Supplier<GarbageCollector> collector) {
        requireNonNull(collector, "collector is null");
        return List.of(
                new Task("gc-pause") {
                    @Override
                    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
                        collector.get().pause();
                        output.println("Garbage collection paused");
                    }
                },
                new Task("gc-resume") {
                    @Override
                    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
                        collector.get().resume();
                        output.println("Garbage collection resumed");
                    }
                },
                new Task("gc-run") {
                    @Override
                    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
                        GarbageCollector.PassResult pass = collector.get().collect();
                        output.println((pass.completed() ? "Pass completed" : "Pass stopped (paused)")
                                + ": horizon " + pass.horizon() + ", " + pass.keysDeleted() + " keys ("
                                + pass.bytesDeleted() + " bytes) deleted");
                    }
                });
    }
}
