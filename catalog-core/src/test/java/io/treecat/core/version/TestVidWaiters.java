package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TestVidWaiters {
    private final AtomicLong published = new AtomicLong(5);
    private final VidWaiters waiters = new VidWaiters(published::get);

    private void publish(long vid) {
        published.set(vid);
        waiters.published(vid);
    }

    @Test
    void aPublishedVidIsThereAtOnceAndALaterOneWhenItIsPublished() {
        assertThat(waiters.await(5)).isDone();
        CompletableFuture<Void> six = waiters.await(6);
        CompletableFuture<Void> eight = waiters.await(8);
        assertThat(six).isNotDone();
        publish(7);
        assertThat(six).isDone();
        assertThat(eight).isNotDone();
        publish(8);
        assertThat(eight).isDone();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void aWaiterGivenUpOnLeavesNothingBehind() {
        // A vid that never comes (a hostile X-TreeCat-Min-Vid): cancelled, or timed out by its caller.
        CompletableFuture<Void> cancelled = waiters.await(1_000_000_000L);
        CompletableFuture<Void> timedOut = waiters.await(1_000_000_000L);
        CompletableFuture<Void> kept = waiters.await(1_000_000_000L);
        assertThat(waiters.size()).isEqualTo(3);
        cancelled.cancel(false);
        // The timeout starts only now: started before the count, it could fire first on a loaded machine.
        timedOut.completeOnTimeout(null, 1, TimeUnit.MILLISECONDS).join();
        assertThat(waiters.size()).isEqualTo(1);
        kept.cancel(false);
        assertThat(waiters.size()).isZero();
    }
}
