package io.treecat.core.version;

import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The registry of active read points and the horizon: the oldest vid that still reads correctly.
 * Everything that reads at an older vid for a while registers it here: transactions (their read
 * vid), open query cursors, a clone while it copies its source, a snapshot while it is created, and
 * change-feed subscribers while they follow. The garbage collector never moves the horizon past a
 * registered vid.
 *
 * <p>The contract that keeps a read and the collector from racing: a vid is registered only if it
 * is at or above the horizon, checked under the same lock that moves the horizon, so once {@link
 * #pin} returns, nothing that vid can see is collected until the pin is closed; and the horizon
 * only moves forward. A registration below the horizon is refused (null from {@link #pin}; {@link
 * VersionedTree#pin} turns that into {@code VERSION_EXPIRED}).
 */
public final class ReadPins {
    private final Object lock = new Object();
    /** Registered vid → how many pins hold it. */
    private final TreeMap<Long, Integer> pinned = new TreeMap<>();

    private volatile long horizon;

    ReadPins(long horizon) {
        this.horizon = horizon;
    }

    /** The oldest vid that reads correctly; reads below it are refused. Only moves forward. */
    public long horizon() {
        return horizon;
    }

    /**
     * Registers a read at {@code vid} until the returned pin is closed; null if {@code vid} is
     * already below the horizon.
     */
    public Pin pin(long vid) {
        synchronized (lock) {
            if (vid < horizon) {
                return null;
            }
            pinned.merge(vid, 1, Integer::sum);
            return new Pin(vid);
        }
    }

    /** The oldest registered vid, if any. */
    public OptionalLong oldestPinned() {
        synchronized (lock) {
            return pinned.isEmpty() ? OptionalLong.empty() : OptionalLong.of(pinned.firstKey());
        }
    }

    /** How many reads are registered, for metrics. */
    public int size() {
        synchronized (lock) {
            return pinned.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /**
     * Moves the horizon forward to the smaller of {@code candidate} and the oldest registered vid. The
     * candidate is computed under the lock, so a pin that is refused or a snapshot written while it is
     * computed cannot slip past it.
     *
     * @param persist makes a new horizon durable before it takes effect, so a read refused now is refused
     *     after a restart too
     * @return the horizon now in force
     */
    long advance(LongSupplier candidate, LongConsumer persist) {
        synchronized (lock) {
            long target = candidate.getAsLong();
            if (!pinned.isEmpty()) {
                target = Math.min(target, pinned.firstKey());
            }
            if (target > horizon) {
                persist.accept(target);
                horizon = target;
            }
            return horizon;
        }
    }

    /**
     * Moves the horizon forward to {@code target} whatever is pinned: for a node whose store is replaced by
     * a newer one that no longer holds the versions below it. A pinned read below it fails on its next
     * check ({@code VERSION_EXPIRED}) instead of reading what is gone.
     */
    long raiseTo(long target, LongConsumer persist) {
        synchronized (lock) {
            if (target > horizon) {
                persist.accept(target);
                horizon = target;
            }
            return horizon;
        }
    }

    private void release(long vid) {
        synchronized (lock) {
            pinned.computeIfPresent(vid, (key, count) -> count == 1 ? null : count - 1);
        }
    }

    /** One registered read; closing it twice is harmless. */
    public final class Pin implements AutoCloseable {
        private final long vid;
        private boolean closed;

        private Pin(long vid) {
            this.vid = vid;
        }

        public long vid() {
            return vid;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release(vid);
        }
    }
}
