package io.treecat.core.version;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

/**
 * Callers waiting for a vid to be published on this node: a replica answering a commit it forwarded to
 * the leader only once it can read it, and a read asked for at a {@code min_vid}. Cheap to wait on many
 * vids at once; a publish completes every waiter at or below it.
 */
final class VidWaiters {
    private final ConcurrentSkipListMap<Long, ConcurrentLinkedQueue<CompletableFuture<Void>>> waiting =
            new ConcurrentSkipListMap<>();
    private final LongSupplier published;

    VidWaiters(LongSupplier published) {
        this.published = published;
    }

    CompletableFuture<Void> await(long vid) {
        if (vid <= published.getAsLong()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        waiting.computeIfAbsent(vid, v -> new ConcurrentLinkedQueue<>()).add(done);
        // A publish between the check above and the add would have missed this waiter: look again.
        if (vid <= published.getAsLong()) {
            published(published.getAsLong());
        }
        return done;
    }

    void published(long vid) {
        if (waiting.isEmpty()) {
            return;
        }
        ConcurrentNavigableMap<Long, ConcurrentLinkedQueue<CompletableFuture<Void>>> due = waiting.headMap(vid, true);
        for (Map.Entry<Long, ConcurrentLinkedQueue<CompletableFuture<Void>>> entry : due.entrySet()) {
            if (waiting.remove(entry.getKey(), entry.getValue())) {
                entry.getValue().forEach(waiter -> waiter.complete(null));
            }
        }
    }
}
