package io.treecat.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.v1.ChangeKind;
import io.treecat.grpc.v1.FeedEvent;
import io.treecat.grpc.v1.SubscribeRequest;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Subscribe over a real server on loopback, a real RocksDB catalog and the real commit pipeline. */
class TestChangeFeedGrpc {
    private static final GrpcServerConfig CONFIG =
            GrpcServerConfig.defaults().withHost("127.0.0.1").withPort(0).withShutdownGrace(Duration.ofSeconds(20));
    private static final int MAX_SUBSCRIBERS = 3;

    @TempDir
    Path directory;

    private CatalogService catalog;
    private ChangeFeed feed;
    private TreeCatGrpcServer server;
    private TreeCatClient client;

    @BeforeEach
    void start() {
        open();
    }

    private void open() {
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory)), TransactionConfig.defaults(), Clock.systemUTC());
        feed = new ChangeFeed(catalog.tree(), MAX_SUBSCRIBERS);
        server = new TreeCatGrpcServer(catalog, feed, CONFIG);
        server.start();
        client = TreeCatClient.connect("127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
        feed.close();
        catalog.close();
    }

    private long add(String path) {
        return client.commit(WriteSet.of(
                        new WriteOp.Add(ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{a: 1}"))))
                .vid();
    }

    private static SubscribeRequest after(long vid) {
        return SubscribeRequest.newBuilder().setAfterVid(vid).build();
    }

    /** Reads events until {@code commits} commits came, on the caller's thread. */
    private static List<Long> commits(Iterator<FeedEvent> events, int commits) {
        List<Long> vids = new ArrayList<>();
        while (vids.size() < commits) {
            FeedEvent event = events.next();
            if (event.hasCommit()) {
                vids.add(event.getCommit().getVid());
            }
        }
        return vids;
    }

    private static List<Long> range(long from, long to) {
        List<Long> vids = new ArrayList<>();
        for (long vid = from; vid <= to; vid++) {
            vids.add(vid);
        }
        return vids;
    }

    private static ErrorInfo errorInfo(StatusRuntimeException status) throws InvalidProtocolBufferException {
        return StatusProto.fromThrowable(status).getDetails(0).unpack(ErrorInfo.class);
    }

    @Test
    void concurrentWritersAreSeenOnceInVidOrderAcrossReplayAndLive() throws Exception {
        for (int i = 0; i < 20; i++) {
            add("/early" + i);
        }
        int writers = 4;
        int perWriter = 30;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            CountDownLatch started = new CountDownLatch(writers);
            List<Future<?>> writing = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writing.add(pool.submit(() -> {
                    started.countDown();
                    for (int i = 0; i < perWriter; i++) {
                        add("/w" + writer + "_" + i);
                    }
                    return null;
                }));
            }
            started.await();
            int total = 20 + writers * perWriter;
            Future<List<Long>> reading =
                    pool.submit(() -> context.call(() -> commits(client.subscribe(after(0)), total)));
            for (Future<?> future : writing) {
                future.get(60, TimeUnit.SECONDS);
            }
            assertThat(reading.get(60, TimeUnit.SECONDS)).containsExactlyElementsOf(range(1, total));
            context.cancel(null);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aClientResumesAfterTheLastVidItSawAndGetsTheRest() throws Exception {
        for (int i = 0; i < 10; i++) {
            add("/t" + i);
        }
        List<Long> first;
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            first = context.call(() -> {
                Iterator<FeedEvent> events = client.subscribe(after(0));
                FeedEvent start = events.next();
                assertThat(start.getCheckpointVid()).isZero();
                return commits(events, 4);
            });
        }
        assertThat(first).containsExactly(1L, 2L, 3L, 4L);
        // The server frees the place of the cancelled stream, and forgets it.
        Eventually.until(Duration.ofSeconds(10), () -> feed.subscriberCount() == 0);
        Eventually.until(
                Duration.ofSeconds(10), () -> server.service().streams().isEmpty());
        for (int i = 10; i < 15; i++) {
            add("/t" + i);
        }
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            List<Long> rest = context.call(() -> {
                Iterator<FeedEvent> events = client.subscribe(after(4));
                assertThat(events.next().getCheckpointVid()).isEqualTo(4);
                return commits(events, 11);
            });
            assertThat(rest).containsExactlyElementsOf(range(5, 15));
        }
    }

    @Test
    void filtersByPrefixAndKindsAndCheckpointsPastRefusedCommits() throws Exception {
        add("/retail");
        add("/hr");
        long table = add("/retail/sales");
        long removed = client.commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse("/retail/sales"))))
                .vid();
        long other = add("/hr/people");
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            List<FeedEvent> events = context.call(() -> {
                Iterator<FeedEvent> stream = client.subscribe(SubscribeRequest.newBuilder()
                        .setAfterVid(2)
                        .setPath("/retail")
                        .addChangeKinds(ChangeKind.CHANGE_KIND_REMOVED)
                        .build());
                List<FeedEvent> seen = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    seen.add(stream.next());
                }
                return seen;
            });
            assertThat(events.get(0).getCheckpointVid()).isEqualTo(2);
            assertThat(events.get(1).getCommit().getVid()).isEqualTo(removed);
            assertThat(events.get(1).getCommit().getChangesList())
                    .extracting(change -> change.getChange())
                    .containsExactly(ChangeKind.CHANGE_KIND_REMOVED);
            // The commit under /hr is looked at, not sent: the checkpoint says the feed is past it.
            assertThat(events.get(2).getCheckpointVid()).isEqualTo(other);
            assertThat(table).isLessThan(removed);
        }
    }

    @Test
    void badRequestsAreRefusedNamingTheField() throws Exception {
        add("/a");
        StatusRuntimeException past = catchStatus(after(9));
        assertThat(past.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(errorInfo(past).getReason()).isEqualTo("VID_NOT_FOUND");
        assertThat(errorInfo(past).getMetadataMap()).containsEntry("newestVid", "1");
        StatusRuntimeException kind = catchStatus(SubscribeRequest.newBuilder()
                .addChangeKinds(ChangeKind.CHANGE_KIND_UNSPECIFIED)
                .build());
        assertThat(kind.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(errorInfo(kind).getMetadataMap()).containsEntry("field", "change_kinds");
        StatusRuntimeException path =
                catchStatus(SubscribeRequest.newBuilder().setPath("no-slash").build());
        assertThat(path.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        StatusRuntimeException negative = catchStatus(after(-1));
        assertThat(negative.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        // The server carries on.
        assertThat(add("/b")).isEqualTo(2);
        assertThat(feed.subscriberCount()).isZero();
        assertThat(server.service().streams()).isEmpty();
    }

    private StatusRuntimeException catchStatus(SubscribeRequest request) {
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
                    () -> context.call(() -> client.subscribe(request).next()));
            assertThat(thrown).isInstanceOf(StatusRuntimeException.class);
            return (StatusRuntimeException) thrown;
        }
    }

    @Test
    void aSlowConsumerHoldsTheServerAtABoundedNumberOfSentEventsThenGetsEverything() throws Exception {
        // Records of about 2 KiB each: 400 of them are far more than the transport's windows hold.
        int commits = 400;
        String padding = "p".repeat(60);
        for (int i = 0; i < commits; i++) {
            List<WriteOp> ops = new ArrayList<>();
            for (int j = 0; j < 20; j++) {
                ops.add(new WriteOp.Add(
                        ObjectPath.of("c" + i + "_" + j + padding), ObjectKind.INNER, BsonDocument.parse("{}")));
            }
            catalog.commit(WriteSet.of(ops.toArray(new WriteOp[0])));
        }
        // HTTP/2's usual 64 KiB window (a fixed one: the default tunes itself up to megabytes, which 400 small
        // records would fit in).
        ManagedChannel channel = NettyChannelBuilder.forTarget("127.0.0.1:" + server.port())
                .usePlaintext()
                .flowControlWindow(65_535)
                .build();
        List<Long> received = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<ClientCallStreamObserver<SubscribeRequest>> stream = new AtomicReference<>();
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        try {
            TreeCatGrpc.newStub(channel).subscribe(after(0), new ClientResponseObserver<SubscribeRequest, FeedEvent>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<SubscribeRequest> requestStream) {
                    requestStream.disableAutoRequestWithInitial(1);
                    stream.set(requestStream);
                }

                @Override
                public void onNext(FeedEvent event) {
                    if (event.hasCommit()) {
                        received.add(event.getCommit().getVid());
                    }
                }

                @Override
                public void onError(Throwable t) {
                    ended.complete(t);
                }

                @Override
                public void onCompleted() {
                    ended.complete(null);
                }
            });
            Eventually.until(
                    Duration.ofSeconds(10), () -> server.service().streams().size() == 1);
            FeedStreamer streamer = server.service().streams().iterator().next();
            // The server sends until flow control pushes back, then stops: it buffers nothing of its own.
            Eventually.until(Duration.ofSeconds(10), () -> streamer.sent() > 1);
            long settled = waitUntilStable(streamer);
            assertThat(settled).isLessThan(commits / 2);
            // More commits while the client still does not read: still nothing more is sent or held.
            for (int i = 0; i < 50; i++) {
                add("/more" + i);
            }
            Thread.sleep(300);
            assertThat(streamer.sent()).isLessThanOrEqualTo(settled + 1);
            assertThat(streamer.position()).isLessThan(commits);
            // Reading again, the client gets every record once, in order.
            stream.get().request(Integer.MAX_VALUE);
            Eventually.until(Duration.ofSeconds(30), () -> received.size() == commits + 50);
            assertThat(received).containsExactlyElementsOf(range(1, commits + 50));
            assertThat(ended).isNotDone();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** The streamer's sent count once it stopped moving for a while. */
    private static long waitUntilStable(FeedStreamer streamer) throws InterruptedException {
        long last = -1;
        while (true) {
            long now = streamer.sent();
            if (now == last) {
                return now;
            }
            last = now;
            Thread.sleep(300);
        }
    }

    @Test
    void theSubscriberLimitIsResourceExhaustedNamingItsKey() throws Exception {
        add("/a");
        List<Context.CancellableContext> open = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_SUBSCRIBERS; i++) {
                Context.CancellableContext context = Context.current().withCancellation();
                open.add(context);
                Iterator<FeedEvent> events = context.call(() -> client.subscribe(after(0)));
                assertThat(events.next().hasCheckpointVid()).isTrue();
            }
            StatusRuntimeException refused = catchStatus(after(0));
            assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.getStatus().getDescription()).contains("feed.max-subscribers");
            assertThat(errorInfo(refused).getReason()).isEqualTo("SUBSCRIBER_LIMIT_REACHED");
            open.remove(0).cancel(null);
            Eventually.until(Duration.ofSeconds(10), () -> feed.subscriberCount() == MAX_SUBSCRIBERS - 1);
            try (Context.CancellableContext context = Context.current().withCancellation()) {
                assertThat(context.call(() -> client.subscribe(after(0)).next().getCheckpointVid()))
                        .isZero();
            }
        } finally {
            open.forEach(context -> context.cancel(null));
        }
    }

    @Test
    void shutdownEndsStreamsAtOnceNamingWhereToResume() throws Exception {
        long vid = add("/a");
        Iterator<FeedEvent> events = client.subscribe(after(0));
        assertThat(commits(events, 1)).containsExactly(vid);
        long start = System.nanoTime();
        server.shutdown();
        // Well within the 20 s grace: the stream did not hold the shutdown.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThatThrownBy(() -> events.next())
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
                .hasMessageContaining("subscribe again with after_vid " + vid);
    }

    @Test
    void aSubscriberResumesFromAVidCommittedBeforeARestart() throws Exception {
        for (int i = 0; i < 5; i++) {
            add("/r" + i);
        }
        stop();
        open();
        long after = add("/after-restart");
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            List<Long> vids = context.call(() -> commits(client.subscribe(after(2)), 4));
            assertThat(vids).containsExactly(3L, 4L, 5L, after);
        }
    }
}
