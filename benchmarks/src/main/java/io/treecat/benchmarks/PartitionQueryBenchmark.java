package io.treecat.benchmarks;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The paper's §6 file retrieval: all files of {@code store_sales} (499,776 in 1,096 date
 * partitions) for 1 day or 365 days, streamed through {@link CatalogService#openQuery}. Rows per
 * second of the 365-day query, divided by entries per second of {@link RawIteratorBenchmark}'s
 * 365-day scan, is the figure docs/benchmarks-history.md holds against the 0.5 goal.
 *
 * <p>{@code predicate=part_val} filters partitions on a value field, so every partition of the
 * table is read and tested; {@code predicate=obj_id} says the same on ids, which the planner turns
 * into iterator bounds. {@link #rows} hands each row to the blackhole without parsing its value;
 * {@link #rowsReadingField} and {@link #rowsReadingFieldByGet} also read one stats field, as a
 * planner would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class PartitionQueryBenchmark {
    @Param({"1", "365"})
    int days;

    @Param({"part_val", "obj_id"})
    String predicate;

    private CatalogService service;
    private QueryRequest request;

    @Setup
    public void open() {
        service = CatalogService.open(BenchmarkData.catalog());
        String query = predicate.equals("part_val") ? Ranges.partValQuery(days) : Ranges.objIdQuery(days);
        request = QueryRequest.of(query);
        System.out.println(System.lineSeparator() + service.explain(query));
        long rows = 0;
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                CatalogObject row = cursor.current();
                if (row.value().get("record_count").asNumber().longValue() <= 0) {
                    throw new IllegalStateException("Bad record_count in " + row.path());
                }
                rows++;
            }
        }
        if (rows != Ranges.expectedFiles(days)) {
            throw new IllegalStateException(
                    query + " returned " + rows + " rows, expected " + Ranges.expectedFiles(days));
        }
    }

    @TearDown
    public void close() {
        service.close();
    }

    @Benchmark
    public long rows(Blackhole blackhole) {
        long rows = 0;
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                blackhole.consume(cursor.current());
                rows++;
            }
        }
        return rows;
    }

    @Benchmark
    public long rowsReadingField(Blackhole blackhole) {
        long rows = 0;
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                blackhole.consume(cursor.current()
                        .value()
                        .getDocument("stats")
                        .getDocument("ss_item_sk")
                        .get("max"));
                rows++;
            }
        }
        return rows;
    }

    /**
     * The same field read with {@code get(key).asDocument()}: on a {@code RawBsonDocument} that scans
     * each level once, where {@code getDocument} scans it twice ({@code containsKey}, then {@code get}).
     */
    @Benchmark
    public long rowsReadingFieldByGet(Blackhole blackhole) {
        long rows = 0;
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                blackhole.consume(cursor.current()
                        .value()
                        .get("stats")
                        .asDocument()
                        .get("ss_item_sk")
                        .asDocument()
                        .get("max"));
                rows++;
            }
        }
        return rows;
    }
}
