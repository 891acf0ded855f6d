package io.treecat.core.feed;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader following the change feed: a filter and a position (the vid after which it reads
 * next). It holds no records: each {@link #next} reads the log again from the position, so a reader
 * that falls behind costs nothing but its position, and replay and live reads are the same read (no
 * gap and no duplicate between them, whatever is published meanwhile).
 *
 * <p>The feed calls the reader's {@link Follower} when there may be something to read: after each
 * publish that passes its position, and whenever the adapter asks ({@link #requestDrain}, e.g. when
 * its transport can take more). Those calls run on the feed's threads, never two at once for one
 * subscription, and a request made while a drain runs is never lost: the drain runs again.
 */
public final class Subscription implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Subscription.class);

    /** What an adapter does when its subscription may have records to send. */
    @FunctionalInterface
    public interface Follower {
        /**
         * Reads with {@link Subscription#next} and sends, until caught up or until the transport
         * pushes back; returns without blocking.
         */
        void drain(Subscription subscription);
    }

    private final ChangeFeed feed;
    private final ChangeFilter filter;
    private final Follower follower;
    private final Executor executor;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long position;
    /** The position the running drain began at: the pin keeps every record after it. */
    private long drainStart;

    private final FeedPins pins;
    /** The retention pin at {@link #pinnedVid}: the oldest record this subscription may still read. */
    private FeedPins.Pin pin;

    private volatile long pinnedVid;

    Subscription(
            ChangeFeed feed, ChangeFilter filter, long position, Follower follower, Executor executor, FeedPins pins) {
        this.feed = feed;
        this.filter = requireNonNull(filter, "filter is null");
        this.follower = requireNonNull(follower, "follower is null");
        this.executor = executor;
        this.position = position;
        this.pins = pins;
        this.pin = pins.pin(position + 1);
        this.pinnedVid = position + 1;
    }

    /** The vid this subscription holds for retention: its position + 1 as of its last drain. */
    public long pinnedVid() {
        return pinnedVid;
    }

    /**
     * Moves the pin up to the position after a drain. Only between drains: within one, the follower
     * may rewind to any vid since the drain began, and the old pin keeps those records.
     */
    private synchronized void movePin() {
        long wanted = position + 1;
        if (wanted == pinnedVid || closed.get()) {
            return;
        }
        FeedPins.Pin moved;
        try {
            moved = pins.pin(wanted);
        } catch (RuntimeException e) {
            // Keep the old pin; the next read reports what is gone.
            LOG.warn("A change-feed subscription could not move its retention pin to vid {}", wanted, e);
            return;
        }
        FeedPins.Pin old = pin;
        pin = moved;
        old.release();
        // Published last: whoever sees the new vid also sees the old pin gone (retention, tests).
        pinnedVid = wanted;
    }

    public ChangeFilter filter() {
        return filter;
    }

    /** Every vid up to this one was read (and its record sent, if it matched); resume after it. */
    public long position() {
        return position;
    }

    /**
     * The matching records after the position, at most {@code limit}, and moves the position past
     * every vid looked at. Only the follower's drain calls this.
     *
     * @throws io.treecat.core.error.CatalogException if records after the position are no longer
     *     kept ({@link ChangeFeed#beforeHistory})
     */
    public FeedPage next(int limit) {
        FeedPage page = feed.read(filter, position, limit);
        position = page.position();
        return page;
    }

    /**
     * Moves the position back to {@code vid}, so the records after it are read again: for a
     * follower whose transport took only part of a page. Only the follower's drain calls this, and
     * only back as far as the position the drain began at (the retention pin holds from there).
     */
    public void rewind(long vid) {
        if (vid > position || vid < drainStart) {
            throw new IllegalArgumentException("cannot rewind from " + position + " to " + vid
                    + ": only back to the position the drain began at, " + drainStart);
        }
        position = vid;
    }

    /** Runs the follower's drain soon on the feed's threads; see the class comment. */
    public void requestDrain() {
        if (closed.get()) {
            return;
        }
        pending.set(true);
        if (running.compareAndSet(false, true)) {
            try {
                executor.execute(this::runDrains);
            } catch (RejectedExecutionException e) {
                // The feed is closing; its close ends every subscription.
                running.set(false);
            }
        }
    }

    private void runDrains() {
        while (true) {
            pending.set(false);
            try {
                if (!closed.get()) {
                    drainStart = position;
                    follower.drain(this);
                }
            } catch (RuntimeException | Error e) {
                // The follower ends its own call on failure; this only keeps the feed's thread alive.
                LOG.error("A change-feed follower failed", e);
            }
            movePin();
            if (!pending.get()) {
                running.set(false);
                // A request that came after the check above, while running was still set, is ours to run.
                if (!pending.get() || !running.compareAndSet(false, true)) {
                    return;
                }
            }
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Stops following and frees the subscriber's place and its pin. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (this) {
                pin.release();
            }
            feed.unregister(this);
        }
    }
}
