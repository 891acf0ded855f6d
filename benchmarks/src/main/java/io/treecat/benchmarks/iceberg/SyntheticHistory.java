package io.treecat.benchmarks.iceberg;

import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.types.Types;

/**
 * A format 2 table's metadata after a run of one-file appends, built in memory for the JMH benchmarks of what
 * grows with a table's history (its metadata JSON): each snapshot the child of the one before, with its own manifest
 * list and the summary Iceberg's Java client writes for a one-file append.
 */
public final class SyntheticHistory {
    private SyntheticHistory() {}

    /** The metadata of a table at {@code location} after {@code snapshots} appends. */
    public static TableMetadata appends(String location, int snapshots) {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "data", Types.StringType.get()));
        TableMetadata table = TableMetadata.newTableMetadata(
                schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(), location, Map.of("format-version", "2"));
        for (long id = 1; id <= snapshots; id++) {
            String parent = id == 1 ? "" : "\"parent-snapshot-id\":" + (id - 1) + ",";
            Snapshot snapshot = SnapshotParser.fromJson("{\"snapshot-id\":" + id + "," + parent
                    + "\"sequence-number\":" + id + ",\"timestamp-ms\":" + (1_700_000_000_000L + id)
                    + ",\"manifest-list\":\"" + location + "/metadata/snap-" + id
                    + "-1-0b7a4c8e-1f2d-4c1e-9a8b-3c5d6e7f8091.avro\",\"summary\":{\"operation\":\"append\","
                    + "\"added-data-files\":\"1\",\"added-records\":\"1\",\"added-files-size\":\"650\","
                    + "\"changed-partition-count\":\"1\",\"total-records\":\"" + id + "\",\"total-files-size\":\""
                    + id * 650 + "\",\"total-data-files\":\"" + id + "\",\"total-delete-files\":\"0\","
                    + "\"total-position-deletes\":\"0\",\"total-equality-deletes\":\"0\","
                    + "\"iceberg-version\":\"Apache Iceberg 1.11.0\"},\"schema-id\":0}");
            table = TableMetadata.buildFrom(table)
                    .addSnapshot(snapshot)
                    .setRef(
                            SnapshotRef.MAIN_BRANCH,
                            SnapshotRef.branchBuilder(id).build())
                    .build();
        }
        return table;
    }
}
