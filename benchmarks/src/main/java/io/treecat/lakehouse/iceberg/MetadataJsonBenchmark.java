package io.treecat.lakehouse.iceberg;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A commit's metadata file JSON for a table of {@code snapshots} snapshots, each with the summary a Spark append
 * writes: {@link #iceberg} is Iceberg's serializer over every snapshot (what a commit cost before), {@link
 * #treecat} is {@link MetadataJson}, which splices in the snapshots a commit before already encoded (in the
 * measured loop every snapshot has been encoded once, as on a server that has committed to the table). The same
 * bytes either way ({@code TestMetadataJson}). In this package because {@code MetadataJson} is the lakehouse's own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class MetadataJsonBenchmark {
    @Param({"1000", "5000"})
    public int snapshots;

    private TableMetadata metadata;

    @Setup
    public void build() {
        Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        TableMetadata table = TableMetadata.newTableMetadata(
                schema,
                PartitionSpec.unpartitioned(),
                SortOrder.unsorted(),
                "file:/warehouse/db/events",
                Map.of("format-version", "2"));
        for (long id = 1; id <= snapshots; id++) {
            String parent = id == 1 ? "" : "\"parent-snapshot-id\":" + (id - 1) + ",";
            Snapshot snapshot = SnapshotParser.fromJson("{\"snapshot-id\":" + id + "," + parent
                    + "\"sequence-number\":" + id + ",\"timestamp-ms\":" + (1_700_000_000_000L + id)
                    + ",\"manifest-list\":\"file:/warehouse/db/events/metadata/snap-" + id
                    + "-1-0b7a4c8e-1f2d-4c1e-9a8b-3c5d6e7f8091.avro\",\"summary\":{\"operation\":\"append\","
                    + "\"spark.app.id\":\"local-1700000000000\",\"added-data-files\":\"1\",\"added-records\":\"1\","
                    + "\"added-files-size\":\"650\",\"changed-partition-count\":\"1\",\"total-records\":\"" + id
                    + "\",\"total-files-size\":\"" + id * 650 + "\",\"total-data-files\":\"" + id
                    + "\",\"total-delete-files\":\"0\",\"total-position-deletes\":\"0\","
                    + "\"total-equality-deletes\":\"0\",\"iceberg-version\":\"Apache Iceberg 1.11.0\"},"
                    + "\"schema-id\":0}");
            table = TableMetadata.buildFrom(table)
                    .addSnapshot(snapshot)
                    .setRef(
                            SnapshotRef.MAIN_BRANCH,
                            SnapshotRef.branchBuilder(id).build())
                    .build();
        }
        metadata = table;
        MetadataJson.of(metadata); // every snapshot encoded once, as the commits that added them did
    }

    @Benchmark
    public byte[] iceberg() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try (JsonGenerator generator = JsonUtil.factory().createGenerator(out, JsonEncoding.UTF8)) {
            TableMetadataParser.toJson(metadata, generator);
        }
        return out.toByteArray();
    }

    @Benchmark
    public byte[] treecat() {
        return MetadataJson.of(metadata);
    }
}
