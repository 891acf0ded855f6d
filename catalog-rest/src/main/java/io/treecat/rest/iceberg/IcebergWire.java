package io.treecat.rest.iceberg;

import io.treecat.lakehouse.iceberg.NewTable;
import io.treecat.lakehouse.iceberg.NewView;
import io.treecat.lakehouse.iceberg.ScanPlan;
import io.treecat.lakehouse.iceberg.ScanRequest;
import io.treecat.lakehouse.iceberg.ScanTasks;
import io.treecat.lakehouse.iceberg.TableChange;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.PlanStatus;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.PlanTableScanRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;

/**
 * Iceberg's REST requests as the lakehouse's records, and the lakehouse's answers as Iceberg's REST
 * responses: the lakehouse knows no wire format. The requests arrive validated ({@link IcebergBodies#read}).
 * Public for in-process callers that measure what a client gets (the benchmarks).
 */
public final class IcebergWire {
    private IcebergWire() {}

    /**
     * The table a create asks for. Its partition spec and sort order are bound to its schema here; a
     * transform that does not apply to its column's type ({@code truncate} of a map) is Iceberg's
     * UnsupportedOperationException, the client's mistake: 400.
     */
    public static NewTable table(CreateTableRequest request) {
        try {
            return new NewTable(
                    request.name(),
                    request.schema(),
                    request.spec(),
                    request.writeOrder(),
                    request.location(),
                    request.properties());
        } catch (UnsupportedOperationException e) {
            throw new BadRequestException(e, "Invalid partition spec or sort order: %s", e.getMessage());
        }
    }

    public static NewView view(CreateViewRequest request) {
        return new NewView(
                request.name(), request.schema(), request.viewVersion(), request.location(), request.properties());
    }

    /** A commit's change to the table (or view) at {@code identifier}, whatever the body names (the caller has compared them). */
    public static TableChange change(TableIdentifier identifier, UpdateTableRequest request) {
        return new TableChange(identifier, request.requirements(), request.updates());
    }

    public static TableChange change(UpdateTableRequest request) {
        return change(request.identifier(), request);
    }

    public static ScanRequest scan(PlanTableScanRequest request) {
        return new ScanRequest(
                request.snapshotId(),
                request.filter(),
                request.caseSensitive(),
                request.select(),
                request.useSnapshotSchema(),
                request.statsFields(),
                request.startSnapshotId(),
                request.endSnapshotId());
    }

    /** A split plan answers its plan tasks and no file lists; any other, its files (both lists, even empty). */
    public static PlanTableScanResponse response(ScanPlan plan) {
        PlanTableScanResponse.Builder response = PlanTableScanResponse.builder().withPlanStatus(status(plan.status()));
        if (plan.split()) {
            response.withPlanTasks(plan.planTasks());
        } else {
            response.withFileScanTasks(plan.fileScanTasks()).withDeleteFiles(plan.deleteFiles());
        }
        return response.withSpecsById(plan.specsById()).build();
    }

    public static FetchScanTasksResponse response(ScanTasks tasks) {
        return FetchScanTasksResponse.builder()
                .withFileScanTasks(tasks.fileScanTasks())
                .withDeleteFiles(tasks.deleteFiles())
                .withSpecsById(tasks.specsById())
                .build();
    }

    private static PlanStatus status(ScanPlan.Status status) {
        return switch (status) {
            case COMPLETED -> PlanStatus.COMPLETED;
        };
    }
}
