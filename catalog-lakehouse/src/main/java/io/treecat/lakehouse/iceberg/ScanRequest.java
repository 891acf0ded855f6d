package io.treecat.lakehouse.iceberg;

import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * A scan to plan ({@link ScanPlanner#plan}): the options of Iceberg's {@code TableScan} that change
 * which files are planned and how they are described.
 *
 * @param snapshotId the snapshot to scan; null for the table's current one
 * @param filter the row filter; {@code alwaysTrue} when null
 * @param select the columns read, null or empty for all (checked against the schema only)
 * @param useSnapshotSchema whether columns are resolved in the snapshot's schema rather than the table's
 * @param statsFields the columns whose stats the planned data files keep; null or empty for none
 *     (null and empty are kept apart: plan-task tokens carry what was given)
 * @param startSnapshotId with {@code endSnapshotId}: an incremental scan of the appends after it
 * @param endSnapshotId the last snapshot of an incremental scan
 */
public record ScanRequest(
        Long snapshotId,
        Expression filter,
        boolean caseSensitive,
        List<String> select,
        boolean useSnapshotSchema,
        List<String> statsFields,
        Long startSnapshotId,
        Long endSnapshotId) {
    public ScanRequest {
        filter = filter == null ? Expressions.alwaysTrue() : filter;
        select = select == null ? null : List.copyOf(select);
        statsFields = statsFields == null ? null : List.copyOf(statsFields);
    }

    /** A case-sensitive scan of the current snapshot with {@code filter}. */
    public static ScanRequest of(Expression filter) {
        return new ScanRequest(null, filter, true, null, false, null, null, null);
    }

    boolean incremental() {
        return startSnapshotId != null || endSnapshotId != null;
    }
}
