package io.treecat.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.CommitSummary;
import io.treecat.grpc.client.LoadSummary;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.RemoteTransaction;
import io.treecat.grpc.client.RetryPolicy;
import io.treecat.grpc.client.TransactionRunner;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.grpc.v1.AddOp;
import io.treecat.grpc.v1.CommitRequest;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.StartTransactionRequest;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC API end to end: a real server on a loopback port, a real RocksDB catalog, the Java
 * client. Each test gets a fresh catalog.
 */
class TestTreeCatGrpc {
    private static final GrpcServerConfig CONFIG = GrpcServerConfig.defaults()
            .withHost("127.0.0.1")
            .withPort(0)
            .withMaxInboundMessageBytes(1 << 20)
            .withShutdownGrace(Duration.ofSeconds(5));

    @TempDir
    Path directory;

    private final CountingMetrics metrics = new CountingMetrics();
    private CatalogService catalog;
    private TreeCatGrpcServer server;
    private TreeCatClient client;

    @BeforeEach
    void start() {
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory, RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC(),
                metrics);
        server = new TreeCatGrpcServer(catalog, CONFIG);
        server.start();
        client = TreeCatClient.connect("127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
        catalog.close();
    }

    private void restart() {
        stop();
        start();
    }

    private static WriteOp inner(String path, String json) {
        return new WriteOp.Add(ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse(json));
    }

    private static WriteOp leaf(String path, String json) {
        return new WriteOp.Add(ObjectPath.parse(path), ObjectKind.LEAF, BsonDocument.parse(json));
    }

    private static List<String> paths(List<CatalogObject> objects) {
        return objects.stream().map(object -> object.path().toString()).toList();
    }

    private static List<CatalogObject> all(QueryResults results) {
        try (results) {
            List<CatalogObject> objects = new ArrayList<>();
            results.forEachRemaining(objects::add);
            return objects;
        }
    }

    private CommitSummary sampleTables() {
        return client.commit(WriteSet.of(
                inner("/db", "{obj_type: 'database'}"),
                inner("/db/t1", "{obj_type: 'table', size: 10}"),
                inner("/db/t2", "{obj_type: 'table', size: 3}"),
                inner("/db/we\\/ird", "{obj_type: 'view'}"),
                leaf("/db/t1/f1", "{rows: 100}"),
                leaf("/db/t1/f2", "{rows: 200}")));
    }

    // ---- queries

    @Test
    void queriesReturnObjectsWithTheirValues() {
        CommitSummary commit = sampleTables();
        assertThat(commit.changeCount()).isEqualTo(6);

        try (QueryResults results = client.query("/[obj_id='db']/[obj_type='table']")) {
            List<CatalogObject> objects = new ArrayList<>();
            results.forEachRemaining(objects::add);
            assertThat(paths(objects)).containsExactly("/db/t1", "/db/t2");
            assertThat(objects.get(0).kind()).isEqualTo(ObjectKind.INNER);
            assertThat(objects.get(0).value().getInt32("size").getValue()).isEqualTo(10);
            assertThat(objects.get(0).version()).isEqualTo(commit.vid());
            assertThat(results.vid()).hasValue(commit.vid());
            assertThat(results.nextPageToken()).isEmpty();
        }
        assertThat(paths(all(client.query("/[obj_id='db']/*")))).containsExactly("/db/t1", "/db/t2", "/db/we\\/ird");
        assertThat(paths(all(client.query(QuerySpec.of("/*/*/*").withResults(ChildKinds.LEAVES)))))
                .containsExactly("/db/t1/f1", "/db/t1/f2");
        assertThat(paths(all(client.query(QuerySpec.of("/*/*/*").withResults(ChildKinds.INNER)))))
                .isEmpty();

        List<CatalogObject> projected =
                all(client.query(QuerySpec.of("/[obj_id='db']/[obj_id='t1']").withProjection(List.of("size"))));
        assertThat(projected).hasSize(1);
        assertThat(projected.get(0).value()).isEqualTo(BsonDocument.parse("{size: 10}"));

        assertThat(client.get(ObjectPath.of("db", "we/ird")))
                .map(CatalogObject::value)
                .hasValue(BsonDocument.parse("{obj_type: 'view'}"));
        assertThat(client.get(ObjectPath.of("db", "missing"))).isEmpty();
        assertThat(client.explain("/[obj_id='db']/*")).isEqualTo(catalog.explain("/[obj_id='db']/*"));
    }

    @Test
    void emptyResultStillTellsTheVid() {
        long vid = sampleTables().vid();
        try (QueryResults results = client.query("/[obj_id='nothing']/*")) {
            assertThat(results.hasNext()).isFalse();
            assertThat(results.vid()).hasValue(vid);
        }
    }

    @Test
    void pagesFollowTheirTokensAtOneVid() {
        List<WriteOp> ops = new ArrayList<>(List.of(inner("/p", "{}")));
        for (int i = 0; i < 25; i++) {
            ops.add(leaf(String.format("/p/f%02d", i), "{i: " + i + "}"));
        }
        long vid = client.commit(new WriteSet(ops)).vid();
        QuerySpec query = QuerySpec.of("/[obj_id='p']/*").withLimit(10).withBatchSize(3);

        QueryPage first = client.page(query);
        client.commit(WriteSet.of(leaf("/p/f05a", "{i: -1}")));
        QueryPage second = client.page(query.withPageToken(first.continuation().orElseThrow()));
        QueryPage third = client.page(query.withPageToken(second.continuation().orElseThrow()));

        assertThat(first.vid()).isEqualTo(vid);
        assertThat(second.vid()).isEqualTo(vid);
        assertThat(paths(first.rows()))
                .containsExactly(
                        "/p/f00", "/p/f01", "/p/f02", "/p/f03", "/p/f04", "/p/f05", "/p/f06", "/p/f07", "/p/f08",
                        "/p/f09");
        assertThat(paths(second.rows())).first().isEqualTo("/p/f10");
        assertThat(paths(third.rows())).containsExactly("/p/f20", "/p/f21", "/p/f22", "/p/f23", "/p/f24");
        assertThat(third.continuation()).isEmpty();
    }

    @Test
    void streamsOneHundredThousandBulkLoadedObjects() {
        StringBuilder lines = new StringBuilder();
        lines.append("{\"path\": \"/big\", \"kind\": \"inner\", \"value\": {}}\n");
        lines.append("{\"path\": \"/big/p\", \"kind\": \"inner\", \"value\": {\"part_val\": \"2025-01-01\"}}\n");
        for (int i = 0; i < 100_000; i++) {
            lines.append(String.format(
                    "{\"path\": \"/big/p/f%06d\", \"kind\": \"leaf\", \"value\": {\"size\": %d}}%n", i, i));
        }
        List<Long> progress = new ArrayList<>();

        LoadSummary load = client.bulkLoad(new StringReader(lines.toString()), 10_000, progress::add);

        assertThat(load.records()).isEqualTo(100_002);
        assertThat(load.commits()).isEqualTo(11);
        assertThat(load.lastVid()).isEqualTo(catalog.lastVid());
        assertThat(load.lastVid() - load.firstVid()).isEqualTo(10);
        assertThat(progress).isNotEmpty().isSorted().last().isEqualTo(100_002L);

        long closedBefore = metrics.queriesClosed.get();
        long count = 0;
        long sizeSum = 0;
        String previous = "";
        try (QueryResults results = client.query("/[obj_id='big']/[obj_id='p']/*")) {
            while (results.hasNext()) {
                CatalogObject object = results.next();
                assertThat(object.path().toString()).isGreaterThan(previous);
                previous = object.path().toString();
                sizeSum += object.value().getInt32("size").getValue();
                count++;
            }
            assertThat(results.vid()).hasValue(load.lastVid());
        }
        assertThat(count).isEqualTo(100_000);
        assertThat(sizeSum).isEqualTo(100_000L * 99_999 / 2);
        eventually(() -> metrics.queriesClosed.get() == closedBefore + 1);
    }

    @Test
    void bulkLoadFailureTellsWhatIsDurable() {
        String lines = """
        {"path": "/l", "kind": "inner"}
        {"path": "/l/a", "kind": "leaf", "value": {"n": 1}}
        {"path": "/l/b", "kind": "leaf", "value": [1]}
        """;

        assertThatThrownBy(() -> client.bulkLoad(new StringReader(lines), 2, records -> {}))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.errorCode()).hasValue("INVALID_LOAD_RECORD");
                    assertThat(e.context()).containsEntry("line", "3").containsEntry("committedRecords", "2");
                })
                .hasMessage("Invalid record at line 3: \"value\" must be an object");
        assertThat(client.get(ObjectPath.of("l", "a"))).isPresent();
    }

    // ---- transactions

    @Test
    void conflictingInsertAbortsAReaderWithDetails() {
        sampleTables();
        RemoteTransaction reader = client.begin(TransactionMode.READ_WRITE);
        assertThat(paths(all(reader.query("/[obj_id='db']/[size > 5]")))).containsExactly("/db/t1");

        client.commit(WriteSet.of(inner("/db/t0", "{obj_type: 'table', size: 1}")));
        long conflictVid = client.commit(WriteSet.of(inner("/db/t3", "{obj_type: 'table', size: 7}")))
                .vid();

        assertThatThrownBy(() -> reader.commit(WriteSet.of(inner("/db/summary", "{big: 1}"))))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.ABORTED);
                    assertThat(e.isRetryable()).isTrue();
                    assertThat(e.errorCode()).hasValue("COMMIT_CONFLICT");
                    assertThat(e.context())
                            .containsEntry("path", "/db")
                            .containsEntry("conflictingPath", "/db/t3")
                            .containsEntry("readVid", String.valueOf(reader.readVid()))
                            .containsKey("predicate");
                    assertThat(e.context().get("predicate")).contains("size > 5");
                })
                .hasMessageStartingWith(
                        "Commit conflict: /db/t3 changed after version " + reader.readVid() + " under /db");
        assertThat(conflictVid).isGreaterThan(reader.readVid());
        assertThat(client.get(ObjectPath.of("db", "summary"))).isEmpty();
    }

    @Test
    void insertNotMatchingTheReadPredicateDoesNotAbort() {
        sampleTables();
        RemoteTransaction txn = client.begin(TransactionMode.READ_WRITE);
        assertThat(paths(all(txn.query("/[obj_id='db']/[size > 5]")))).containsExactly("/db/t1");
        client.commit(WriteSet.of(inner("/db/t0", "{obj_type: 'table', size: 1}")));

        CommitSummary commit = txn.commit(WriteSet.of(inner("/db/summary", "{big: 1}")));

        assertThat(commit.changeCount()).isEqualTo(1);
        assertThat(client.get(ObjectPath.of("db", "summary"))).isPresent();
    }

    @Test
    void readOnlyTransactionCannotWrite() {
        sampleTables();
        RemoteTransaction txn = client.begin(TransactionMode.READ_ONLY);

        assertThatThrownBy(() -> txn.commit(WriteSet.of(inner("/db/x", "{}"))))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                .hasMessage("A read-only transaction cannot write");
    }

    @Test
    void abortEndsTheSession() {
        RemoteTransaction txn = client.begin(TransactionMode.READ_WRITE);
        txn.abort();

        assertThatThrownBy(() -> txn.commit(WriteSet.of(inner("/x", "{}"))))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.errorCode()).hasValue("TRANSACTION_NOT_FOUND");
                })
                .hasMessage("No open transaction " + txn.id() + " (it committed, aborted or expired)");
    }

    @Test
    void runnerRetriesAConflictThenSucceeds() {
        sampleTables();
        AtomicInteger attempts = new AtomicInteger();
        List<Duration> delays = new ArrayList<>();
        TransactionRunner runner = client.runner(
                new RetryPolicy(5, Duration.ofMillis(10), Duration.ofSeconds(1)), new Random(42), delays::add);

        CommitSummary commit = runner.run(txn -> {
            int attempt = attempts.incrementAndGet();
            long total = all(txn.query("/[obj_id='db']/[obj_type='table']")).stream()
                    .mapToLong(table -> table.value().getInt32("size").getValue())
                    .sum();
            if (attempt == 1) {
                // Another writer adds a table this transaction's query would have returned.
                client.commit(WriteSet.of(inner("/db/t9", "{obj_type: 'table', size: 100}")));
            }
            return WriteSet.of(new WriteOp.Update(
                    ObjectPath.of("db"),
                    ObjectKind.INNER,
                    BsonDocument.parse("{obj_type: 'database', total: " + total + "}")));
        });

        assertThat(attempts).hasValue(2);
        assertThat(delays).containsExactly(Duration.ofNanos(new Random(42).nextLong(10_000_001)));
        assertThat(client.get(ObjectPath.of("db"))
                        .orElseThrow()
                        .value()
                        .getNumber("total")
                        .longValue())
                .isEqualTo(113);
        assertThat(commit.vid()).isEqualTo(catalog.lastVid());
    }

    @Test
    void runnerGivesUpAfterMaxAttemptsWithCappedDelays() {
        sampleTables();
        AtomicInteger attempts = new AtomicInteger();
        List<Duration> delays = new ArrayList<>();
        TransactionRunner runner = client.runner(
                new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(15)), new Random(7), delays::add);

        assertThatThrownBy(() -> runner.run(txn -> {
                    int attempt = attempts.incrementAndGet();
                    all(txn.query("/[obj_id='db']/*"));
                    client.commit(WriteSet.of(inner("/db/n" + attempt, "{}")));
                    return WriteSet.of(inner("/db/mine", "{}"));
                }))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.ABORTED));

        assertThat(attempts).hasValue(3);
        Random expected = new Random(7);
        assertThat(delays)
                .containsExactly(
                        Duration.ofNanos(expected.nextLong(10_000_001)),
                        Duration.ofNanos(expected.nextLong(15_000_001)));
    }

    @Test
    void runnerNeverRetriesOtherFailures() {
        AtomicInteger attempts = new AtomicInteger();
        List<Duration> delays = new ArrayList<>();
        TransactionRunner runner = client.runner(RetryPolicy.defaults(), new Random(1), delays::add);

        assertThatThrownBy(() -> runner.run(txn -> {
                    attempts.incrementAndGet();
                    return WriteSet.of(inner("/nowhere/x", "{}"));
                }))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.errorCode()).hasValue("PARENT_NOT_FOUND");
                });
        assertThat(attempts).hasValue(1);
        assertThat(delays).isEmpty();
    }

    // ---- versions

    @Test
    void snapshotsClonesAndTimeTravel() {
        long first = sampleTables().vid();
        NamedSnapshot snapshot = client.createSnapshot("before", ReadPoint.LATEST);
        long second = client.commit(WriteSet.of(new WriteOp.Update(
                        ObjectPath.of("db", "t1"), ObjectKind.INNER, BsonDocument.parse("{size: 11}"))))
                .vid();

        assertThat(snapshot).isEqualTo(new NamedSnapshot("before", first));
        assertThat(client.listSnapshots()).containsExactly(snapshot);
        assertThat(size(client.get(ObjectPath.of("db", "t1"), ReadPoint.vid(first))
                        .orElseThrow()))
                .isEqualTo(10);
        assertThat(size(client.get(ObjectPath.of("db", "t1"), ReadPoint.snapshot("before"))
                        .orElseThrow()))
                .isEqualTo(10);
        assertThat(size(client.get(ObjectPath.of("db", "t1")).orElseThrow())).isEqualTo(11);
        assertThat(all(client.query(QuerySpec.of("/[obj_id='db']/[size = 10]").at(ReadPoint.snapshot("before")))))
                .hasSize(1);
        RemoteTransaction past = client.begin(TransactionMode.READ_ONLY, ReadPoint.vid(first));
        assertThat(past.readVid()).isEqualTo(first);
        assertThat(size(past.get(ObjectPath.of("db", "t1")).orElseThrow())).isEqualTo(10);
        past.abort();

        CommitSummary clone = client.clone(ObjectPath.of("db"), ObjectPath.of("db_dev"), ReadPoint.snapshot("before"));
        assertThat(clone.vid()).isGreaterThan(second);
        assertThat(size(client.get(ObjectPath.of("db_dev", "t1")).orElseThrow()))
                .isEqualTo(10);
        assertThat(paths(all(client.query("/[obj_id='db_dev']/[obj_id='t1']/*"))))
                .containsExactly("/db_dev/t1/f1", "/db_dev/t1/f2");

        assertThatThrownBy(() -> client.createSnapshot("before", ReadPoint.LATEST))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.ALREADY_EXISTS));
        client.dropSnapshot("before");
        assertThat(client.listSnapshots()).isEmpty();
        assertThatThrownBy(() -> client.get(ObjectPath.of("db"), ReadPoint.snapshot("before")))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.errorCode()).hasValue("SNAPSHOT_NOT_FOUND");
                });
    }

    private static int size(CatalogObject object) {
        return object.value().getInt32("size").getValue();
    }

    @Test
    void dataSurvivesAServerRestart() {
        long vid = sampleTables().vid();
        client.createSnapshot("kept", ReadPoint.LATEST);

        restart();

        assertThat(catalog.lastVid()).isEqualTo(vid);
        assertThat(paths(all(client.query("/[obj_id='db']/*")))).containsExactly("/db/t1", "/db/t2", "/db/we\\/ird");
        assertThat(client.listSnapshots()).containsExactly(new NamedSnapshot("kept", vid));
    }

    // ---- the server

    @Test
    void reflectionListsTheService() throws InterruptedException {
        LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(client.channel())
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                        answers.add(response);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answers.add(t);
                    }

                    @Override
                    public void onCompleted() {}
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        Object answer = answers.poll(10, TimeUnit.SECONDS);
        requests.onCompleted();

        assertThat(answer).isInstanceOf(ServerReflectionResponse.class);
        assertThat(((ServerReflectionResponse) answer).getListServicesResponse().getServiceList())
                .extracting(ServiceResponse::getName)
                .contains("treecat.v1.TreeCat", "grpc.health.v1.Health");
    }

    @Test
    void healthReportsServing() {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(client.channel());

        assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
                .isEqualTo(ServingStatus.SERVING);
        assertThat(health.check(HealthCheckRequest.newBuilder()
                                .setService("treecat.v1.TreeCat")
                                .build())
                        .getStatus())
                .isEqualTo(ServingStatus.SERVING);
        assertThat(server.isServing()).isTrue();

        server.shutdown();
        assertThat(server.isServing()).isFalse();
    }

    @Test
    void takenPortIsAClearError() {
        TreeCatGrpcServer second = new TreeCatGrpcServer(catalog, CONFIG.withPort(server.port()));

        assertThatThrownBy(second::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot serve gRPC on 127.0.0.1:" + server.port() + ": the address is already in use");
        second.close();
        assertThat(server.isServing()).isTrue();
    }

    @Test
    void expiredDeadlineReleasesTheQueryAndTheServerCarriesOn() {
        String padding = "x".repeat(300);
        List<WriteOp> ops = new ArrayList<>(List.of(inner("/s", "{}")));
        for (int i = 0; i < 20_000; i++) {
            ops.add(leaf(String.format("/s/f%05d", i), "{pad: '" + padding + "'}"));
        }
        commitInChunks(ops);
        long closedBefore = metrics.queriesClosed.get();

        // Read one object, then stall: the server fills the transport window and waits, until the deadline.
        QueryResults results = client.withDeadline(Duration.ofMillis(500))
                .query(QuerySpec.of("/[obj_id='s']/*").withBatchSize(10));
        assertThat(results.next().path().toString()).isEqualTo("/s/f00000");
        eventually(() -> metrics.queriesClosed.get() == closedBefore + 1);
        assertThat(metrics.rowsStreamed.get()).isLessThan(20_000);

        assertThatThrownBy(() -> results.forEachRemaining(object -> {}))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        results.close();
        assertThat(all(client.query("/[obj_id='s']/*"))).hasSize(20_000);
    }

    @Test
    void closingResultsEarlyCancelsTheQuery() {
        List<WriteOp> ops = new ArrayList<>(List.of(inner("/c", "{}")));
        for (int i = 0; i < 5_000; i++) {
            ops.add(leaf(String.format("/c/f%05d", i), "{pad: '" + "y".repeat(300) + "'}"));
        }
        commitInChunks(ops);
        long closedBefore = metrics.queriesClosed.get();

        try (QueryResults results = client.query(QuerySpec.of("/[obj_id='c']/*").withBatchSize(10))) {
            assertThat(results.stream().limit(3).map(object -> object.path().toString()))
                    .containsExactly("/c/f00000", "/c/f00001", "/c/f00002");
        }

        eventually(() -> metrics.queriesClosed.get() == closedBefore + 1);
        assertThat(client.get(ObjectPath.of("c"))).isPresent();
    }

    /** Commits in pieces that stay below the test server's 1 MiB message limit. */
    private void commitInChunks(List<WriteOp> ops) {
        for (int start = 0; start < ops.size(); start += 1000) {
            client.commit(new WriteSet(ops.subList(start, Math.min(ops.size(), start + 1000))));
        }
    }

    // ---- bad input

    @Test
    void malformedQueryNamesThePosition() {
        assertThatThrownBy(() -> all(client.query("/[obj_id = ]")))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.errorCode()).hasValue("QUERY_SYNTAX_ERROR");
                    assertThat(e.context()).containsAllEntriesOf(Map.of("position", "12", "line", "1", "column", "12"));
                })
                .hasMessageStartingWith("Syntax error at line 1, column 12: ");
        assertServerStillServes();
    }

    @Test
    void badPathIsInvalidArgumentNamingTheField() {
        TreeCatGrpc.TreeCatBlockingStub stub = TreeCatGrpc.newBlockingStub(client.channel());

        assertThatThrownBy(() -> call(() -> stub.getObject(
                        GetObjectRequest.newBuilder().setPath("db/t1").build())))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.errorCode()).hasValue("INVALID_PATH");
                    assertThat(e.context()).containsEntry("field", "path").containsEntry("position", "1");
                })
                .hasMessage("path: Invalid path at position 1: a path starts with '/'");
        assertThatThrownBy(() -> call(() -> stub.commit(CommitRequest.newBuilder()
                        .addWrites(io.treecat.grpc.v1.WriteOp.newBuilder()
                                .setAdd(AddOp.newBuilder().setPath("/a//b")))
                        .build())))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                .hasMessage("writes[0].add.path: Invalid path at position 4: empty id");
        assertServerStillServes();
    }

    @Test
    void badBsonIsInvalidArgumentNamingTheField() {
        TreeCatGrpc.TreeCatBlockingStub stub = TreeCatGrpc.newBlockingStub(client.channel());
        // Declares 12 bytes; holds an element of type 0x7F, which BSON does not have.
        byte[] unknownType = {12, 0, 0, 0, 0x7F, 'a', 0, 1, 2, 3, 4, 0};

        assertThatThrownBy(() -> call(() -> stub.commit(add("/x", new byte[] {1, 2, 3, 4, 5, 6}))))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.errorCode()).hasValue("INVALID_VALUE");
                    assertThat(e.context()).containsEntry("field", "writes[0].add.bson");
                })
                .hasMessage("Invalid BSON in writes[0].add.bson: the document declares 67305985 bytes but 6 were sent");
        assertThatThrownBy(() -> call(() -> stub.commit(add("/x", unknownType))))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.errorCode()).hasValue("INVALID_VALUE"))
                .hasMessageStartingWith("Invalid BSON in writes[0].add.bson: ");
        assertThat(client.get(ObjectPath.of("x"))).isEmpty();
        assertServerStillServes();
    }

    @Test
    void missingOrUnknownFieldsAreInvalidRequests() {
        TreeCatGrpc.TreeCatBlockingStub stub = TreeCatGrpc.newBlockingStub(client.channel());

        assertThatThrownBy(() -> call(() -> stub.startTransaction(StartTransactionRequest.getDefaultInstance())))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.errorCode()).hasValue("INVALID_REQUEST");
                    assertThat(e.context()).containsEntry("field", "mode");
                })
                .hasMessage(
                        "Invalid request: mode is required: TRANSACTION_MODE_READ_ONLY or TRANSACTION_MODE_READ_WRITE");
        assertThatThrownBy(() -> call(() -> stub.startTransaction(
                        StartTransactionRequest.newBuilder().setModeValue(99).build())))
                .hasMessage("Invalid request: mode is not a known TransactionMode");
        assertThatThrownBy(() -> call(() -> stub.commit(CommitRequest.newBuilder()
                        .addWrites(io.treecat.grpc.v1.WriteOp.getDefaultInstance())
                        .build())))
                .hasMessage("Invalid request: writes[0] has no op: set one of add, update, merge, remove, clone");
        assertThatThrownBy(() -> call(() -> stub.commit(CommitRequest.getDefaultInstance())))
                .hasMessage("Invalid request: writes must not be empty without a transaction");
        assertServerStillServes();
    }

    @Test
    void oversizedMessageIsRefusedAndTheServerCarriesOn() {
        BsonDocument huge = new BsonDocument("blob", new org.bson.BsonBinary(new byte[2 << 20]));

        assertThatThrownBy(() ->
                        client.commit(WriteSet.of(new WriteOp.Add(ObjectPath.of("huge"), ObjectKind.INNER, huge))))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.errorCode()).isEmpty();
                });
        assertThat(client.get(ObjectPath.of("huge"))).isEmpty();
        assertServerStillServes();
    }

    /**
     * Bytes that are not protobuf of the method's request type are the client's mistake: INVALID_ARGUMENT,
     * not grpc-java's UNKNOWN "Application error processing RPC" (found by LiveProtocolFuzzIT), on
     * unary, server-streaming and client-streaming methods alike; nothing is written.
     */
    @Test
    void malformedProtobufIsInvalidArgumentAndTheServerCarriesOn() throws Exception {
        // Field 1 (length-delimited) declaring ~2 GiB with one byte after it; then a truncated varint tag.
        byte[] lying = {0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 'a'};
        byte[] truncated = {(byte) 0x80};
        for (io.grpc.MethodDescriptor<?, ?> method : List.of(
                TreeCatGrpc.getGetObjectMethod(), TreeCatGrpc.getCommitMethod(), TreeCatGrpc.getExecuteQueryMethod())) {
            for (byte[] body : List.of(lying, truncated)) {
                io.grpc.MethodDescriptor<byte[], byte[]> raw = rawBytes(method);
                assertThatThrownBy(() -> {
                            java.util.Iterator<byte[]> answers = io.grpc.stub.ClientCalls.blockingServerStreamingCall(
                                    client.channel(), raw, io.grpc.CallOptions.DEFAULT, body);
                            answers.forEachRemaining(answer -> {});
                        })
                        .as(method.getFullMethodName())
                        .isInstanceOfSatisfying(
                                io.grpc.StatusRuntimeException.class,
                                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                        .hasMessage("INVALID_ARGUMENT: " + MalformedRequests.MESSAGE);
            }
        }

        java.util.concurrent.CompletableFuture<byte[]> loaded = new java.util.concurrent.CompletableFuture<>();
        StreamObserver<byte[]> chunks = io.grpc.stub.ClientCalls.asyncClientStreamingCall(
                client.channel().newCall(rawBytes(TreeCatGrpc.getBulkLoadMethod()), io.grpc.CallOptions.DEFAULT),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        loaded.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        loaded.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                });
        chunks.onNext(io.treecat.grpc.v1.BulkLoadChunk.newBuilder()
                .setJsonLines("{\"path\": \"/loaded\", \"kind\": \"inner\"}\n")
                .build()
                .toByteArray());
        chunks.onNext(lying);
        chunks.onCompleted();
        assertThatThrownBy(() -> loaded.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(io.grpc.StatusRuntimeException.class)
                .hasRootCauseMessage("INVALID_ARGUMENT: " + MalformedRequests.MESSAGE);
        assertThat(client.get(ObjectPath.of("loaded"))).isEmpty();
        assertServerStillServes();
    }

    /** {@code method} with its messages as the bytes on the wire. */
    private static io.grpc.MethodDescriptor<byte[], byte[]> rawBytes(io.grpc.MethodDescriptor<?, ?> method) {
        io.grpc.MethodDescriptor.Marshaller<byte[]> bytes = new io.grpc.MethodDescriptor.Marshaller<>() {
            @Override
            public java.io.InputStream stream(byte[] value) {
                return new java.io.ByteArrayInputStream(value);
            }

            @Override
            public byte[] parse(java.io.InputStream stream) {
                try {
                    return stream.readAllBytes();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
        return io.grpc.MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(method.getType())
                .setFullMethodName(method.getFullMethodName())
                .setRequestMarshaller(bytes)
                .setResponseMarshaller(bytes)
                .build();
    }

    private static io.treecat.grpc.v1.CommitRequest add(String path, byte[] bson) {
        return CommitRequest.newBuilder()
                .addWrites(io.treecat.grpc.v1.WriteOp.newBuilder()
                        .setAdd(AddOp.newBuilder().setPath(path).setBson(ByteString.copyFrom(bson))))
                .build();
    }

    private static <T> T call(java.util.function.Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (io.grpc.StatusRuntimeException e) {
            throw TreeCatClientException.from(e);
        }
    }

    private void assertServerStillServes() {
        long vid = client.commit(WriteSet.of(inner("/alive", "{ok: true}"))).vid();
        assertThat(client.get(ObjectPath.of("alive")))
                .map(CatalogObject::version)
                .hasValue(vid);
        assertThat(server.isServing()).isTrue();
    }

    /** Polls until {@code condition} holds; what it waits for happens on server threads. */
    private static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
