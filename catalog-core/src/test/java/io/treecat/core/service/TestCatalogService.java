package io.treecat.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The paper's examples and the service's read points, paging and error behaviour, on RocksDB. */
class TestCatalogService {
    private static final String PAPER_QUERY =
            "/[obj_id='retail']/[obj_id='sales' and\n  obj_type='table']/[part_val='US']\n  /[part_val > '2025-01-01']/[stats.price.min > 5]";

    @TempDir
    Path directory;

    private CatalogService catalog;

    @BeforeEach
    void open() {
        catalog = CatalogService.open(directory);
        List<WriteOp> ops = new ArrayList<>();
        ops.add(inner("/retail", "{obj_type: 'database'}"));
        ops.add(inner("/retail/sales", "{obj_type: 'table'}"));
        ops.add(inner("/retail/customer", "{obj_type: 'table'}"));
        ops.add(inner("/retail/customer/r", "{part_val: 'US'}"));
        for (String region : List.of("EU", "US")) {
            ops.add(inner("/retail/sales/" + region, "{part_val: '" + region + "'}"));
            for (String date : List.of("2025-01-01", "2025-01-02", "2025-01-03")) {
                String partition = "/retail/sales/" + region + "/" + date;
                ops.add(inner(partition, "{part_val: '" + date + "'}"));
                for (int min : List.of(3, 6, 9)) {
                    ops.add(new WriteOp.Add(
                            ObjectPath.parse(partition + "/f" + min),
                            ObjectKind.LEAF,
                            BsonDocument.parse("{stats: {price: {min: " + min + ", max: 20}}}")));
                }
            }
        }
        catalog.commit(new WriteSet(ops));
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    private static WriteOp inner(String path, String json) {
        return new WriteOp.Add(ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse(json));
    }

    private List<String> paths(QueryRequest request) {
        return catalog.query(request.withLimit(QueryRequest.MAX_LIMIT)).rows().stream()
                .map(row -> row.path().toString())
                .toList();
    }

    @Test
    void thePapersQueriesRunAsWritten() {
        assertThat(paths(QueryRequest.of("/[obj_id='retail']/[obj_id='sales' and obj_type='table']")))
                .containsExactly("/retail/sales");
        assertThat(paths(QueryRequest.of(PAPER_QUERY)))
                .containsExactly(
                        "/retail/sales/US/2025-01-02/f6", "/retail/sales/US/2025-01-02/f9",
                        "/retail/sales/US/2025-01-03/f6", "/retail/sales/US/2025-01-03/f9");
        assertThat(paths(QueryRequest.of("/[obj_id='retail']/[obj_id='sales']/*/*/*")))
                .hasSize(18);
    }

    @Test
    void resultsCanBeLeavesInnerOrBothAndProjected() {
        String query = "/[obj_id='retail']/*/*";
        assertThat(paths(QueryRequest.of(query).withResults(ChildKinds.INNER)))
                .containsExactly("/retail/customer/r", "/retail/sales/EU", "/retail/sales/US");
        assertThat(paths(QueryRequest.of(query).withResults(ChildKinds.LEAVES))).isEmpty();
        CatalogObject file = catalog.query(
                        QueryRequest.of("/*/*/*/*/[obj_id='f3']").withProjection(List.of("stats.price.min")))
                .rows()
                .get(0);
        assertThat(file.kind()).isEqualTo(ObjectKind.LEAF);
        assertThat(file.value()).isEqualTo(BsonDocument.parse("{stats: {price: {min: 3}}}"));
    }

    @Test
    void pagesFollowContinuationTokensAtOneVersion() {
        String query = "/*/*/*/*/*";
        List<String> all = paths(QueryRequest.of(query));
        assertThat(all).hasSize(18);
        List<String> paged = new ArrayList<>();
        QueryPage page = catalog.query(QueryRequest.of(query).withLimit(5));
        long vid = page.vid();
        // A commit between pages does not change what the next pages see.
        catalog.commit(WriteSet.of(new WriteOp.Add(
                ObjectPath.parse("/retail/sales/US/2025-01-03/f0"), ObjectKind.LEAF, new BsonDocument())));
        while (true) {
            page.rows().forEach(row -> paged.add(row.path().toString()));
            assertThat(page.vid()).isEqualTo(vid);
            if (page.continuation().isEmpty()) {
                break;
            }
            page = catalog.query(QueryRequest.of(query)
                    .withLimit(5)
                    .withPageToken(page.continuation().get()));
        }
        assertThat(paged).isEqualTo(all);
        assertThat(paths(QueryRequest.of(query))).hasSize(19);
    }

    @Test
    void timeTravelSnapshotsAndClones() {
        long before = catalog.lastVid();
        catalog.createSnapshot("before-drop", ReadPoint.LATEST);
        catalog.commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse("/retail/sales/EU"))));
        assertThat(paths(QueryRequest.of("/[obj_id='retail']/[obj_id='sales']/*")))
                .containsExactly("/retail/sales/US");
        assertThat(paths(
                        QueryRequest.of("/[obj_id='retail']/[obj_id='sales']/*").at(ReadPoint.vid(before))))
                .containsExactly("/retail/sales/EU", "/retail/sales/US");
        assertThat(paths(
                        QueryRequest.of("/[obj_id='retail']/[obj_id='sales']/*").at(ReadPoint.snapshot("before-drop"))))
                .hasSize(2);

        catalog.clone(ObjectPath.parse("/retail"), ObjectPath.parse("/retail_dev"), ReadPoint.snapshot("before-drop"));
        assertThat(paths(QueryRequest.of("/[obj_id='retail_dev']/[obj_id='sales']/*/*/*")))
                .hasSize(18);
        assertThat(catalog.get(ObjectPath.parse("/retail_dev/sales/EU/2025-01-01/f3"), ReadPoint.LATEST)
                        .orElseThrow()
                        .value())
                .isEqualTo(BsonDocument.parse("{stats: {price: {min: 3, max: 20}}}"));
    }

    @Test
    void badInputSaysWhatAndWhereAndChangesNothing() {
        long before = catalog.lastVid();
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/[obj_id = 'retail'")))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Syntax error at line 1, column 20:")
                .extracting(e -> ((CatalogException) e).code())
                .isEqualTo(ErrorCode.QUERY_SYNTAX_ERROR);
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/[obj_id == 'x']")))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Syntax error at line 1, column 10:");
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/*").withPageToken("not-a-token")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid continuation token; pass back the token a page returned");
        String deeperToken = catalog.query(QueryRequest.of("/*/*").withLimit(1))
                .continuation()
                .orElseThrow();
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/*").withPageToken(deeperToken)))
                .isInstanceOf(CatalogException.class)
                .hasMessage("The continuation token belongs to a query of another depth");
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/*").at(ReadPoint.vid(before + 10))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Version " + (before + 10) + " is not committed (the newest is " + before + ")");
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/*").at(ReadPoint.snapshot("nope"))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No snapshot named nope");
        assertThatThrownBy(() -> QueryRequest.of("/*").withLimit(0))
                .isInstanceOf(CatalogException.class)
                .hasMessage("limit must be between 1 and 100000");
        assertThatThrownBy(() -> catalog.query(QueryRequest.of("/*").withProjection(List.of("a..b"))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Invalid projection field: 'a..b'");
        assertThat(catalog.lastVid()).isEqualTo(before);
    }

    @Test
    void dataSurvivesReopening() {
        long last = catalog.lastVid();
        List<String> before = paths(QueryRequest.of("/*/*/*/*/*"));
        catalog.close();
        catalog = CatalogService.open(directory);
        assertThat(catalog.lastVid()).isEqualTo(last);
        assertThat(paths(QueryRequest.of("/*/*/*/*/*"))).isEqualTo(before);
    }

    @Test
    void metricsSeeCommitsAbortsAndQueries() {
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        CatalogMetrics metrics = new CatalogMetrics() {
            @Override
            public void commitSucceeded(long nanos, int changes) {
                events.add("commit " + changes);
            }

            @Override
            public void commitFailed(ErrorCode reason, long nanos) {
                events.add("failed " + reason);
            }

            @Override
            public void queryCompleted(long nanos, long rows) {
                events.add("query " + rows);
            }

            @Override
            public void queryFailed(ErrorCode reason) {
                events.add("query failed " + reason);
            }
        };
        catalog.close();
        catalog = new CatalogService(
                io.treecat.core.version.VersionedTree.open(
                        io.treecat.core.storage.rocksdb.RocksKvStore.open(directory)),
                io.treecat.core.txn.TransactionConfig.defaults(),
                java.time.Clock.systemUTC(),
                metrics);
        catalog.query(QueryRequest.of("/*/*").withLimit(2));
        catalog.commit(WriteSet.of(inner("/x", "{}")));
        try {
            catalog.commit(WriteSet.of(inner("/x", "{}")));
        } catch (CatalogException expected) {
            // counted below
        }
        try {
            catalog.query(QueryRequest.of("/["));
        } catch (CatalogException expected) {
            // counted below
        }
        assertThat(events)
                .containsExactly(
                        "query 2", "commit 1", "failed OBJECT_ALREADY_EXISTS", "query failed QUERY_SYNTAX_ERROR");
    }

    @Test
    void explainShowsIteratorBounds() {
        assertThat(catalog.explain("/[obj_id='retail']/[obj_id >= 'a' and obj_id < 'd']/*"))
                .contains("1: scan children of / ids in ['retail', 'retail'] filter obj_id = 'retail'");
    }
}
