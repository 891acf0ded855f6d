package io.treecat.rest.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The JSON of recent load-table answers, by ETag, encoded once ({@link EncodedBody}). An ETag names one metadata file and one snapshot
 * mode, and a metadata file never changes, so the body stays right. A hot table is loaded by every
 * writer before it commits and again when Iceberg's client refreshes after its commit: without
 * this, each load serializes the whole metadata (every snapshot) again, and compresses it again.
 * Bounded by bytes, least recently used first out.
 */
final class LoadTableBodies {
    /** 64 MB of heap at most: a table with thousands of snapshots answers a few MB. */
    private static final long MAX_BYTES = 64L * 1024 * 1024;

    private final Map<String, EncodedBody> entries = new LinkedHashMap<>(16, 0.75f, true);
    /** Bodies being made now, by ETag: a second caller waits for the first one's. */
    private final ConcurrentHashMap<String, CompletableFuture<EncodedBody>> making = new ConcurrentHashMap<>();

    private long bytes;

    /**
     * The body for {@code etag}, made by {@code body} if it is not cached. Made once for the callers
     * that ask for it at the same time: the appends of one chain are answered the same metadata file
     * at the same moment, and each serializing it again would cost a whole-metadata serialization
     * per member.
     */
    EncodedBody get(String etag, Supplier<EncodedBody> body) {
        synchronized (this) {
            EncodedBody cached = entries.get(etag);
            if (cached != null) {
                return cached;
            }
        }
        CompletableFuture<EncodedBody> mine = new CompletableFuture<>();
        CompletableFuture<EncodedBody> running = making.putIfAbsent(etag, mine);
        if (running != null) {
            try {
                return running.join();
            } catch (CompletionException e) {
                // The maker's own failure is its own to answer; this caller makes the body itself.
                return body.get();
            }
        }
        try {
            EncodedBody made = put(etag, body.get());
            mine.complete(made);
            return made;
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            making.remove(etag, mine);
        }
    }

    /**
     * Remembers the body of {@code etag} for the loads that follow. Counted at its JSON's size plus a
     * share for the gzip it may gain later (a metadata file compresses to a tenth or less), so that the
     * bound holds without counting again.
     */
    private synchronized EncodedBody put(String etag, EncodedBody body) {
        long size = weight(body);
        if (size > MAX_BYTES / 4) {
            return body;
        }
        EncodedBody previous = entries.put(etag, body);
        bytes += size - (previous == null ? 0 : weight(previous));
        var eldest = entries.entrySet().iterator();
        while (bytes > MAX_BYTES && eldest.hasNext()) {
            bytes -= weight(eldest.next().getValue());
            eldest.remove();
        }
        return body;
    }

    private static long weight(EncodedBody body) {
        return body.jsonBytes() + body.jsonBytes() / 4;
    }
}
