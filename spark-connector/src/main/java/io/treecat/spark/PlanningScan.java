package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * A table scan that is planned by TreeCat or from the manifests, decided when it is planned
 * ({@link PlanningMode}), once the filter is known. It carries both scans and refines them alike; each
 * refinement answers a new scan, as Iceberg's scans do.
 */
final class PlanningScan implements TableScan {
    private final Table table;
    private final TableScan server;
    private final TableScan local;
    private final PlanningMode mode;
    /** The scan that planned, once {@link #planFiles()} or {@link #planTasks()} ran: its FileIO reads the files. */
    private volatile TableScan planned;

    PlanningScan(Table table, TableScan server, TableScan local, PlanningMode mode) {
        this.table = requireNonNull(table, "table is null");
        this.server = requireNonNull(server, "server is null");
        this.local = requireNonNull(local, "local is null");
        this.mode = requireNonNull(mode, "mode is null");
    }

    private PlanningScan with(TableScan refinedServer, TableScan refinedLocal) {
        return new PlanningScan(table, refinedServer, refinedLocal, mode);
    }

    /** The scan that plans this one: the server's or the manifests'. */
    TableScan chosen() {
        return mode.plansOnServer(table, local.filter(), local.isCaseSensitive()) ? server : local;
    }

    @Override
    public CloseableIterable<FileScanTask> planFiles() {
        TableScan scan = chosen();
        planned = scan;
        return scan.planFiles();
    }

    @Override
    public CloseableIterable<CombinedScanTask> planTasks() {
        TableScan scan = chosen();
        planned = scan;
        return scan.planTasks();
    }

    @Override
    public Supplier<FileIO> fileIO() {
        TableScan scan = planned;
        return scan != null ? scan.fileIO() : chosen().fileIO();
    }

    @Override
    public Table table() {
        return table;
    }

    @Override
    public TableScan useSnapshot(long snapshotId) {
        return with(server.useSnapshot(snapshotId), local.useSnapshot(snapshotId));
    }

    @Override
    public TableScan useRef(String ref) {
        return with(server.useRef(ref), local.useRef(ref));
    }

    @Override
    public TableScan asOfTime(long timestampMillis) {
        return with(server.asOfTime(timestampMillis), local.asOfTime(timestampMillis));
    }

    @Override
    public TableScan appendsBetween(long fromSnapshotId, long toSnapshotId) {
        return local.appendsBetween(fromSnapshotId, toSnapshotId);
    }

    @Override
    public TableScan appendsAfter(long fromSnapshotId) {
        return local.appendsAfter(fromSnapshotId);
    }

    @Override
    public Snapshot snapshot() {
        return local.snapshot();
    }

    @Override
    public TableScan option(String property, String value) {
        return with(server.option(property, value), local.option(property, value));
    }

    @Override
    public TableScan project(Schema schema) {
        return with(server.project(schema), local.project(schema));
    }

    @Override
    public TableScan caseSensitive(boolean caseSensitive) {
        return with(server.caseSensitive(caseSensitive), local.caseSensitive(caseSensitive));
    }

    @Override
    public boolean isCaseSensitive() {
        return local.isCaseSensitive();
    }

    @Override
    public TableScan includeColumnStats() {
        return with(server.includeColumnStats(), local.includeColumnStats());
    }

    @Override
    public TableScan includeColumnStats(Collection<String> requestedColumns) {
        return with(server.includeColumnStats(requestedColumns), local.includeColumnStats(requestedColumns));
    }

    @Override
    public TableScan select(Collection<String> columns) {
        return with(server.select(columns), local.select(columns));
    }

    @Override
    public TableScan filter(Expression expr) {
        return with(server.filter(expr), local.filter(expr));
    }

    @Override
    public Expression filter() {
        return local.filter();
    }

    @Override
    public TableScan ignoreResiduals() {
        return with(server.ignoreResiduals(), local.ignoreResiduals());
    }

    @Override
    public TableScan planWith(ExecutorService executorService) {
        return with(server.planWith(executorService), local.planWith(executorService));
    }

    @Override
    public TableScan metricsReporter(MetricsReporter reporter) {
        return with(server.metricsReporter(reporter), local.metricsReporter(reporter));
    }

    @Override
    public TableScan minRowsRequested(long numRows) {
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
