package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.BatchScan;
import org.apache.iceberg.BatchScanAdapter;
import org.apache.iceberg.SparkDistributedDataScan;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.spark.sql.SparkSession;
import scala.Option;

/**
 * An Iceberg table of a TreeCat catalog whose scans are planned from the tree or from the manifests, per scan
 * ({@link PlanningScan}, {@link PlanningMode}). Everything else is the REST table's: the same operations
 * (commits, refreshes, FileIO) and metrics reporter.
 */
final class TreeCatTable extends BaseTable {
    private static final long serialVersionUID = 1L;

    /** The table as Iceberg's REST client loaded it in server planning mode: its scans ask {@code POST …/plan}. */
    private final transient Table serverPlanned;

    private final transient PlanningMode mode;

    TreeCatTable(BaseTable serverPlanned, PlanningMode mode) {
        super(serverPlanned.operations(), serverPlanned.name(), serverPlanned.reporter());
        this.serverPlanned = serverPlanned;
        this.mode = requireNonNull(mode, "mode is null");
    }

    @Override
    public TableScan newScan() {
        return new PlanningScan(this, serverPlanned.newScan(), super.newScan(), mode);
    }

    /** What Spark plans with: the server's scan, or the one Iceberg's Spark integration would make itself. */
    @Override
    public BatchScan newBatchScan() {
        return new PlanningBatchScan(this, new BatchScanAdapter(serverPlanned.newScan()), localBatchScan(), mode);
    }

    /**
     * Iceberg's own choice for Spark: its distributed planning (a Spark job reads the manifests) unless the read's
     * planning modes are {@code local} ({@code read.data-planning-mode}, {@code read.delete-planning-mode}).
     */
    private BatchScan localBatchScan() {
        Option<SparkSession> active = SparkSession.getActiveSession();
        if (active.isDefined()) {
            SparkReadConf conf = new SparkReadConf(active.get(), this, Map.of());
            if (conf.dataPlanningMode() != org.apache.iceberg.PlanningMode.LOCAL
                    || conf.deletePlanningMode() != org.apache.iceberg.PlanningMode.LOCAL) {
                return new SparkDistributedDataScan(active.get(), this, conf);
            }
        }
        return new BatchScanAdapter(super.newScan());
    }

    /**
     * Spark's scan builder would otherwise make its distributed scan itself, from the manifests, without asking
     * {@link #newBatchScan()}: the distributed scan is {@link #localBatchScan()}'s to pick, per scan.
     */
    @Override
    public boolean allowDistributedPlanning() {
        return false;
    }
}
