package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import io.treecat.core.history.CommitRecordCodec;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.PathKeys;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what no retained vid can see (issue 16, docs/storage.md "Retention and garbage
 * collection"). A pass:
 *
 * <ol>
 *   <li>moves the horizon forward: the smallest of the vid current at now − {@code retainFor}, the
 *       newest − {@code retainVersions} + 1, every named snapshot and every pinned read ({@link
 *       ReadPins}), computed under the pin lock and made durable before anything is deleted;
 *   <li>collects the primary leaf keys that clone references point at;
 *   <li>deletes inner history versions that ended at or below the horizon;
 *   <li>deletes leaf entries tombstoned at or below it, except primaries a reference still points at;
 *   <li>deletes commit-log records below it (the horizon's own record stays: it names the oldest
 *       readable time).
 * </ol>
 *
 * <p>Why nothing a reader or a commit needs is deleted: what a pass deletes is invisible at every vid
 * at or above the horizon; the horizon only moves forward and never past a registered read; reads
 * check the horizon after they read, so a read that raced a pass is refused rather than answered
 * wrongly. Commits never write into what a pass deletes: they write only the newest entries of a path
 * (keys of new vids sort before the old ones) and rewrite only a leaf that is still alive. So the dead
 * versions of one path are a suffix of its keys, and a pass deletes a long suffix with one RocksDB
 * range tombstone and a short one with point deletes.
 *
 * <p>Deletes are written without a WAL sync: one lost in a crash is found again by the next pass. The
 * pass is rate-limited to {@code rateLimit} keys a second, and stops between batches when paused or
 * closed.
 */
public final class GarbageCollector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);
    /** Dead versions of one path from which a range tombstone replaces point deletes. */
    static final int RANGE_DELETE_MIN = 8;

    private final VersionedTree tree;
    private final KvStore store;
    private final RetentionConfig config;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;

    private volatile boolean paused;
    /** Where a replicated tree's passes propose their horizon to the group; see {@link #agreeThrough}. */
    private volatile LongConsumer proposer;

    private volatile boolean closing;
    /** What a pass sleeping off its rate limit waits on, so that a pause wakes it at once. */
    private final Object throttleWake = new Object();
    /** The horizon the last completed pass swept to; -1 until one completes (a restart sweeps again). */
    private long sweptHorizon = -1;

    private final AtomicLong keysReclaimed = new AtomicLong();
    private final AtomicLong bytesReclaimed = new AtomicLong();
    private final AtomicLong passes = new AtomicLong();
    private volatile long lastPassMillis;

    /** What one pass did. */
    public record PassResult(long horizon, long keysDeleted, long bytesDeleted, boolean completed) {}

    public GarbageCollector(VersionedTree tree, RetentionConfig config, Clock clock) {
        this.tree = requireNonNull(tree, "tree is null");
        this.store = tree.kv();
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.paused = config.paused();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "treecat-gc");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts the background passes, if enabled. */
    public void start() {
        if (!config.enabled()) {
            LOG.info("Garbage collection is disabled: every version is kept");
            return;
        }
        long period = config.interval().toMillis();
        scheduler.scheduleWithFixedDelay(this::backgroundPass, period, period, TimeUnit.MILLISECONDS);
    }

    private void backgroundPass() {
        try {
            PassResult result = collect();
            if (result.keysDeleted() > 0) {
                LOG.info(
                        "Garbage collection reclaimed {} keys ({} bytes) up to horizon {}",
                        result.keysDeleted(),
                        result.bytesDeleted(),
                        result.horizon());
            }
        } catch (RuntimeException e) {
            // The next pass tries again; a store that failed refuses it too and says why.
            LOG.error("Garbage collection pass failed", e);
        }
    }

    /**
     * Stops background passes, including one in progress at its next batch, and returns once none
     * runs: from then on the horizon stays where it is until {@link #resume}. Reads and commits go on.
     */
    public void pause() {
        paused = true;
        synchronized (throttleWake) {
            throttleWake.notifyAll();
        }
        awaitNoPass();
    }

    /** Returns once no pass runs: {@link #collect} holds this object's monitor for the whole of a pass. */
    @SuppressWarnings("EmptySynchronizedStatement")
    private synchronized void awaitNoPass() {
        // Nothing to do: taking the monitor is the wait.
    }

    public void resume() {
        paused = false;
    }

    public boolean isPaused() {
        return paused;
    }

    public RetentionConfig config() {
        return config;
    }

    /**
     * Makes this collector one of a replicated group's (the tree {@link VersionedTree#replicated
     * replicates}): each pass proposes what its own rules allow through {@code proposer} (the group takes
     * it from the leader only), and collects no further than the group has agreed ({@link
     * VersionedTree#agreedHorizon}). Without it, a replicated tree's collector collects nothing.
     */
    public void agreeThrough(LongConsumer proposer) {
        this.proposer = requireNonNull(proposer, "proposer is null");
    }

    /** Runs one pass now (unless paused) and returns what it did. */
    public synchronized PassResult collect() {
        if (paused || closing) {
            return new PassResult(tree.horizon(), 0, 0, false);
        }
        long started = System.nanoTime();
        long horizon;
        if (tree.replicated()) {
            // The group's nodes collect in step: a named snapshot is checked on every node against the agreed
            // horizon when its turn in the log comes, so no node may have collected past it by then.
            long[] proposal = {0};
            horizon = tree.advanceHorizon(() -> {
                proposal[0] = candidate();
                return Math.min(proposal[0], tree.agreedHorizon());
            });
            LongConsumer group = proposer;
            if (group != null && proposal[0] > tree.agreedHorizon()) {
                group.accept(proposal[0]);
            }
        } else {
            horizon = tree.advanceHorizon(this::candidate);
        }
        Pass pass = new Pass();
        boolean completed = true;
        if (horizon > 0 && horizon != sweptHorizon) {
            completed = sweep(pass, horizon);
            // A deleted reference may have been the last one keeping a primary: the next pass looks again,
            // even if the horizon has not moved.
            if (completed && !pass.referencesDeleted) {
                sweptHorizon = horizon;
            }
        }
        passes.incrementAndGet();
        lastPassMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return new PassResult(horizon, pass.keys, pass.bytes, completed);
    }

    /** The horizon the retention rules and snapshots allow; called under the pin lock. */
    private long candidate() {
        long newest = tree.lastVid();
        long candidate;
        // The vid current at the cutoff must stay readable; a cutoff before the oldest record keeps everything.
        long byTime = config.retainFor().isPresent()
                ? tree.log()
                        .vidAt(clock.millis() - config.retainFor().get().toMillis())
                        .orElse(0)
                : -1;
        long byCount = config.retainVersions().isPresent()
                ? Math.max(0, newest - config.retainVersions().getAsLong() + 1)
                : -1;
        if (byTime >= 0 && byCount >= 0) {
            // Either rule keeps a vid: the horizon is the older of the two.
            candidate = Math.min(byTime, byCount);
        } else {
            candidate = Math.max(byTime, byCount);
        }
        for (NamedSnapshot snapshot : tree.listSnapshots()) {
            candidate = Math.min(candidate, snapshot.vid());
        }
        return Math.min(candidate, newest);
    }

    private boolean sweep(Pass pass, long horizon) {
        Set<ByteBuffer> referenced = referencedPrimaries();
        return sweepHistory(pass, horizon) && sweepLeaves(pass, horizon, referenced) && trimLog(pass, horizon);
    }

    /** Every primary leaf key a clone's reference points at: those stay while the reference does. */
    private Set<ByteBuffer> referencedPrimaries() {
        Set<ByteBuffer> referenced = new HashSet<>();
        try (KvIterator leaves = store.iterator(KeySpace.LEAF, null, null)) {
            for (leaves.seek(new byte[0]); leaves.isValid(); leaves.next()) {
                byte[] record = leaves.value();
                if (Records.leafIsReference(record)) {
                    referenced.add(ByteBuffer.wrap(Records.leafReference(record)));
                }
            }
        }
        return referenced;
    }

    private boolean sweepHistory(Pass pass, long horizon) {
        try (KvIterator history = store.iterator(KeySpace.INNER_HISTORY, null, null)) {
            history.seek(new byte[0]);
            while (history.isValid()) {
                if (pass.stopped()) {
                    return false;
                }
                byte[] key = history.key();
                byte[] record = history.value();
                if (Records.historyEndVid(record) > horizon) {
                    history.next();
                    continue;
                }
                // The first dead version of this path: every older one ended no later, so all that follow are dead.
                List<byte[]> dead = new ArrayList<>();
                dead.add(key);
                pass.bytes(key.length + record.length);
                boolean allDead = true;
                for (history.next(); history.isValid() && samePath(history.key(), key); history.next()) {
                    byte[] next = history.key();
                    byte[] nextRecord = history.value();
                    if (Records.historyEndVid(nextRecord) <= horizon) {
                        dead.add(next);
                        pass.bytes(next.length + nextRecord.length);
                    } else {
                        allDead = false;
                    }
                }
                delete(pass, KeySpace.INNER_HISTORY, key, dead, allDead);
            }
        }
        return pass.flush();
    }

    private boolean sweepLeaves(Pass pass, long horizon, Set<ByteBuffer> referenced) {
        try (KvIterator leaves = store.iterator(KeySpace.LEAF, null, null)) {
            leaves.seek(new byte[0]);
            while (leaves.isValid()) {
                if (pass.stopped()) {
                    return false;
                }
                byte[] key = leaves.key();
                byte[] record = leaves.value();
                if (Records.leafTombstoneVid(record) > horizon) {
                    leaves.next();
                    continue;
                }
                List<byte[]> dead = new ArrayList<>();
                boolean allDead = true;
                for (; leaves.isValid() && samePath(leaves.key(), key); leaves.next()) {
                    byte[] next = leaves.key();
                    byte[] nextRecord = leaves.value();
                    boolean keptForClone =
                            !Records.leafIsReference(nextRecord) && referenced.contains(ByteBuffer.wrap(next));
                    if (Records.leafTombstoneVid(nextRecord) <= horizon && !keptForClone) {
                        pass.referencesDeleted |= Records.leafIsReference(nextRecord);
                        dead.add(next);
                        pass.bytes(next.length + nextRecord.length);
                    } else {
                        allDead = false;
                    }
                }
                if (!dead.isEmpty()) {
                    delete(pass, KeySpace.LEAF, dead.get(0), dead, allDead);
                }
            }
        }
        return pass.flush();
    }

    /**
     * Deletes the dead versions of one path: with one range tombstone from the first to the end of the
     * path when they are many and nothing after the first is kept, else one by one.
     */
    private void delete(Pass pass, KeySpace space, byte[] first, List<byte[]> dead, boolean allDead) {
        if (allDead && dead.size() >= RANGE_DELETE_MIN) {
            byte[] pathKey = Arrays.copyOf(first, first.length - PathKeys.VID_BYTES);
            pass.batch().deleteRange(space, first, PathKeys.prefixEnd(pathKey));
        } else {
            for (byte[] key : dead) {
                pass.batch().delete(space, key);
            }
        }
        pass.deleted(dead.size());
    }

    private static boolean samePath(byte[] key, byte[] other) {
        int pathLength = other.length - PathKeys.VID_BYTES;
        return key.length == other.length && Arrays.equals(key, 0, pathLength, other, 0, pathLength);
    }

    /** Commit-log records below the horizon: one range tombstone. */
    private boolean trimLog(Pass pass, long horizon) {
        byte[] end = CommitRecordCodec.key(horizon);
        long keys = 0;
        try (KvIterator records = store.iterator(KeySpace.COMMIT_LOG, null, end)) {
            for (records.seek(new byte[0]); records.isValid(); records.next()) {
                keys++;
                pass.bytes(records.key().length + records.value().length);
            }
        }
        if (keys > 0) {
            pass.batch().deleteRange(KeySpace.COMMIT_LOG, CommitRecordCodec.key(0), end);
            pass.deleted(keys);
        }
        return pass.flush();
    }

    /** The deletes of one pass, written in rate-limited batches. */
    private final class Pass {
        private final long started = System.nanoTime();
        private KvBatch batch;
        private long keys;
        private long bytes;
        private long pendingKeys;
        private long pendingBytes;
        private boolean referencesDeleted;

        KvBatch batch() {
            if (batch == null) {
                batch = store.newBatch();
            }
            return batch;
        }

        void bytes(long count) {
            pendingBytes += count;
        }

        void deleted(long count) {
            pendingKeys += count;
            if (pendingKeys >= config.batchSize()) {
                flush();
            }
        }

        boolean stopped() {
            return paused || closing;
        }

        /** Writes what is pending; false if the pass was paused or closed (what was pending is written). */
        boolean flush() {
            if (batch != null) {
                try {
                    store.write(batch, false);
                } finally {
                    batch.close();
                    batch = null;
                }
                keys += pendingKeys;
                bytes += pendingBytes;
                keysReclaimed.addAndGet(pendingKeys);
                bytesReclaimed.addAndGet(pendingBytes);
            }
            pendingKeys = 0;
            pendingBytes = 0;
            throttle();
            return !stopped();
        }

        /** Sleeps while the pass is ahead of the rate limit. */
        private void throttle() {
            long dueNanos = keys * 1_000_000_000L / config.rateLimit();
            long aheadMillis = TimeUnit.NANOSECONDS.toMillis(dueNanos - (System.nanoTime() - started));
            if (aheadMillis > 0) {
                try {
                    synchronized (throttleWake) {
                        if (!stopped()) {
                            throttleWake.wait(aheadMillis);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    closing = true;
                }
            }
        }
    }

    /** The horizon: reads below it are refused with {@code VERSION_EXPIRED}. */
    public long horizon() {
        return tree.horizon();
    }

    /** How many vids the horizon is behind the newest. */
    public long lag() {
        return Math.max(0, tree.lastVid() - tree.horizon());
    }

    public long keysReclaimed() {
        return keysReclaimed.get();
    }

    /** Bytes of keys and values deleted (RocksDB frees the space at its next compaction of them). */
    public long bytesReclaimed() {
        return bytesReclaimed.get();
    }

    public long passes() {
        return passes.get();
    }

    public long lastPassMillis() {
        return lastPassMillis;
    }

    /** A numeric property of the store (e.g. {@code rocksdb.estimate-live-data-size}), for metrics. */
    public OptionalLong storeProperty(String name) {
        return store.longProperty(name);
    }

    /** Reads registered now: transactions, open cursors, change-feed subscribers. */
    public int pinnedReads() {
        return tree.pins().size();
    }

    /** Stops the background passes, waiting for one in progress to stop at its next batch. */
    @Override
    public void close() {
        closing = true;
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            scheduler.shutdownNow();
        }
    }
}
