package io.treecat.spark;

import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;

/** A table scan planned by TreeCat or from the manifests ({@link PlanningScans}). */
final class PlanningScan extends PlanningScans<TableScan, FileScanTask, CombinedScanTask> implements TableScan {
    PlanningScan(Table table, TableScan server, TableScan local, PlanningMode mode) {
        super(table, server, local, mode);
    }

    @Override
    TableScan with(TableScan refinedServer, TableScan refinedLocal) {
        return new PlanningScan(table, refinedServer, refinedLocal, mode);
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

    /** Incremental scans are planned from the manifests (TreeCat's {@code /plan} answers them too; not wired yet). */
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
}
