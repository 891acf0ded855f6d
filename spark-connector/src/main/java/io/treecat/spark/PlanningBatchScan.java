package io.treecat.spark;

import org.apache.iceberg.BatchScan;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Spark's batch scan planned by TreeCat or from the manifests ({@link PlanningScans}); from the manifests it is
 * the scan Iceberg's Spark integration would make itself, distributed planning included.
 */
final class PlanningBatchScan extends PlanningScans<BatchScan, ScanTask, ScanTaskGroup<ScanTask>> implements BatchScan {
    PlanningBatchScan(Table table, BatchScan server, BatchScan local, PlanningMode mode) {
        super(table, server, local, mode);
    }

    @Override
    BatchScan with(BatchScan refinedServer, BatchScan refinedLocal) {
        return new PlanningBatchScan(table, refinedServer, refinedLocal, mode);
    }

    @Override
    public Table table() {
        return table;
    }

    @Override
    public BatchScan useSnapshot(long snapshotId) {
        return with(server.useSnapshot(snapshotId), local.useSnapshot(snapshotId));
    }

    @Override
    public BatchScan useRef(String ref) {
        return with(server.useRef(ref), local.useRef(ref));
    }

    @Override
    public BatchScan asOfTime(long timestampMillis) {
        return with(server.asOfTime(timestampMillis), local.asOfTime(timestampMillis));
    }

    @Override
    public Snapshot snapshot() {
        return local.snapshot();
    }
}
