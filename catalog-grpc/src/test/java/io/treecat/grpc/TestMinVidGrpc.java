package io.treecat.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code x-treecat-min-vid} and {@code x-treecat-vid} on the gRPC API (docs/replication.md, "Read-your-writes across
 * nodes"): a real server on a loopback port, a real RocksDB catalog, the Java client and a bare stub.
 */
class TestMinVidGrpc {
    private static final GrpcServerConfig CONFIG =
            GrpcServerConfig.defaults().withHost("127.0.0.1").withPort(0).withShutdownGrace(Duration.ofSeconds(5));

    @TempDir
    Path directory;

    private CatalogService catalog;
    private ChangeFeed feed;
    private TreeCatGrpcServer server;
    private TreeCatClient client;

    private void start(Duration minVidWait, Optional<GrpcAuthentication> authentication) {
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory, RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC());
        feed = new ChangeFeed(catalog.tree(), ChangeFeed.DEFAULT_MAX_SUBSCRIBERS);
        server = new TreeCatGrpcServer(catalog, feed, CONFIG.withMinVidWait(minVidWait), authentication);
        server.start();
        client = TreeCatClient.connect("127.0.0.1:" + server.port());
    }

    private void start(Duration minVidWait) {
        start(minVidWait, Optional.empty());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (feed != null) {
            feed.close();
        }
        if (catalog != null) {
            catalog.close();
        }
    }

    private long commit(String path) {
        return catalog.commit(WriteSet.of(
                        new WriteOp.Add(ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{}"))))
                .vid();
    }

    /** A GetObject through a bare stub with {@code minVid} as sent, capturing the answer's headers and trailers. */
    private Optional<StatusRuntimeException> rawGet(
            String minVid, AtomicReference<Metadata> headers, AtomicReference<Metadata> trailers) {
        Metadata sent = new Metadata();
        if (minVid != null) {
            sent.put(MinVidInterceptor.MIN_VID, minVid);
        }
        TreeCatGrpc.TreeCatBlockingStub stub = TreeCatGrpc.newBlockingStub(client.channel())
                .withInterceptors(
                        MetadataUtils.newAttachHeadersInterceptor(sent),
                        MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
        try {
            stub.getObject(GetObjectRequest.newBuilder().setPath("/a").build());
            return Optional.empty();
        } catch (StatusRuntimeException e) {
            return Optional.of(e);
        }
    }

    private static long vidIn(Metadata metadata) {
        assertThat(metadata).isNotNull();
        String vid = metadata.get(MinVidInterceptor.VID);
        assertThat(vid).as("x-treecat-vid in %s", metadata).isNotNull();
        return Long.parseLong(vid);
    }

    @Test
    void aPublishedMinVidIsServedAtOnceAndEveryAnswerNamesTheNodesVid() throws Exception {
        start(Duration.ofSeconds(10));
        long vid = commit("/a");

        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        long started = System.nanoTime();
        assertThat(rawGet(Long.toString(vid), headers, trailers)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(vidIn(headers.get())).isEqualTo(vid);

        // Without the metadata too, and on a streamed answer.
        headers.set(null);
        assertThat(rawGet(null, headers, trailers)).isEmpty();
        assertThat(vidIn(headers.get())).isEqualTo(vid);
        long later = commit("/b");
        try (QueryResults results = client.withMinVid(vid).query("/*")) {
            List<CatalogObject> objects = new ArrayList<>();
            results.forEachRemaining(objects::add);
            assertThat(objects).hasSize(2);
        }
        assertThat(client.newestVidSeen()).hasValue(later);

        // An error answer names it in its trailers (no headers were sent).
        headers.set(null);
        Metadata sent = new Metadata();
        sent.put(MinVidInterceptor.MIN_VID, "0");
        assertThatThrownBy(() -> TreeCatGrpc.newBlockingStub(client.channel())
                        .withInterceptors(
                                MetadataUtils.newAttachHeadersInterceptor(sent),
                                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
                        .getObject(
                                GetObjectRequest.newBuilder().setPath("db/t1").build()))
                .isInstanceOf(StatusRuntimeException.class);
        assertThat(headers.get()).isNull();
        assertThat(vidIn(trailers.get())).isEqualTo(later);
    }

    @Test
    void aVidNotYetPublishedWaitsUntilAnotherThreadCommitsIt() throws Exception {
        start(Duration.ofSeconds(20));
        long next = commit("/a") + 1;

        CompletableFuture<Optional<CatalogObject>> read =
                CompletableFuture.supplyAsync(() -> client.withMinVid(next).get(ObjectPath.parse("/b")));
        assertThatThrownBy(() -> read.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);

        assertThat(commit("/b")).isEqualTo(next);
        // Served once published, at a vid that includes it.
        assertThat(read.get(10, TimeUnit.SECONDS)).isPresent();
        assertThat(client.newestVidSeen()).hasValue(next);
    }

    @Test
    void aVidThatNeverComesFailsUnavailableAfterTheBoundNamingBoth() {
        start(Duration.ofMillis(300));
        long vid = commit("/a");
        long ahead = vid + 1_000_000;

        long started = System.nanoTime();
        assertThatThrownBy(() -> client.withMinVid(ahead).get(ObjectPath.parse("/a")))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.errorCode()).hasValue(MinVidInterceptor.VID_NOT_REACHED);
                    assertThat(e.context())
                            .containsEntry("minVid", Long.toString(ahead))
                            .containsEntry("vid", Long.toString(vid));
                    assertThat(e.getMessage()).contains("x-treecat-min-vid").contains(Long.toString(ahead));
                });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(client.newestVidSeen()).hasValue(vid);

        // A write asking for it is refused before it runs: nothing committed.
        assertThatThrownBy(() -> client.withMinVid(ahead)
                        .commit(WriteSet.of(new WriteOp.Add(
                                ObjectPath.parse("/never"), ObjectKind.INNER, BsonDocument.parse("{}")))))
                .isInstanceOfSatisfying(
                        TreeCatClientException.class,
                        e -> assertThat(e.errorCode()).hasValue(MinVidInterceptor.VID_NOT_REACHED));
        assertThat(catalog.lastVid()).isEqualTo(vid);
    }

    @Test
    void aMalformedMinVidIsInvalidArgument() {
        start(Duration.ofSeconds(10));
        for (String malformed : List.of("soon", "-1", "", "1.5", "99999999999999999999")) {
            AtomicReference<Metadata> headers = new AtomicReference<>();
            AtomicReference<Metadata> trailers = new AtomicReference<>();
            StatusRuntimeException e =
                    rawGet(malformed, headers, trailers).orElseThrow(() -> new AssertionError(malformed));
            assertThat(e.getStatus().getCode()).as(malformed).isEqualTo(Status.Code.INVALID_ARGUMENT);
            TreeCatClientException parsed = TreeCatClientException.from(e);
            assertThat(parsed.errorCode()).hasValue(GrpcErrors.INVALID_REQUEST);
            assertThat(parsed.context()).containsEntry("header", "x-treecat-min-vid");
            assertThat(vidIn(trailers.get())).isEqualTo(catalog.lastVid());
        }
    }

    @Test
    void callsPastTheirDeadlineStopWaitingAndFreeTheServersThreads() throws Exception {
        start(Duration.ofSeconds(30));
        long ahead = commit("/a") + 1_000;
        // More waiting calls at once than the server has threads: each ends at its deadline, not after the bound.
        TreeCatClient impatient = client.withDeadline(Duration.ofMillis(500)).withMinVid(ahead);
        ExecutorService callers = Executors.newFixedThreadPool(12);
        try {
            List<CompletableFuture<Status.Code>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                calls.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                impatient.get(ObjectPath.parse("/a"));
                                return Status.Code.OK;
                            } catch (TreeCatClientException e) {
                                return e.statusCode();
                            }
                        },
                        callers));
            }
            for (CompletableFuture<Status.Code> call : calls) {
                assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            }
        } finally {
            callers.shutdownNow();
        }
        // Their threads are free again: a call without a min vid is served well before the 30 s bound.
        assertThat(client.withDeadline(Duration.ofSeconds(5)).get(ObjectPath.parse("/a")))
                .isPresent();
    }

    @Test
    void anUnauthenticatedCallIsRefusedBeforeItCanWait() {
        start(Duration.ofSeconds(30), Optional.of(new GrpcAuthentication((token, method) -> {
            if (!token.equals("good")) {
                throw new GrpcAuthentication.Refused("The token is not valid");
            }
            return new GrpcAuthentication.Caller("alice", GrpcAuthentication.RowFilter.ALL);
        })));
        long ahead = commit("/a") + 1_000;

        long started = System.nanoTime();
        assertThatThrownBy(() -> client.withMinVid(ahead).get(ObjectPath.parse("/a")))
                .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                    // An unknown caller is not told the node's vid either.
                    StatusRuntimeException cause = (StatusRuntimeException) e.getCause();
                    assertThat(cause.getTrailers().get(MinVidInterceptor.VID)).isNull();
                });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));

        // A known caller is checked for its min vid, and told the vid.
        TreeCatClient alice = client.withBearerToken("good");
        assertThat(alice.withMinVid(ahead - 1_000).get(ObjectPath.parse("/a"))).isPresent();
        assertThat(alice.newestVidSeen()).hasValue(ahead - 1_000);
    }
}
