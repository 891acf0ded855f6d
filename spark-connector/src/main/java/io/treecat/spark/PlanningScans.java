package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.apache.iceberg.Scan;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * A scan that is planned by TreeCat or from the manifests, decided when it is planned ({@link PlanningMode}),
 * once the filter is known. It carries both scans and refines them alike; each refinement answers a new scan,
 * as Iceberg's scans do. {@link PlanningScan} is the table scan, {@link PlanningBatchScan} Spark's batch scan.
 */
abstract class PlanningScans<T extends Scan<T, F, G>, F extends ScanTask, G extends ScanTaskGroup<F>>
        implements Scan<T, F, G> {
    final Table table;
    final T server;
    final T local;
    final PlanningMode mode;
    /** The scan that planned, once {@link #planFiles()} or {@link #planTasks()} ran: its FileIO reads the files. */
    private volatile T planned;

    PlanningScans(Table table, T server, T local, PlanningMode mode) {
        this.table = requireNonNull(table, "table is null");
        this.server = requireNonNull(server, "server is null");
        this.local = requireNonNull(local, "local is null");
        this.mode = requireNonNull(mode, "mode is null");
    }

    /** This kind of scan over the refined pair. */
    abstract T with(T refinedServer, T refinedLocal);

    /** The scan that plans this one: the server's or the manifests'. */
    T chosen() {
        return mode.plansOnServer(table, local.filter(), local.isCaseSensitive()) ? server : local;
    }

    @Override
    public CloseableIterable<F> planFiles() {
        T scan = chosen();
        planned = scan;
        return scan.planFiles();
    }

    @Override
    public CloseableIterable<G> planTasks() {
        T scan = chosen();
        planned = scan;
        return scan.planTasks();
    }

    @Override
    public Supplier<FileIO> fileIO() {
        T scan = planned;
        return scan != null ? scan.fileIO() : chosen().fileIO();
    }

    @Override
    public T option(String property, String value) {
        return with(server.option(property, value), local.option(property, value));
    }

    @Override
    public T project(Schema schema) {
        return with(server.project(schema), local.project(schema));
    }

    @Override
    public T caseSensitive(boolean caseSensitive) {
        return with(server.caseSensitive(caseSensitive), local.caseSensitive(caseSensitive));
    }

    @Override
    public boolean isCaseSensitive() {
        return local.isCaseSensitive();
    }

    @Override
    public T includeColumnStats() {
        return with(server.includeColumnStats(), local.includeColumnStats());
    }

    @Override
    public T includeColumnStats(Collection<String> requestedColumns) {
        return with(server.includeColumnStats(requestedColumns), local.includeColumnStats(requestedColumns));
    }

    @Override
    public T select(Collection<String> columns) {
        return with(server.select(columns), local.select(columns));
    }

    @Override
    public T filter(Expression expr) {
        return with(server.filter(expr), local.filter(expr));
    }

    @Override
    public Expression filter() {
        return local.filter();
    }

    @Override
    public T ignoreResiduals() {
        return with(server.ignoreResiduals(), local.ignoreResiduals());
    }

    @Override
    public T planWith(ExecutorService executorService) {
        return with(server.planWith(executorService), local.planWith(executorService));
    }

    @Override
    public T metricsReporter(MetricsReporter reporter) {
        return with(server.metricsReporter(reporter), local.metricsReporter(reporter));
    }

    @Override
    public T minRowsRequested(long numRows) {
        return with(server.minRowsRequested(numRows), local.minRowsRequested(numRows));
    }

    @Override
    public Schema schema() {
        return local.schema();
    }

    @Override
    public long targetSplitSize() {
        return local.targetSplitSize();
    }

    @Override
    public int splitLookback() {
        return local.splitLookback();
    }

    @Override
    public long splitOpenFileCost() {
        return local.splitOpenFileCost();
    }
}
