package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The remembered {@code Idempotency-Key}s of {@link IcebergIdempotency}: for each key, the request
 * it was first used with (a fingerprint) and, once there is one, its final response. In memory and
 * bounded: at most {@code maxEntries} keys and {@code maxBodyBytes} of answers, the oldest finished ones dropped
 * first, and a key is forgotten {@code lifetime} after its first use. A key dropped before its lifetime is answered
 * again from its durable record ({@link IdempotencyRecords}), as after a restart. Thread safe.
 *
 * <p>The byte bound matters: a table commit's answer is the table's whole metadata, and Iceberg's Java client sends a
 * key with every commit, so a busy table's answers (each one a new metadata version, up to MBs) filled a 1 GB heap
 * long before 10,000 keys (docs/benchmarks-history.md, "REST hot path").
 */
final class IdempotencyKeys {
    private final Clock clock;
    private final Duration lifetime;
    private final int maxEntries;
    private final long maxBodyBytes;
    /** The answers' bytes the finished entries hold, guarded by {@code this} (a body shared by several counts for each). */
    private long bodyBytes;
    /** Guarded by {@code this}; in insertion order, so the oldest entries come first. */
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();

    IdempotencyKeys(Clock clock, Duration lifetime, int maxEntries) {
        this(clock, lifetime, maxEntries, Long.MAX_VALUE);
    }

    IdempotencyKeys(Clock clock, Duration lifetime, int maxEntries, long maxBodyBytes) {
        this.clock = requireNonNull(clock, "clock is null");
        if (maxBodyBytes < 0) {
            throw new IllegalArgumentException("maxBodyBytes must not be negative: " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
        this.lifetime = requireNonNull(lifetime, "lifetime is null");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be positive: " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /** A final response, as it is replayed. */
    /**
     * A final answer. Its body is the one the first request was answered, shared and not copied: the
     * members of a commit chain are all answered one table body, and up to {@code maxEntries} keys
     * may hold it.
     */
    record Stored(int status, String contentType, String etag, EncodedBody body) {
        Stored(int status, String contentType, String etag, String json) {
            this(status, contentType, etag, json == null ? null : EncodedBody.of(json));
        }
    }

    /** One key: the request it was first used with, and its final response (completed with null if the request ended without one). */
    static final class Entry {
        final String key;
        final String fingerprint;
        final Instant firstSeen;
        final CompletableFuture<Stored> response = new CompletableFuture<>();
        /** The bytes of its answer's body once finished, guarded by the keys' lock. */
        long bytes;

        private Entry(String key, String fingerprint, Instant firstSeen) {
            this.key = key;
            this.fingerprint = fingerprint;
            this.firstSeen = firstSeen;
        }
    }

    /** The key's entry, and whether this caller created it (and so must run the request and {@link #finish} it). */
    record Claim(Entry entry, boolean first) {}

    /**
     * Claims a key for a request: a new (or expired) key gets a new entry that this caller owns; a
     * known key answers its entry, whose fingerprint the caller compares with its own.
     */
    synchronized Claim claim(String key, String fingerprint) {
        Instant now = clock.instant();
        Entry entry = entries.get(key);
        if (entry != null && !expired(entry, now)) {
            return new Claim(entry, false);
        }
        remove(key);
        entry = new Entry(key, fingerprint, now);
        entries.put(key, entry);
        evict(now);
        return new Claim(entry, true);
    }

    /** Records the final response of a claimed entry; null means there is none (a 5xx): the key is forgotten, so a retry runs again. */
    void finish(Entry entry, Stored stored) {
        synchronized (this) {
            if (entries.get(entry.key) == entry) {
                if (stored == null) {
                    remove(entry.key);
                } else if (stored.body() != null) {
                    entry.bytes = stored.body().jsonBytes();
                    bodyBytes += entry.bytes;
                }
            }
        }
        entry.response.complete(stored);
        synchronized (this) {
            evict(clock.instant());
        }
    }

    /** Forgets a key if it still maps to {@code entry} (a waiter saw the entry end without a final response). */
    synchronized void forget(Entry entry) {
        if (entries.get(entry.key) == entry) {
            remove(entry.key);
        }
    }

    /** The answers' bytes held now (for tests). */
    synchronized long bodyBytes() {
        return bodyBytes;
    }

    private void remove(String key) {
        Entry removed = entries.remove(key);
        if (removed != null) {
            bodyBytes -= removed.bytes;
        }
    }

    synchronized int size() {
        return entries.size();
    }

    /** Past the lifetime, finished or not (a request still running after it was abandoned: its waiters time out). */
    private boolean expired(Entry entry, Instant now) {
        return entry.firstSeen.plus(lifetime).isBefore(now);
    }

    /** Drops expired entries from the front, then the oldest finished ones while over a bound; running ones stay. */
    private void evict(Instant now) {
        Iterator<Map.Entry<String, Entry>> iterator = entries.entrySet().iterator();
        while (iterator.hasNext()) {
            Entry entry = iterator.next().getValue();
            boolean expired = expired(entry, now);
            if (!expired && entries.size() <= maxEntries && bodyBytes <= maxBodyBytes) {
                break;
            }
            if (expired || entry.response.isDone()) {
                iterator.remove();
                bodyBytes -= entry.bytes;
            }
        }
    }
}
