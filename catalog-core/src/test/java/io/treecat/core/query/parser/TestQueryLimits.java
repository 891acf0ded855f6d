package io.treecat.core.query.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.query.tree.Query;
import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.WriteValidator;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configurable bounds on query text and nesting ({@code query.max-length}, {@code
 * query.max-depth}): each refusal is {@code QUERY_SYNTAX_ERROR} naming the limit, its maximum and the
 * position; no input overflows the stack, even at the ceilings; a long flat chain is linear.
 */
class TestQueryLimits {
    @TempDir
    Path directory;

    private static final QueryLimits CEILINGS =
            new QueryLimits(QueryLimits.TEXT_BYTES_CEILING, QueryLimits.DEPTH_CEILING);

    @Test
    void eachLimitIsNamedWithItsMaximumAndPosition() {
        QueryLimits limits = new QueryLimits(4096, 3);
        assertThat(QueryParser.parse("/[(((a = 1)))]", limits).steps()).hasSize(1);
        assertThatThrownBy(() -> QueryParser.parse("/[not (not (not (a = 1)))]", limits))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.QUERY_SYNTAX_ERROR);
                    assertThat(e.getMessage())
                            .isEqualTo("Syntax error at line 1, column 12: expected at most 3 levels of nesting"
                                    + " (query.max-depth) but found '('");
                    assertThat(e.context())
                            .containsEntry("limit", "query.max-depth")
                            .containsEntry("max", "3")
                            .containsEntry("position", "12");
                });
        String text = "/[a = '" + "x".repeat(5000) + "']";
        assertThatThrownBy(() -> QueryParser.parse(text, limits)).isInstanceOfSatisfying(CatalogException.class, e -> {
            assertThat(e.getMessage())
                    .isEqualTo("Syntax error at line 1, column 4097: expected at most 4096 bytes of query text"
                            + " (query.max-length) but found more");
            assertThat(e.context())
                    .containsEntry("limit", "query.max-length")
                    .containsEntry("max", "4096")
                    .containsEntry("position", "4097");
        });
        assertThat(QueryParser.parse(text, new QueryLimits(8192, 3)).steps()).hasSize(1);
        assertThatThrownBy(() -> new QueryLimits(4095, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QueryLimits(4096, QueryLimits.DEPTH_CEILING + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** 100,000 levels of parentheses or {@code not}, within the largest text limit: refused, no stack overflow. */
    @Test
    void noInputOverflowsTheStack() throws Throwable {
        List<CatalogException> refused = new ArrayList<>();
        onSmallStack(() -> {
            for (String text : List.of(
                    "/[" + "(".repeat(100_000) + "a = 1" + ")".repeat(100_000) + "]",
                    "/[" + "(".repeat(100_000),
                    "/[" + "not ".repeat(100_000) + "a = 1]",
                    "/[" + "not (".repeat(100_000) + "a = 1" + ")".repeat(100_000) + "]")) {
                try {
                    QueryParser.parse(text, CEILINGS);
                } catch (CatalogException e) {
                    refused.add(e);
                }
            }
        });
        assertThat(refused)
                .hasSize(4)
                .allSatisfy(e -> assertThat(e.context())
                        .containsEntry("limit", "query.max-depth")
                        .containsEntry("max", Integer.toString(QueryLimits.DEPTH_CEILING)));
        // The same texts within the default limits are too long first.
        assertThatThrownBy(() -> QueryParser.parse("/[" + "(".repeat(100_000) + "a = 1" + ")".repeat(100_000) + "]"))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context()).containsEntry("limit", "query.max-length"));
    }

    /** The deepest query the ceiling allows parses, renders, plans and runs on a small stack. */
    @Test
    void theDeepestAllowedQueryRuns() throws Throwable {
        int depth = QueryLimits.DEPTH_CEILING;
        String deepParentheses =
                "/[" + "(a = 1 or (b = 2 and ".repeat(depth / 2) + "c = 3" + "))".repeat(depth / 2) + "]";
        String deepNot = "/[" + "not ".repeat(depth) + "a = 1]";
        try (CatalogService catalog = open(CEILINGS)) {
            catalog.commit(WriteSet.of(new WriteOp.Add(
                    ObjectPath.parse("/x"), ObjectKind.INNER, BsonDocument.parse("{\"a\": 1, \"c\": 3}"))));
            onSmallStack(() -> {
                for (String text : List.of(deepParentheses, deepNot)) {
                    Query query = QueryParser.parse(text, CEILINGS);
                    assertThat(QueryParser.parse(query.toString(), CEILINGS).toString())
                            .isEqualTo(query.toString());
                    QueryPlan plan = QueryPlanner.plan(query);
                    assertThat(plan.explain()).startsWith("1: scan children of /");
                    assertThat(catalog.query(QueryRequest.of(text)).rows()).hasSize(1);
                }
            });
        }
    }

    /** Parse, plan and run the longest flat chains the default text limit allows, in linear time. */
    @Test
    void aLongFlatChainIsLinear() throws Exception {
        String ors = "/["
                + IntStream.range(0, 3_000)
                        .mapToObj(i -> "obj_id = 'x" + i + "'")
                        .collect(Collectors.joining(" or "))
                + "]";
        String ands = "/["
                + IntStream.range(0, 2_800)
                        .mapToObj(i -> "obj_id != 'x" + i + "'")
                        .collect(Collectors.joining(" and "))
                + "]";
        try (CatalogService catalog = open(QueryLimits.DEFAULTS)) {
            catalog.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.parse("/x42"), ObjectKind.INNER, new BsonDocument()),
                    new WriteOp.Add(ObjectPath.parse("/y"), ObjectKind.INNER, new BsonDocument())));
            for (String text : List.of(ors, ands)) {
                long best = Long.MAX_VALUE;
                int rows = 0;
                for (int run = 0; run < 5; run++) {
                    long start = System.nanoTime();
                    rows = catalog.query(QueryRequest.of(text)).rows().size();
                    best = Math.min(best, (System.nanoTime() - start) / 1_000_000);
                }
                assertThat(rows).isEqualTo(1); // x42 for the or, y for the and
                // Measured 10-40 ms on the shared 2-core machine (docs/robustness.md); quadratic work is seconds.
                assertThat(best).as("query of %s characters", text.length()).isLessThan(3_000);
                System.out.printf("flat chain of %,d characters: %d ms%n", text.length(), best);
            }
        }
    }

    @Test
    void theServiceParsesWithinItsLimits() throws Exception {
        try (CatalogService catalog = open(new QueryLimits(4096, 2))) {
            assertThat(catalog.queryLimits()).isEqualTo(new QueryLimits(4096, 2));
            assertThatThrownBy(() -> catalog.query(QueryRequest.of("/[((( a = 1)))]")))
                    .isInstanceOfSatisfying(
                            CatalogException.class,
                            e -> assertThat(e.context())
                                    .containsEntry("limit", "query.max-depth")
                                    .containsEntry("max", "2"));
            assertThatThrownBy(() -> catalog.explain("/[a = '" + "x".repeat(4096) + "']"))
                    .isInstanceOfSatisfying(
                            CatalogException.class,
                            e -> assertThat(e.context()).containsEntry("limit", "query.max-length"));
        }
    }

    private CatalogService open(QueryLimits limits) {
        return new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory.resolve("db"), RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC(),
                CatalogMetrics.NONE,
                WriteValidator.NONE,
                limits);
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    /** Runs {@code work} on a thread with a 512 KiB stack, half what a server thread gets by default. */
    private static void onSmallStack(Work work) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(
                null,
                () -> {
                    try {
                        work.run();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "small-stack",
                512 * 1024);
        thread.start();
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
