package io.treecat.benchmarks.grpc;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.GrpcServerConfig;
import io.treecat.grpc.TreeCatGrpcServer;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.TreeCatClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;

/**
 * The cost of the gRPC layer (issue 4): the same point read, one-partition query and one-leaf commit
 * in-process through {@link CatalogService} and through {@link TreeCatClient} over loopback TCP to a
 * {@link TreeCatGrpcServer} in the same JVM. Prints p50/p99 of each and the gRPC ÷ in-process ratio.
 *
 * <p>Usage: {@code GrpcOverhead [samples]} (default 3000 after 1000 warm-up calls of each).
 */
public final class GrpcOverhead {
    private static final int FILES = 456;

    private GrpcOverhead() {}

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        Path directory = Files.createTempDirectory("treecat-grpc-overhead");
        try (CatalogService catalog = CatalogService.open(directory.resolve("data"));
                TreeCatGrpcServer server = new TreeCatGrpcServer(
                        catalog,
                        GrpcServerConfig.defaults().withHost("127.0.0.1").withPort(0))) {
            server.start();
            List<WriteOp> setup = new ArrayList<>();
            setup.add(new WriteOp.Add(
                    ObjectPath.of("tpcds"), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'database'}")));
            setup.add(new WriteOp.Add(
                    ObjectPath.of("tpcds", "store_sales"),
                    ObjectKind.INNER,
                    BsonDocument.parse("{obj_type: 'table'}")));
            ObjectPath partition = ObjectPath.of("tpcds", "store_sales", "date=1999-06-01");
            setup.add(new WriteOp.Add(partition, ObjectKind.INNER, BsonDocument.parse("{part_val: '1999-06-01'}")));
            for (int i = 0; i < FILES; i++) {
                setup.add(new WriteOp.Add(
                        partition.child(String.format("part-%05d.parquet", i)),
                        ObjectKind.LEAF,
                        BsonDocument.parse("{location: 'file:/warehouse/store_sales/date=1999-06-01/part-" + i
                                + ".parquet', file_size: 1048576, record_count: 10000," + " stats: {ss_item_sk: {min: "
                                + i + ", max: " + (i + 1000) + "}, ss_sales_price: {min: 0.5, max: 199.5}}}")));
            }
            catalog.commit(new WriteSet(setup));
            ObjectPath table = ObjectPath.of("tpcds", "store_sales");
            String query = "/[obj_id='tpcds']/[obj_id='store_sales']/[obj_id='date=1999-06-01']/*";

            try (TreeCatClient client = TreeCatClient.connect("127.0.0.1:" + server.port())) {
                long[] counter = {0};
                LongSupplier localGet =
                        () -> catalog.get(table, ReadPoint.LATEST).orElseThrow().version();
                LongSupplier remoteGet = () -> client.get(table).orElseThrow().version();
                LongSupplier localQuery = () -> {
                    long rows = 0;
                    try (QueryCursor cursor = catalog.openQuery(QueryRequest.of(query))) {
                        while (cursor.advance()) {
                            rows += cursor.current().value().size();
                        }
                    }
                    return rows;
                };
                LongSupplier remoteQuery = () -> {
                    long rows = 0;
                    try (QueryResults results = client.query(QuerySpec.of(query))) {
                        while (results.hasNext()) {
                            rows += results.next().value().size();
                        }
                    }
                    return rows;
                };
                LongSupplier localCommit = () ->
                        catalog.commit(leaf(table, "local-" + counter[0]++)).vid();
                LongSupplier remoteCommit = () ->
                        client.commit(leaf(table, "remote-" + counter[0]++)).vid();

                System.out.printf(
                        "## gRPC overhead (%d samples after %d warm-up calls; loopback, same JVM)%n%n", samples, 1000);
                System.out.println(
                        "| call | in-process p50 ms | gRPC p50 ms | in-process p99 ms | gRPC p99 ms | p50 ratio |");
                System.out.println("|---|---|---|---|---|---|");
                row("get one object", measure(localGet, samples), measure(remoteGet, samples));
                row(
                        "query one partition (" + FILES + " files)",
                        measure(localQuery, samples),
                        measure(remoteQuery, samples));
                row("commit one leaf", measure(localCommit, samples), measure(remoteCommit, samples));
            }
        }
    }

    private static WriteSet leaf(ObjectPath table, String id) {
        return WriteSet.of(
                new WriteOp.Add(table.child(id), ObjectKind.LEAF, BsonDocument.parse("{file_size: 1048576}")));
    }

    private static long[] measure(LongSupplier call, int samples) {
        long sink = 0;
        for (int i = 0; i < 1000; i++) {
            sink += call.getAsLong();
        }
        long[] nanos = new long[samples];
        for (int i = 0; i < samples; i++) {
            long start = System.nanoTime();
            sink += call.getAsLong();
            nanos[i] = System.nanoTime() - start;
        }
        if (sink == 42) {
            System.out.print("");
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static void row(String call, long[] local, long[] remote) {
        System.out.printf(
                Locale.ROOT,
                "| %s | %.3f | %.3f | %.3f | %.3f | %.2f |%n",
                call,
                p(local, 50) / 1e6,
                p(remote, 50) / 1e6,
                p(local, 99) / 1e6,
                p(remote, 99) / 1e6,
                p(remote, 50) / (double) p(local, 50));
    }

    private static long p(long[] sorted, double percent) {
        return sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(percent / 100 * sorted.length) - 1))];
    }
}
