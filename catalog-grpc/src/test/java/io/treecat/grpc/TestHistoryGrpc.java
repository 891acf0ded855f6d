package io.treecat.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.HistoryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.grpc.v1.ChangeKind;
import io.treecat.grpc.v1.CommitEntry;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.ListCommitsRequest;
import io.treecat.grpc.v1.ListCommitsResponse;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListCommits and reads by time over a real server on loopback, a real RocksDB catalog, the Java client. */
class TestHistoryGrpc {
    private static final GrpcServerConfig CONFIG =
            GrpcServerConfig.defaults().withHost("127.0.0.1").withPort(0).withShutdownGrace(Duration.ofSeconds(5));

    @TempDir
    Path directory;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-24T09:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private CatalogService catalog;
    private TreeCatGrpcServer server;
    private TreeCatClient client;

    @BeforeEach
    void start() {
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory), clock), TransactionConfig.defaults(), clock);
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

    private long write(WriteOp op) {
        return client.commit(WriteSet.of(op)).vid();
    }

    private static WriteOp add(String path, String owner) {
        return new WriteOp.Add(
                ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{owner: '" + owner + "'}"));
    }

    private static WriteOp update(String path, String owner) {
        return new WriteOp.Update(
                ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{owner: '" + owner + "'}"));
    }

    private static String owner(CatalogObject object) {
        return object.value().getString("owner").getValue();
    }

    @Test
    void listCommitsPagesBySubtreeAndSurvivesRestart() {
        long v1 = write(add("/sales", "ann"));
        long v2 = write(add("/hr", "bob"));
        now.set(Instant.parse("2026-11-24T10:00:00Z"));
        long v3 = write(add("/sales/orders", "cy"));
        long v4 = write(new WriteOp.Remove(ObjectPath.parse("/sales/orders")));

        ListCommitsResponse all = client.listCommits(HistoryRequest.all());
        assertThat(all.getCommitsList()).extracting(CommitEntry::getVid).containsExactly(v1, v2, v3, v4);
        CommitEntry third = all.getCommits(2);
        assertThat(third.getCommitTime()).isEqualTo("2026-11-24T10:00:00Z");
        assertThat(third.getInterface()).isEqualTo("native");
        assertThat(third.getOperation()).isEqualTo("commit");
        assertThat(third.getPrincipal()).isEmpty();
        assertThat(third.getAdded()).isEqualTo(1);
        assertThat(third.getChanges(0).getPath()).isEqualTo("/sales/orders");
        assertThat(third.getChanges(0).getChange()).isEqualTo(ChangeKind.CHANGE_KIND_ADDED);
        assertThat(all.getCommits(3).getChanges(0).getChange()).isEqualTo(ChangeKind.CHANGE_KIND_REMOVED);
        assertThat(all.getNextPageToken()).isEmpty();

        stop();
        start();

        List<Long> sales = new ArrayList<>();
        HistoryRequest request = new HistoryRequest(ObjectPath.parse("/sales"), null, null, 2, true, null);
        while (true) {
            ListCommitsResponse page = client.listCommits(request);
            page.getCommitsList().forEach(entry -> sales.add(entry.getVid()));
            if (page.getNextPageToken().isEmpty()) {
                break;
            }
            request = new HistoryRequest(request.path(), null, null, request.limit(), true, page.getNextPageToken());
        }
        assertThat(sales).containsExactly(v4, v3, v1);

        ListCommitsResponse since = client.listCommits(new HistoryRequest(
                ObjectPath.ROOT,
                ReadPoint.time(Instant.parse("2026-11-24T09:30:00Z")),
                ReadPoint.vid(v3),
                10,
                false,
                null));
        assertThat(since.getCommitsList()).extracting(CommitEntry::getVid).containsExactly(v3);
    }

    @Test
    void readsAsOfATimeSeeTheVersionOfThen() {
        write(add("/sales", "ann"));
        now.set(Instant.parse("2026-11-24T10:00:00Z"));
        write(update("/sales", "bob"));
        write(add("/sales/orders", "cy"));

        ReadPoint nine = ReadPoint.time(Instant.parse("2026-11-24T09:59:59Z"));
        assertThat(owner(client.get(ObjectPath.parse("/sales"), nine).orElseThrow()))
                .isEqualTo("ann");
        assertThat(client.get(ObjectPath.parse("/sales/orders"), nine)).isEmpty();
        assertThat(owner(client.get(ObjectPath.parse("/sales"), ReadPoint.time(Instant.parse("2026-11-24T10:00:00Z")))
                        .orElseThrow()))
                .isEqualTo("bob");
        try (QueryResults results =
                client.query(QuerySpec.of("/[obj_id='sales']/*").at(nine))) {
            assertThat(results.hasNext()).isFalse();
            assertThat(results.vid()).hasValue(1);
        }
        // An offset other than Z names the same instant.
        assertThat(owner(client.get(
                                ObjectPath.parse("/sales"),
                                ReadPoint.time(java.time.OffsetDateTime.parse("2026-11-24T10:30:00+01:00")
                                        .toInstant()))
                        .orElseThrow()))
                .isEqualTo("ann");
    }

    @Test
    void aTimeBeforeHistoryOrNotATimeIsAClearError() {
        write(add("/sales", "ann"));
        assertThatThrownBy(() ->
                        client.get(ObjectPath.parse("/sales"), ReadPoint.time(Instant.parse("2026-11-24T08:00:00Z"))))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.errorCode()).contains("TIME_BEFORE_HISTORY");
                    assertThat(e.getMessage()).contains("before the oldest recorded commit, at 2026-11-24T09:00:00Z");
                    assertThat(e.context()).containsEntry("oldestVid", "1");
                });

        var stub = TreeCatGrpc.newBlockingStub(client.channel());
        assertThatThrownBy(() -> stub.getObject(GetObjectRequest.newBuilder()
                        .setPath("/sales")
                        .setReadPoint(io.treecat.grpc.v1.ReadPoint.newBuilder().setAsOfTime("yesterday"))
                        .build()))
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription())
                            .contains("read_point.as_of_time is not an RFC 3339 time");
                });
        assertThatThrownBy(() -> stub.listCommits(
                        ListCommitsRequest.newBuilder().setPageToken("h1.x").build()))
                .isInstanceOfSatisfying(
                        io.grpc.StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> stub.listCommits(
                        ListCommitsRequest.newBuilder().setLimit(5000).build()))
                .isInstanceOfSatisfying(
                        io.grpc.StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        // The server is still up and the store untouched.
        assertThat(client.listCommits(HistoryRequest.all()).getCommitsCount()).isEqualTo(1);
    }

    @Test
    void bulkLoadChunksAreCompactEntries() {
        write(add("/lake", "ann"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            lines.append("{\"path\": \"/lake/t").append(i).append("\", \"kind\": \"inner\", \"value\": {}}\n");
        }
        client.bulkLoad(new StringReader(lines.toString()), 10, records -> {});
        ListCommitsResponse log = client.listCommits(HistoryRequest.all());
        assertThat(log.getCommitsCount()).isEqualTo(4);
        CommitEntry chunk = log.getCommits(1);
        assertThat(chunk.getInterface() + "." + chunk.getOperation()).isEqualTo("load.chunk");
        assertThat(chunk.getCompact()).isTrue();
        assertThat(chunk.getAdded()).isEqualTo(10);
        assertThat(chunk.getChangesList()).isEmpty();
        assertThat(chunk.getPrefixesList()).containsExactly("/lake");
    }
}
