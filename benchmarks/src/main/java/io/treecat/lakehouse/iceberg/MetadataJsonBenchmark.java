package io.treecat.lakehouse.iceberg;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import io.treecat.benchmarks.iceberg.SyntheticHistory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
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
 * A commit's metadata file JSON for a table of {@code snapshots} one-file appends ({@link SyntheticHistory}):
 * {@link #iceberg} is Iceberg's serializer over every snapshot (what a commit cost before), {@link #treecat} is
 * {@link MetadataJson}, which splices in the snapshots a commit before already encoded (in the measured loop every
 * snapshot has been encoded once, as on a server that has committed to the table). The same bytes either way
 * ({@code TestMetadataJson}). In this package because {@code MetadataJson} is the lakehouse's own.
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
        metadata = SyntheticHistory.appends("file:/warehouse/db/events", snapshots);
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
