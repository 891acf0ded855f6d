package io.treecat.benchmarks.iceberg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.LoadTableResponse;
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
 * What Iceberg's Java client does with a commit's answer, whatever the catalog: the answer is the table's whole
 * metadata ({@code LoadTableResponse}), gunzipped and parsed into {@code TableMetadata} before the commit call
 * returns. This is the part of a "commit request" figure (issue 19, {@code RestHotPathBenchmark}) that no server can
 * take away: {@link #parse} is Iceberg's parser as its {@code HTTPClient} runs it (Jackson with
 * {@code RESTSerializers}), {@link #gunzip} the inflation of a body compressed at the fastest level, as TreeCat sends
 * it, and {@link #gzip} that compression, the server's side of it. The table: {@code snapshots} one-file appends
 * ({@link SyntheticHistory}; {@code RestHotPathBenchmark}'s hot table holds about 600 by its last round).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class CommitAnswerBenchmark {
    @Param({"20", "600", "1000"})
    public int snapshots;

    private byte[] json;
    private byte[] gzipped;
    private com.fasterxml.jackson.databind.ObjectMapper mapper;

    @Setup
    public void build() throws IOException {
        TableMetadata table = SyntheticHistory.appends("file:/warehouse/bench/hot", snapshots);
        mapper = JsonUtil.mapper().copy();
        RESTSerializers.registerAll(mapper);
        LoadTableResponse response = LoadTableResponse.builder()
                .withTableMetadata(TableMetadata.buildFrom(table)
                        .discardChanges()
                        .withMetadataLocation("file:/warehouse/bench/hot/metadata/00001.metadata.json")
                        .build())
                .build();
        json = mapper.writeValueAsString(response).getBytes(StandardCharsets.UTF_8);
        gzipped = gzip();
        System.out.printf("%n%d snapshots: answer %d bytes, %d gzipped%n", snapshots, json.length, gzipped.length);
    }

    @Benchmark
    public LoadTableResponse parse() throws IOException {
        return mapper.readValue(json, LoadTableResponse.class);
    }

    @Benchmark
    public byte[] gunzip() throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped), 8192)) {
            return in.readAllBytes();
        }
    }

    @Benchmark
    public byte[] gzip() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 8);
        try (GZIPOutputStream zip = new GZIPOutputStream(out, 8192) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            zip.write(json);
        }
        return out.toByteArray();
    }
}
