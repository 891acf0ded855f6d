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
 * The files of one plan task ({@link ScanPlanner#tasks}): its file scan tasks, the delete files
 * they reference, and the table's partition specs, which the files name by id.
 */
public record ScanTasks(
        List<FileScanTask> fileScanTasks, List<DeleteFile> deleteFiles, Map<Integer, PartitionSpec> specsById) {
    public ScanTasks {
        fileScanTasks = List.copyOf(requireNonNull(fileScanTasks, "fileScanTasks is null"));
        deleteFiles = List.copyOf(requireNonNull(deleteFiles, "deleteFiles is null"));
        specsById = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(specsById, "specsById is null")));
    }
}
