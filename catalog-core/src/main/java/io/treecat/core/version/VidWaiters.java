package io.treecat.core.version;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

/**
 * Callers waiting for a vid to be published on this node: a replica answering a commit it forwarded to
 * the leader only once it can read it, and a read asked for at a {@code min_vid}. Cheap to wait on many
 * vids at once; a publish completes every waiter at or below it. A waiter its caller gives up on
 * (cancelled, or completed on a timeout) is dropped at once, so asking for a vid that never comes
 * leaves nothing behind.
 */
final class VidWaiters {
    /** Immutable lists, replaced whole: the map's compute functions may run more than once. */
    private final ConcurrentSkipListMap<Long, List<CompletableFuture<Void>>> waiting = new ConcurrentSkipListMap<>();

    private final LongSupplier published;

    VidWaiters(LongSupplier published) {
        this.published = published;
    }

    CompletableFuture<Void> await(long vid) {
        if (vid <= published.getAsLong()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        waiting.compute(vid, (key, waiters) -> with(waiters, done));
        var unused = done.whenComplete(
                (ignored, failure) -> waiting.computeIfPresent(vid, (key, waiters) -> without(waiters, done)));
        // A publish between the check above and the registration would have missed this waiter: look again.
        if (vid <= published.getAsLong()) {
            published(published.getAsLong());
        }
        return done;
    }

    void published(long vid) {
        while (true) {
            var due = waiting.firstEntry();
            if (due == null || due.getKey() > vid) {
                return;
            }
            if (waiting.remove(due.getKey(), due.getValue())) {
                due.getValue().forEach(waiter -> waiter.complete(null));
            }
        }
    }

    /** Waiters registered and not yet completed or given up (for tests). */
    int size() {
        return waiting.values().stream().mapToInt(List::size).sum();
    }

    private static List<CompletableFuture<Void>> with(
            List<CompletableFuture<Void>> waiters, CompletableFuture<Void> waiter) {
        List<CompletableFuture<Void>> more = new ArrayList<>(waiters == null ? List.of() : waiters);
        more.add(waiter);
        return List.copyOf(more);
    }

    private static List<CompletableFuture<Void>> without(
            List<CompletableFuture<Void>> waiters, CompletableFuture<Void> waiter) {
        List<CompletableFuture<Void>> fewer = new ArrayList<>(waiters);
        fewer.remove(waiter);
        return fewer.isEmpty() ? null : List.copyOf(fewer);
    }
}
