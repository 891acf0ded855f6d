package io.treecat.core.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The feed over a real RocksDB catalog, committed to through the real commit pipeline. */
class TestChangeFeed {
    @TempDir
    Path directory;

    private CatalogService catalog;
    private ChangeFeed feed;

    @BeforeEach
    void open() {
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory)), TransactionConfig.defaults(), Clock.systemUTC());
        feed = new ChangeFeed(catalog.tree(), 4);
    }

    @AfterEach
    void close() {
        feed.close();
        catalog.close();
    }

    private long add(String path) {
        return catalog.commit(WriteSet.of(
                        new WriteOp.Add(ObjectPath.parse(path), ObjectKind.INNER, BsonDocument.parse("{a: 1}"))))
                .vid();
    }

    private long addLeaf(String path) {
        return catalog.commit(WriteSet.of(
                        new WriteOp.Add(ObjectPath.parse(path), ObjectKind.LEAF, BsonDocument.parse("{a: 1}"))))
                .vid();
    }

    private long remove(String path) {
        return catalog.commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse(path))))
                .vid();
    }

    /** A follower that reads everything it can into a list, as an adapter's drain does. */
    private static final class Collector implements Subscription.Follower {
        final List<Long> vids = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void drain(Subscription subscription) {
            while (true) {
                FeedPage page = subscription.next(7);
                page.records().forEach(record -> vids.add(record.vid()));
                if (page.caughtUp()) {
                    return;
                }
            }
        }
    }

    @Test
    void aSubscriberSeesConcurrentCommitsOnceInVidOrderAcrossReplayAndLive() throws Exception {
        for (int i = 0; i < 30; i++) {
            add("/before" + i);
        }
        int writers = 4;
        int perWriter = 40;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch started = new CountDownLatch(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            done.add(pool.submit(() -> {
                started.countDown();
                for (int i = 0; i < perWriter; i++) {
                    add("/w" + writer + "_" + i);
                }
                return null;
            }));
        }
        started.await();
        // Subscribe while the writers commit: the replay of the first records races the live ones.
        Collector collector = new Collector();
        try (Subscription subscription =
                feed.subscribe(ChangeFilter.ALL, feed.startPosition(OptionalLong.of(0)), collector)) {
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            long newest = catalog.lastVid();
            Eventually.until(Duration.ofSeconds(30), () -> subscription.position() == newest);
            Eventually.until(Duration.ofSeconds(5), () -> collector.vids.size() == newest);
            List<Long> expected = new ArrayList<>();
            for (long vid = 1; vid <= newest; vid++) {
                expected.add(vid);
            }
            assertThat(collector.vids).containsExactlyElementsOf(expected);
            assertThat(newest).isEqualTo(30 + writers * perWriter);
        }
        assertThat(feed.subscriberCount()).isZero();
    }

    @Test
    void aResumedSubscriberGetsTheRestAndFiltersByPrefixAndKind() {
        long retail = add("/retail");
        add("/other");
        long leaf = addLeaf("/retail/f1");
        long removed = remove("/retail/f1");
        add("/other/x");

        Collector all = new Collector();
        try (Subscription subscription = feed.subscribe(ChangeFilter.under(ObjectPath.parse("/retail")), leaf, all)) {
            Eventually.until(Duration.ofSeconds(10), () -> subscription.position() == catalog.lastVid());
            // The subscription's position moves when a page is taken, before the follower has added its records.
            Eventually.until(Duration.ofSeconds(10), () -> !all.vids.isEmpty());
            assertThat(all.vids).containsExactly(removed);
        }
        Collector removals = new Collector();
        ChangeFilter leafRemovals =
                new ChangeFilter(ObjectPath.ROOT, Set.of(ChangeKind.REMOVED), Set.of(ObjectKind.LEAF));
        try (Subscription subscription = feed.subscribe(leafRemovals, 0, removals)) {
            Eventually.until(Duration.ofSeconds(10), () -> subscription.position() == catalog.lastVid());
            Eventually.until(Duration.ofSeconds(10), () -> !removals.vids.isEmpty());
            assertThat(removals.vids).containsExactly(removed);
        }
        FeedPage inner = feed.read(new ChangeFilter(ObjectPath.ROOT, Set.of(), Set.of(ObjectKind.INNER)), 0, 100);
        assertThat(inner.records()).extracting(CommitRecord::vid).doesNotContain(leaf, removed);
        assertThat(inner.records()).extracting(CommitRecord::vid).contains(retail);
        assertThat(inner.caughtUp()).isTrue();
    }

    @Test
    void aCompactRecordMatchesByItsPrefixesAndCounts() {
        add("/bulk");
        long chunk = catalog.bulkLoad(
                        new java.io.BufferedReader(
                                new java.io.StringReader("{\"path\": \"/bulk/a\", \"kind\": \"leaf\", \"value\": {}}\n"
                                        + "{\"path\": \"/bulk/b\", \"kind\": \"leaf\", \"value\": {}}\n")),
                        10,
                        io.treecat.core.load.BulkLoader.Progress.NONE)
                .lastVid();
        CommitRecord record = catalog.tree().log().find(chunk).orElseThrow();
        assertThat(record.compact()).isTrue();
        assertThat(ChangeFilter.under(ObjectPath.parse("/bulk")).matches(record))
                .isTrue();
        assertThat(ChangeFilter.under(ObjectPath.parse("/other")).matches(record))
                .isFalse();
        assertThat(new ChangeFilter(ObjectPath.ROOT, Set.of(ChangeKind.ADDED), Set.of(ObjectKind.INNER))
                        .matches(record))
                .as("a compact record does not say which object kinds it touched")
                .isTrue();
        assertThat(new ChangeFilter(ObjectPath.ROOT, Set.of(ChangeKind.REMOVED), Set.of()).matches(record))
                .isFalse();
    }

    @Test
    void positionsOutsideTheLogAreRefusedWithTheirLimits() {
        add("/a");
        add("/b");
        assertThat(feed.startPosition(OptionalLong.empty())).isEqualTo(2);
        assertThat(feed.startPosition(OptionalLong.of(0))).isZero();
        assertThatThrownBy(() -> feed.startPosition(OptionalLong.of(3)))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.VID_NOT_FOUND);
                    assertThat(e.context()).containsEntry("newestVid", "2");
                })
                .hasMessage("The feed position is after the newest committed vid 2");
        assertThatThrownBy(() -> feed.startPosition(OptionalLong.of(-1)))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY_OPTION));
    }

    @Test
    void theSubscriberLimitIsNamedAndAPlaceIsFreedOnClose() {
        List<Subscription> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            open.add(feed.subscribe(ChangeFilter.ALL, 0, new Collector()));
        }
        assertThatThrownBy(() -> feed.subscribe(ChangeFilter.ALL, 0, new Collector()))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SUBSCRIBER_LIMIT_REACHED);
                    assertThat(e.context()).containsEntry("configKey", "feed.max-subscribers");
                })
                .hasMessage("Too many change-feed subscribers: the limit is 4 (feed.max-subscribers)");
        open.get(0).close();
        open.get(0).close();
        assertThat(feed.subscriberCount()).isEqualTo(3);
        open.add(feed.subscribe(ChangeFilter.ALL, 0, new Collector()));
        open.forEach(Subscription::close);
        assertThat(feed.subscriberCount()).isZero();
    }

    @Test
    void subscribersPinTheirPosition() {
        add("/a");
        add("/b");
        assertThat(feed.pinnedVid()).isEmpty();
        // A follower that reads nothing keeps its position where it started.
        try (Subscription slow = feed.subscribe(ChangeFilter.ALL, 1, subscription -> {});
                Subscription live = feed.subscribe(ChangeFilter.ALL, 2, new Collector())) {
            add("/c");
            assertThat(feed.pinnedVid()).hasValue(2);
            assertThat(slow.position()).isEqualTo(1);
            Eventually.until(Duration.ofSeconds(10), () -> live.position() == 3);
        }
        assertThat(feed.pinnedVid()).isEmpty();
    }

    /** A registry of read points that records what is pinned, as retention's would. */
    private static final class RecordingPins implements FeedPins {
        final java.util.Map<Long, Integer> pinned = new java.util.concurrent.ConcurrentHashMap<>();
        volatile long horizon;

        @Override
        public Pin pin(long vid) {
            if (vid < horizon) {
                throw new CatalogException(ErrorCode.VID_NOT_FOUND, "expired").with("vid", vid);
            }
            pinned.merge(vid, 1, Integer::sum);
            java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
            return () -> {
                if (released.compareAndSet(false, true)) {
                    pinned.computeIfPresent(vid, (key, count) -> count == 1 ? null : count - 1);
                }
            };
        }
    }

    @Test
    void theCollectorKeepsWhatASubscriberStillNeedsAndTakesItOnceItEnds() {
        GarbageCollector collector = new GarbageCollector(
                catalog.tree(),
                RetentionConfig.defaults().withRetention(Optional.empty(), OptionalLong.of(1)),
                Clock.systemUTC());
        try (ChangeFeed retained = new ChangeFeed(catalog.tree(), 4, FeedPins.of(catalog.tree()))) {
            add("/a");
            // A follower that reads nothing: it still needs every record after vid 1.
            try (Subscription slow = retained.subscribe(ChangeFilter.ALL, 1, subscription -> {})) {
                for (int i = 0; i < 20; i++) {
                    add("/b" + i);
                }
                assertThat(collector.collect().horizon()).isEqualTo(2);
                FeedPage page = slow.next(100);
                assertThat(page.records()).hasSize(20);
                assertThat(page.records().get(0).vid()).isEqualTo(2);
            }
            // Once it is gone, the collector keeps only the newest version, and a subscriber from
            // before the horizon is refused at the start instead of skipping records.
            assertThat(collector.collect().horizon()).isEqualTo(catalog.lastVid());
            assertThatThrownBy(() -> retained.subscribe(ChangeFilter.ALL, 1, subscription -> {}))
                    .isInstanceOfSatisfying(
                            CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VERSION_EXPIRED));
        }
    }

    @Test
    void subscriptionsHoldARetentionPinThatFollowsTheirPosition() {
        RecordingPins pins = new RecordingPins();
        try (ChangeFeed pinned = new ChangeFeed(catalog.tree(), 4, pins)) {
            add("/a");
            add("/b");
            try (Subscription live = pinned.subscribe(ChangeFilter.ALL, 0, new Collector())) {
                Eventually.until(Duration.ofSeconds(10), () -> live.position() == 2 && live.pinnedVid() == 3);
                assertThat(pins.pinned).containsOnlyKeys(3L);
                add("/c");
                Eventually.until(Duration.ofSeconds(10), () -> live.pinnedVid() == 4);
                assertThat(pins.pinned).containsOnlyKeys(4L);
                assertThat(pinned.pinnedVid()).hasValue(4);
            }
            assertThat(pins.pinned).isEmpty();
            // A registry that says the records are gone refuses the subscriber and frees its place.
            pins.horizon = 3;
            assertThatThrownBy(() -> pinned.subscribe(ChangeFilter.ALL, 0, new Collector()))
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("expired");
            assertThat(pinned.subscriberCount()).isZero();
        }
    }

    @Test
    void aLongPollAnswersAtOnceAfterACommitOrEmptyAfterItsWait() throws Exception {
        long first = add("/a");
        FeedPage now =
                feed.poll(ChangeFilter.ALL, 0, 10, Duration.ofSeconds(30)).get(5, TimeUnit.SECONDS);
        assertThat(now.records()).extracting(CommitRecord::vid).containsExactly(first);
        assertThat(now.position()).isEqualTo(first);

        CompletableFuture<FeedPage> waiting = feed.poll(ChangeFilter.ALL, first, 10, Duration.ofSeconds(30));
        assertThat(waiting).isNotDone();
        assertThat(feed.subscriberCount()).isEqualTo(1);
        long second = add("/b");
        FeedPage next = waiting.get(10, TimeUnit.SECONDS);
        assertThat(next.records()).extracting(CommitRecord::vid).containsExactly(second);
        assertThat(feed.subscriberCount()).isZero();

        // A commit the filter refuses does not end the wait; the empty answer still moves the position past it.
        CompletableFuture<FeedPage> filtered =
                feed.poll(ChangeFilter.under(ObjectPath.parse("/a")), second, 10, Duration.ofMillis(700));
        long third = add("/c");
        FeedPage empty = filtered.get(10, TimeUnit.SECONDS);
        assertThat(empty.records()).isEmpty();
        assertThat(empty.position()).isEqualTo(third);

        CompletableFuture<FeedPage> ended = feed.poll(ChangeFilter.ALL, third, 10, Duration.ofMinutes(5));
        feed.endPolls();
        assertThat(ended.get(5, TimeUnit.SECONDS).position()).isEqualTo(third);
    }
}
