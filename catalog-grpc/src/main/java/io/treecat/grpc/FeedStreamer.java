package io.treecat.grpc;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.feed.ChangeFilter;
import io.treecat.core.feed.FeedPage;
import io.treecat.core.feed.Subscription;
import io.treecat.core.history.CommitRecord;
import io.treecat.grpc.v1.FeedEvent;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Streams one {@code Subscribe} call from its {@link Subscription}: reads the log after the
 * position and sends while the transport can take more ({@code isReady}). When it cannot, the
 * position goes back to just before the first record not sent, so the server holds at most one
 * record beyond what gRPC's flow control let through; a subscriber that falls behind is read from
 * the log again when gRPC calls {@code onReady}, rather than buffered.
 *
 * <p>Drains run on the feed's threads, one at a time per call ({@link Subscription}); gRPC's own
 * callbacks (ready, cancel) only request a drain or end the subscription.
 */
final class FeedStreamer implements Subscription.Follower {
    /** Records read from the log per step of a drain. */
    static final int PAGE = 64;

    private final ServerCallStreamObserver<FeedEvent> call;
    private final AtomicBoolean done = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private volatile Subscription subscription;
    private volatile boolean stopping;
    /** Told once the call is over, by a close or a cancel: the service forgets the stream. */
    private Runnable ended = () -> {};
    /** The vid of the last event sent: a commit's or a checkpoint's. Drain thread only. */
    private long lastSent = -1;

    FeedStreamer(ServerCallStreamObserver<FeedEvent> call) {
        this.call = call;
    }

    /**
     * Opens the subscription and registers with the call; the first drain sends the start checkpoint.
     *
     * @throws io.treecat.core.error.CatalogException if the feed refuses the subscriber (the limit)
     */
    void start(ChangeFeed feed, ChangeFilter filter, long position, Runnable ended) {
        this.ended = ended;
        call.setOnCancelHandler(this::cancelled);
        call.setOnCloseHandler(ended);
        call.setOnReadyHandler(() -> {
            Subscription open = subscription;
            if (open != null) {
                open.requestDrain();
            }
        });
        subscription = feed.subscribe(filter, position, this);
    }

    /** Events handed to gRPC so far (commits and checkpoints): what a test of backpressure watches. */
    long sent() {
        return sent.get();
    }

    long position() {
        Subscription open = subscription;
        return open == null ? -1 : open.position();
    }

    private void cancelled() {
        if (done.compareAndSet(false, true)) {
            close();
        }
        ended.run();
    }

    private void close() {
        Subscription open = subscription;
        if (open != null) {
            open.close();
        }
    }

    @Override
    public void drain(Subscription subscription) {
        try {
            if (stopping) {
                stop();
                return;
            }
            if (lastSent < 0) {
                send(FeedEvent.newBuilder()
                        .setCheckpointVid(subscription.position())
                        .build());
                lastSent = subscription.position();
            }
            while (!done.get() && call.isReady()) {
                FeedPage page = subscription.next(PAGE);
                for (CommitRecord record : page.records()) {
                    if (done.get()) {
                        return;
                    }
                    if (!call.isReady()) {
                        // Read again from this record once the transport drains: nothing waits in memory.
                        // Every vid before it was sent or refused by the filter, and is at or after the
                        // position this drain began at, which the retention pin still holds.
                        subscription.rewind(record.vid() - 1);
                        return;
                    }
                    send(FeedEvent.newBuilder()
                            .setCommit(WireFormat.commit(record))
                            .build());
                    lastSent = record.vid();
                }
                if (page.caughtUp()) {
                    if (page.position() > lastSent && !done.get()) {
                        send(FeedEvent.newBuilder()
                                .setCheckpointVid(page.position())
                                .build());
                        lastSent = page.position();
                    }
                    return;
                }
            }
        } catch (RuntimeException | Error e) {
            if (done.compareAndSet(false, true)) {
                close();
                call.onError(GrpcErrors.toStatus(e));
            }
        }
    }

    private void send(FeedEvent event) {
        call.onNext(event);
        sent.incrementAndGet();
    }

    /**
     * Ends the stream with UNAVAILABLE, naming the vid to resume after: the server is stopping. The
     * end is sent by the next drain, so it never races a record being sent.
     */
    void endForShutdown() {
        stopping = true;
        Subscription open = subscription;
        if (open != null) {
            open.requestDrain();
        }
    }

    private void stop() {
        if (done.compareAndSet(false, true)) {
            close();
            call.onError(Status.UNAVAILABLE
                    .withDescription("The server is shutting down; subscribe again with after_vid " + lastSent)
                    .asRuntimeException());
        }
    }
}
