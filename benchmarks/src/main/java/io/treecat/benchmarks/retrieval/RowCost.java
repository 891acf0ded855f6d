package io.treecat.benchmarks.retrieval;

import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.exec.QueryExecutor;
import io.treecat.core.query.exec.QueryOptions;
import io.treecat.core.query.exec.ScanListener;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.VersionedTree;
import io.treecat.grpc.WireFormat;
import io.treecat.grpc.v1.QueryBatch;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The server's share of a whole-table path query without the network: the executor, the projection and the
 * protobuf encoding of every row, on this thread, in CPU per row. Run it on the store a retrieval run keeps
 * ({@code benchmarks/run.sh --keep-work small retrieval}, then {@code <out>/work/retrieval/server-50000/data}, no
 * server running on it):
 *
 * <pre>{@code
 * java -Xmx4g -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.retrieval.RowCost <data dir> [rounds]
 * }</pre>
 *
 * <p>It prints, per pass after the first (the warm-up): {@code ids} (rows read and their paths made, values
 * untouched), {@code projected} (with {@link FileRetrievalExperiment}'s planning projection) and {@code wire} (also
 * encoded as the batches the gRPC service sends). A figure to compare builds with, one at a time on a quiet machine:
 * thread CPU leaves out the collector and the JIT, so it moves less than wall time does here.
 */
public final class RowCost {
    private RowCost() {}

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: RowCost <data dir of a retrieval server> [rounds]");
            System.exit(2);
        }
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        long first = FileRetrievalExperiment.FIRST_DAY.toEpochDay();
        long last = LocalDate.ofEpochDay(first)
                .plusDays(FileRetrievalExperiment.DAYS - 1)
                .toEpochDay();
        String query = "/[obj_id='" + FileRetrievalExperiment.CATALOG + "']/[obj_id='db']/[obj_id='events']"
                + "/[part_val.day >= " + first + " and part_val.day <= " + last + "]/*";
        QueryPlan plan = QueryPlanner.plan(QueryParser.parse(query));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(Path.of(args[0])))) {
            QueryExecutor executor = new QueryExecutor(tree);
            for (int pass = 0; pass < 3; pass++) {
                for (String mode : List.of("ids", "projected", "wire")) {
                    List<String> projection = mode.equals("ids") ? List.of() : FileRetrievalExperiment.PLANNED_FIELDS;
                    long cpu = 0;
                    long rows = 0;
                    long sink = 0;
                    for (int round = 0; round < rounds; round++) {
                        QueryOptions options = new QueryOptions(
                                tree.lastVid(), ChildKinds.LEAVES, projection, Optional.empty(), ScanListener.NONE);
                        long start = threads.getCurrentThreadCpuTime();
                        try (QueryCursor cursor = executor.execute(plan, options)) {
                            QueryBatch.Builder batch = QueryBatch.newBuilder();
                            while (cursor.advance()) {
                                rows++;
                                if (mode.equals("ids")) {
                                    sink += cursor.current().path().depth();
                                } else if (mode.equals("projected")) {
                                    // The projection is made by advance(); reading it would decode it.
                                    sink += cursor.current().value() == null ? 0 : 1;
                                } else {
                                    batch.addObjects(WireFormat.object(cursor.current()));
                                    if (batch.getObjectsCount() == 1000) {
                                        sink += batch.build().toByteArray().length;
                                        batch = QueryBatch.newBuilder();
                                    }
                                }
                            }
                            sink += batch.build().toByteArray().length;
                        }
                        cpu += threads.getCurrentThreadCpuTime() - start;
                    }
                    if (pass > 0) {
                        System.out.printf(
                                Locale.ROOT,
                                "%-9s %.3f µs per row (%,d rows a query; checksum %d, printed so the work is kept)%n",
                                mode,
                                cpu / 1e3 / rows,
                                rows / rounds,
                                sink);
                    }
                }
            }
        }
    }
}
