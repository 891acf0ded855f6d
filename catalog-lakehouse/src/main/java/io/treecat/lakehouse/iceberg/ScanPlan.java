package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;

/**
 * A planned scan ({@link ScanPlanner#plan}): either its file scan tasks, with the delete files they
 * reference, or, when it matches too many partitions, plan tasks (opaque tokens, each planned by
 * {@link ScanPlanner#tasks}) and no files.
 *
 * @param specsById the table's partition specs, which the tasks' files name by id
 */
public record ScanPlan(
        Status status,
        List<String> planTasks,
        List<FileScanTask> fileScanTasks,
        List<DeleteFile> deleteFiles,
        Map<Integer, PartitionSpec> specsById) {
    /** Plans are answered when they are submitted and none is kept, so a plan is always complete. */
    public enum Status {
        COMPLETED
    }

    public ScanPlan {
        requireNonNull(status, "status is null");
        planTasks = List.copyOf(requireNonNull(planTasks, "planTasks is null"));
        fileScanTasks = List.copyOf(requireNonNull(fileScanTasks, "fileScanTasks is null"));
        deleteFiles = List.copyOf(requireNonNull(deleteFiles, "deleteFiles is null"));
        specsById = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(specsById, "specsById is null")));
        if (!planTasks.isEmpty() && !fileScanTasks.isEmpty()) {
            throw new IllegalArgumentException("A plan answers either plan tasks or file scan tasks");
        }
    }

    /** Whether the plan was split into plan tasks (its files are then fetched task by task). */
    public boolean split() {
        return !planTasks.isEmpty();
    }
}
