package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;

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

    /**
     * Not planned by Spark's distributed planning (which would read the manifests with a Spark job and skip
     * the tree), as Iceberg's REST table answers for server-side planning.
     */
    @Override
    public boolean allowDistributedPlanning() {
        return false;
    }
}
