package io.treecat.rest.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The JSON of recent load-table answers, by ETag. An ETag names one metadata file and one snapshot
 * mode, and a metadata file never changes, so the body stays right. A hot table is loaded by every
 * writer before it commits and again when Iceberg's client refreshes after its commit: without
 * this, each load serializes the whole metadata (every snapshot) again. Bounded by characters,
 * least recently used first out.
 */
final class LoadTableBodies {
    /** About 64 MB of heap at most: a table with thousands of snapshots answers a few MB. */
    private static final long MAX_CHARS = 32L * 1024 * 1024;

    private final Map<String, String> entries = new LinkedHashMap<>(16, 0.75f, true);
    /** Bodies being made now, by ETag: a second caller waits for the first one's. */
    private final ConcurrentHashMap<String, CompletableFuture<String>> making = new ConcurrentHashMap<>();

    private long chars;

    /**
     * The body for {@code etag}, made by {@code body} if it is not cached. Made once for the callers
     * that ask for it at the same time: the appends of one chain are answered the same metadata file
     * at the same moment, and each serializing it again would cost a whole-metadata serialization
     * per member.
     */
    String get(String etag, Supplier<String> body) {
        synchronized (this) {
            String cached = entries.get(etag);
            if (cached != null) {
                return cached;
            }
        }
        CompletableFuture<String> mine = new CompletableFuture<>();
        CompletableFuture<String> running = making.putIfAbsent(etag, mine);
        if (running != null) {
            try {
                return running.join();
            } catch (CompletionException e) {
                // The maker's own failure is its own to answer; this caller makes the body itself.
                return body.get();
            }
        }
        try {
            String made = put(etag, body.get());
            mine.complete(made);
            return made;
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            making.remove(etag, mine);
        }
    }

    /** Remembers the body of {@code etag}, answered by a commit, for the loads that follow it. */
    synchronized String put(String etag, String body) {
        if (body.length() > MAX_CHARS / 4) {
            return body;
        }
        String previous = entries.put(etag, body);
        chars += body.length() - (previous == null ? 0 : previous.length());
        var eldest = entries.entrySet().iterator();
        while (chars > MAX_CHARS && eldest.hasNext()) {
            chars -= eldest.next().getValue().length();
            eldest.remove();
        }
        return body;
    }
}
