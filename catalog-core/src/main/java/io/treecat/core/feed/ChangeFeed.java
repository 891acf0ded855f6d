package io.treecat.core.feed;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitLog;
import io.treecat.core.history.CommitPage;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.version.VersionedTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change feed (issue 16): readers follow the commit log from any kept vid, then live, each
 * record once and in vid order. It is a reader of the {@link CommitLog} and of the tree's published
 * vid, nothing more: a {@link Subscription} is a position and a filter, and every read goes to the
 * log, so there is no per-reader queue to grow and no seam between replay and live to lose or
 * repeat a record in.
 *
 * <p>Positions are exclusive: a reader at position {@code p} has seen every vid up to {@code p} and
 * reads from {@code p + 1}. A client resumes by passing the last vid it saw (a record's vid, or a
 * checkpoint's). Position 0 means "from the oldest kept record"; no position means "from now".
 *
 * <p>Publishing wakes the subscriptions behind the new vid through the tree's {@link
 * io.treecat.core.version.PublishListeners}: one listener for the whole feed, which with no
 * subscriber costs an iteration over an empty set. The drains run on the feed's own small pool.
 *
 * <p><b>Retention hook.</b> Each subscription pins the oldest commit-log record it still needs (its
 * position + 1) in the {@link FeedPins} given at construction, the registry of read points a
 * collector consults, and moves the pin as it reads; {@link #pinnedVid()} is the lowest of them. A
 * collector that removes records anyway is caught: each read checks the oldest kept record against
 * the reader's position and fails with {@link #beforeHistory} rather than skip records.
 */
public final class ChangeFeed implements AutoCloseable {
    /** The config key of the subscriber limit, named in the error that refuses a subscriber. */
    public static final String MAX_SUBSCRIBERS_KEY = "feed.max-subscribers";

    public static final int DEFAULT_MAX_SUBSCRIBERS = 256;

    private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);
    private static final int THREADS = 2;

    private final VersionedTree tree;
    private final CommitLog log;
    private final int maxSubscribers;
    private final FeedPins pins;
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final Set<Poll> polls = ConcurrentHashMap.newKeySet();
    private final AtomicInteger subscriberCount = new AtomicInteger();
    private final ExecutorService executor;
    private final ScheduledExecutorService timer;
    private final AutoCloseable listener;
    private volatile boolean closed;

    /**
     * @param maxSubscribers the most subscriptions (streams and waiting long polls together) at once
     */
    public ChangeFeed(VersionedTree tree, int maxSubscribers) {
        this(tree, maxSubscribers, FeedPins.NONE);
    }

    /**
     * @param pins the registry of read points retention consults: each subscription pins the oldest
     *     record it still needs there ({@link FeedPins})
     */
    public ChangeFeed(VersionedTree tree, int maxSubscribers, FeedPins pins) {
        this.tree = requireNonNull(tree, "tree is null");
        this.pins = requireNonNull(pins, "pins is null");
        this.log = tree.log();
        if (maxSubscribers < 1) {
            throw new IllegalArgumentException("maxSubscribers must be positive: " + maxSubscribers);
        }
        this.maxSubscribers = maxSubscribers;
        this.executor = Executors.newFixedThreadPool(THREADS, daemon("treecat-feed-"));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("treecat-feed-timer-"));
        this.listener = tree.publishListeners().add(this::published);
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private void published(long vid) {
        for (Subscription subscription : subscriptions) {
            if (subscription.position() < vid) {
                subscription.requestDrain();
            }
        }
    }

    /** The newest published vid: where a reader with no position starts. */
    public long publishedVid() {
        return tree.lastVid();
    }

    public int maxSubscribers() {
        return maxSubscribers;
    }

    /** Subscriptions and waiting long polls now open. */
    public int subscriberCount() {
        return subscriberCount.get();
    }

    /**
     * The oldest commit-log record a subscriber still needs (the lowest position + 1), if any
     * subscriber is open: the retention collector keeps every record from it on.
     */
    public OptionalLong pinnedVid() {
        long min = Long.MAX_VALUE;
        for (Subscription subscription : subscriptions) {
            min = Math.min(min, subscription.pinnedVid());
        }
        return min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min);
    }

    /**
     * The position a reader starts at: {@code afterVid} itself, checked to be kept and committed;
     * the oldest record's vid - 1 for 0; the newest published vid when empty.
     *
     * @throws CatalogException {@code VID_NOT_FOUND} for a vid after the newest committed one, or
     *     one whose next record is no longer kept ({@link #beforeHistory}); {@code INVALID_QUERY_OPTION}
     *     for a negative vid
     */
    public long startPosition(OptionalLong afterVid) {
        long published = tree.lastVid();
        if (afterVid.isEmpty()) {
            return published;
        }
        long after = afterVid.getAsLong();
        if (after < 0) {
            throw new CatalogException(ErrorCode.INVALID_QUERY_OPTION, "A feed position must not be negative")
                    .with("afterVid", after);
        }
        if (after > published) {
            throw new CatalogException(
                            ErrorCode.VID_NOT_FOUND, "The feed position is after the newest committed vid " + published)
                    .with("afterVid", after)
                    .with("newestVid", published);
        }
        Optional<CommitRecord> oldest = log.oldest();
        if (after == 0) {
            return oldest.map(record -> record.vid() - 1).orElse(published);
        }
        long oldestVid = oldest.map(CommitRecord::vid).orElse(published + 1);
        if (after + 1 < oldestVid) {
            throw beforeHistory(after, oldest);
        }
        return after;
    }

    /**
     * The error for a reader whose next record is no longer kept (or never was: a store older than
     * the log). The one place this failure is made, so retention can give it its own code.
     */
    public static CatalogException beforeHistory(long afterVid, Optional<CommitRecord> oldest) {
        if (oldest.isEmpty()) {
            return new CatalogException(
                            ErrorCode.VID_NOT_FOUND,
                            "The commit log keeps no record after vid " + afterVid + "; resume from the newest vid")
                    .with("afterVid", afterVid);
        }
        // The records were collected by retention: the same code as any read below the horizon.
        return new CatalogException(
                        ErrorCode.VERSION_EXPIRED,
                        "The commit log no longer keeps the records after vid " + afterVid
                                + "; the oldest kept record is vid "
                                + oldest.get().vid() + " ("
                                + oldest.get().commitTime() + ")")
                .with("afterVid", afterVid)
                .with("oldestVid", oldest.get().vid())
                .with("oldestTime", oldest.get().commitTime());
    }

    /**
     * One read after {@code position}: up to {@code limit} matching records, scanning at most the
     * log's budget of records; the page's position says how far it looked.
     */
    public FeedPage read(ChangeFilter filter, long position, int limit) {
        requireNonNull(filter, "filter is null");
        long published = tree.lastVid();
        if (position >= published) {
            return new FeedPage(List.of(), position, true);
        }
        CommitPage page = log.read(new CommitQuery(
                position + 1, published, filter.prefix(), Math.min(limit, CommitQuery.MAX_LIMIT), false));
        List<CommitRecord> records = new ArrayList<>(page.records().size());
        for (CommitRecord record : page.records()) {
            if (filter.matches(record)) {
                records.add(record);
            }
        }
        // The log skips the vids it has no record for: make sure none went missing under the reader.
        Optional<CommitRecord> oldest = log.oldest();
        if (oldest.isPresent() && oldest.get().vid() > position + 1) {
            throw beforeHistory(position, oldest);
        }
        long next = page.nextVid().isPresent() ? page.nextVid().getAsLong() - 1 : published;
        return new FeedPage(records, next, next == published);
    }

    /**
     * Opens a subscription at {@code position} (see {@link #startPosition}), counted against the
     * subscriber limit and pinning its position; the follower is called at once, then as records come.
     *
     * @throws CatalogException {@code SUBSCRIBER_LIMIT_REACHED} naming {@link #MAX_SUBSCRIBERS_KEY};
     *     {@code STORE_CLOSED} once the feed is closed
     */
    public Subscription subscribe(ChangeFilter filter, long position, Subscription.Follower follower) {
        Subscription subscription = register(filter, position, follower);
        subscription.requestDrain();
        return subscription;
    }

    private Subscription register(ChangeFilter filter, long position, Subscription.Follower follower) {
        if (closed) {
            throw new CatalogException(ErrorCode.STORE_CLOSED, "The change feed is closed");
        }
        while (true) {
            int count = subscriberCount.get();
            if (count >= maxSubscribers) {
                throw new CatalogException(
                                ErrorCode.SUBSCRIBER_LIMIT_REACHED,
                                "Too many change-feed subscribers: the limit is " + maxSubscribers + " ("
                                        + MAX_SUBSCRIBERS_KEY + ")")
                        .with("limit", maxSubscribers)
                        .with("configKey", MAX_SUBSCRIBERS_KEY);
            }
            if (subscriberCount.compareAndSet(count, count + 1)) {
                break;
            }
        }
        Subscription subscription;
        try {
            subscription = new Subscription(this, filter, position, follower, executor, pins);
        } catch (RuntimeException e) {
            subscriberCount.decrementAndGet();
            throw e;
        }
        subscriptions.add(subscription);
        return subscription;
    }

    void unregister(Subscription subscription) {
        if (subscriptions.remove(subscription)) {
            subscriberCount.decrementAndGet();
        }
    }

    /**
     * A long poll: the matching records after {@code position} if there are any now; otherwise
     * waits up to {@code wait} for a commit that matches, while counted as a subscriber. Completes
     * with an empty page at the position reached when the wait ends (or the feed's polls are ended
     * by {@link #endPolls}), so the caller can resume from it.
     */
    public CompletableFuture<FeedPage> poll(ChangeFilter filter, long position, int limit, Duration wait) {
        FeedPage now = read(filter, position, limit);
        if (!now.records().isEmpty() || !now.caughtUp() || wait.isZero() || wait.isNegative()) {
            return CompletableFuture.completedFuture(now);
        }
        Poll poll = new Poll(limit);
        poll.subscription = register(filter, now.position(), poll::drain);
        polls.add(poll);
        try {
            poll.timeout = timer.schedule(poll::expire, wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            poll.expire();
        }
        // A commit published between the read above and the registration would wake no one.
        poll.subscription.requestDrain();
        return poll.answer;
    }

    /** A waiting long poll: its subscription, its deadline and the one answer it gives. */
    private final class Poll {
        final int limit;
        final CompletableFuture<FeedPage> answer = new CompletableFuture<>();
        final AtomicBoolean answered = new AtomicBoolean();
        volatile Subscription subscription;
        volatile ScheduledFuture<?> timeout;

        Poll(int limit) {
            this.limit = limit;
        }

        void drain(Subscription subscription) {
            FeedPage page;
            try {
                page = subscription.next(limit);
            } catch (RuntimeException e) {
                if (finish()) {
                    answer.completeExceptionally(e);
                }
                return;
            }
            if ((!page.records().isEmpty() || !page.caughtUp()) && finish()) {
                answer.complete(page);
            }
        }

        void expire() {
            if (finish()) {
                answer.complete(new FeedPage(List.of(), subscription.position(), true));
            }
        }

        private boolean finish() {
            if (!answered.compareAndSet(false, true)) {
                return false;
            }
            subscription.close();
            polls.remove(this);
            ScheduledFuture<?> pending = timeout;
            if (pending != null) {
                pending.cancel(false);
            }
            return true;
        }
    }

    /** Answers every waiting long poll now, with its position: for a server that is stopping. */
    public void endPolls() {
        for (Poll poll : polls) {
            poll.expire();
        }
    }

    /** Ends the waiting polls, stops listening and closes every subscription. */
    @Override
    public void close() {
        closed = true;
        endPolls();
        try {
            listener.close();
        } catch (Exception e) {
            LOG.warn("Could not remove the feed's publish listener", e);
        }
        subscriptions.forEach(Subscription::close);
        executor.shutdownNow();
        timer.shutdownNow();
    }
}
