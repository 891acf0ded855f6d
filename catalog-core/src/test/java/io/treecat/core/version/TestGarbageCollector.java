package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestGarbageCollector {
    private static final ObjectPath NS = ObjectPath.parse("/ns");
    private static final ObjectPath TABLE = ObjectPath.parse("/ns/t");
    private static final ObjectPath FILE = ObjectPath.parse("/ns/t/f");

    @TempDir
    Path directory;

    private VersionedTree tree;

    @AfterEach
    void close() {
        if (tree != null) {
            tree.close();
        }
    }

    private VersionedTree open() {
        tree = VersionedTree.open(RocksKvStore.open(directory), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        return tree;
    }

    private GarbageCollector keepingVersions(long count) {
        return new GarbageCollector(
                tree,
                RetentionConfig.defaults().withRetention(Optional.empty(), OptionalLong.of(count)),
                Clock.systemUTC());
    }

    private static BsonDocument value(int n) {
        return new BsonDocument("n", new BsonInt32(n));
    }

    /** /ns and /ns/t rewritten {@code rounds} times, the leaf /ns/t/f replaced each time. */
    private void rewrite(int rounds) {
        tree.commit(WriteSet.of(
                new WriteOp.Add(NS, ObjectKind.INNER, value(0)),
                new WriteOp.Add(TABLE, ObjectKind.INNER, value(0)),
                new WriteOp.Add(FILE, ObjectKind.LEAF, value(0))));
        for (int i = 1; i <= rounds; i++) {
            tree.commit(WriteSet.of(
                    new WriteOp.Update(NS, ObjectKind.INNER, value(i)),
                    new WriteOp.Update(TABLE, ObjectKind.INNER, value(i)),
                    new WriteOp.Update(FILE, ObjectKind.LEAF, value(i))));
        }
    }

    /** Every object visible at {@code vid}, by path. */
    private Map<ObjectPath, BsonDocument> state(long vid) {
        Map<ObjectPath, BsonDocument> state = new TreeMap<>();
        List<ObjectPath> parents = new ArrayList<>(List.of(ObjectPath.ROOT));
        while (!parents.isEmpty()) {
            ObjectPath parent = parents.remove(parents.size() - 1);
            try (ChildCursor cursor = tree.children(parent, vid)) {
                while (cursor.advance()) {
                    ObjectPath child = parent.child(cursor.id());
                    state.put(child, new BsonDocument(cursor.kind().name(), cursor.value()));
                    if (cursor.kind() == ObjectKind.INNER) {
                        parents.add(child);
                    }
                }
            }
        }
        return state;
    }

    private long keys(KeySpace space) {
        long count = 0;
        try (KvIterator iterator = tree.store().iterator(space, null, null)) {
            for (iterator.seek(new byte[0]); iterator.isValid(); iterator.next()) {
                count++;
            }
        }
        return count;
    }

    @Test
    void collectsWhatNoRetainedVersionSeesAndReadsTheRestAsBefore() {
        open();
        rewrite(30);
        long last = tree.lastVid();
        List<Map<ObjectPath, BsonDocument>> before = new ArrayList<>();
        for (long vid = 0; vid <= last; vid++) {
            before.add(state(vid));
        }
        long historyBefore = keys(KeySpace.INNER_HISTORY);
        long leavesBefore = keys(KeySpace.LEAF);

        GarbageCollector.PassResult pass = keepingVersions(5).collect();

        assertThat(pass.completed()).isTrue();
        assertThat(pass.horizon()).isEqualTo(last - 4);
        assertThat(pass.keysDeleted()).isGreaterThan(0);
        assertThat(pass.bytesDeleted()).isGreaterThan(0);
        // Two inner paths and one leaf path, each with 5 versions readable at [horizon, last]: the version
        // current at the horizon and the 4 after it, the current one not in history.
        assertThat(keys(KeySpace.INNER_HISTORY)).isEqualTo(2 * 4).isLessThan(historyBefore);
        assertThat(keys(KeySpace.LEAF)).isEqualTo(5).isLessThan(leavesBefore);
        assertThat(keys(KeySpace.COMMIT_LOG)).isEqualTo(5);
        assertThat(tree.log().oldest().orElseThrow().vid()).isEqualTo(pass.horizon());
        for (long vid = pass.horizon(); vid <= last; vid++) {
            assertThat(state(vid)).as("state at %d", vid).isEqualTo(before.get((int) vid));
            assertThat(tree.read(FILE, vid).orElseThrow().value()).isEqualTo(value((int) vid - 1));
        }
        long expired = pass.horizon() - 1;
        assertThatThrownBy(() -> tree.read(FILE, expired))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Version " + expired + " has expired: the oldest readable version is " + pass.horizon()
                        + ", committed at 1970-01-01T00:00:00Z")
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.VERSION_EXPIRED));
        assertThatThrownBy(() -> tree.children(NS, 0)).hasMessageStartingWith("Version 0 has expired");
        assertThatThrownBy(() -> tree.pin(1)).hasMessageStartingWith("Version 1 has expired");
    }

    @Test
    void aSecondPassAtTheSameHorizonDeletesNothing() {
        open();
        rewrite(20);
        GarbageCollector collector = keepingVersions(3);
        assertThat(collector.collect().keysDeleted()).isGreaterThan(0);
        assertThat(collector.collect().keysDeleted()).isZero();
        assertThat(collector.keysReclaimed()).isGreaterThan(0);
        assertThat(collector.lag()).isEqualTo(2);
    }

    @Test
    void snapshotsAndPinnedReadsHoldTheHorizonBack() {
        open();
        rewrite(10);
        tree.createSnapshot("keep", 3);
        GarbageCollector collector = keepingVersions(1);
        assertThat(collector.collect().horizon()).isEqualTo(3);
        Map<ObjectPath, BsonDocument> atThree = state(3);

        ReadPins.Pin pin = tree.pin(3);
        tree.dropSnapshot("keep");
        rewrite0(2);
        assertThat(collector.collect().horizon()).isEqualTo(3);
        assertThat(collector.pinnedReads()).isEqualTo(1);
        assertThat(state(3)).isEqualTo(atThree);

        pin.close();
        assertThat(collector.collect().horizon()).isEqualTo(tree.lastVid());
        assertThatThrownBy(() -> state(3)).hasMessageStartingWith("Version 3 has expired");
        assertThatThrownBy(() -> tree.createSnapshot("late", 3)).hasMessageStartingWith("Version 3 has expired");
    }

    private void rewrite0(int rounds) {
        for (int i = 0; i < rounds; i++) {
            tree.commit(WriteSet.of(new WriteOp.Update(FILE, ObjectKind.LEAF, value(100 + i))));
        }
    }

    @Test
    void aClonesReferenceKeepsThePrimaryLeafItSharesUntilTheCloneGoes() {
        open();
        rewrite(1);
        long cloned = tree.commit(WriteSet.of(new WriteOp.Clone(NS, ObjectPath.parse("/copy"), tree.lastVid())))
                .vid();
        // The source is removed: its leaf (the primary copy the clone refers to) is tombstoned.
        tree.commit(WriteSet.of(new WriteOp.Remove(NS)));
        tree.commit(WriteSet.of(new WriteOp.Add(ObjectPath.parse("/other"), ObjectKind.INNER, value(1))));
        GarbageCollector collector = keepingVersions(1);
        collector.collect();
        assertThat(tree.horizon()).isGreaterThan(cloned);
        ObjectPath copy = ObjectPath.parse("/copy/t/f");
        assertThat(tree.read(copy, tree.lastVid()).map(CatalogObject::value)).contains(value(1));

        // Once the clone is gone too, the primary and the reference go (the reference first, then the primary).
        tree.commit(WriteSet.of(new WriteOp.Remove(ObjectPath.parse("/copy"))));
        collector.collect();
        collector.collect();
        assertThat(keys(KeySpace.LEAF)).isZero();
    }

    @Test
    void theHorizonSurvivesARestart() {
        open();
        rewrite(10);
        long horizon = keepingVersions(2).collect().horizon();
        tree.close();
        open();
        assertThat(tree.horizon()).isEqualTo(horizon);
        assertThatThrownBy(() -> tree.read(FILE, horizon - 1)).hasMessageStartingWith("Version " + (horizon - 1));
        assertThat(tree.read(FILE, horizon)).isPresent();
    }

    @Test
    void retentionByTimeKeepsTheVersionCurrentAtTheCutoff() {
        MutableClock clock = new MutableClock();
        tree = VersionedTree.open(RocksKvStore.open(directory), clock);
        tree.commit(WriteSet.of(new WriteOp.Add(NS, ObjectKind.INNER, value(0))));
        clock.now = clock.now.plusSeconds(60);
        tree.commit(WriteSet.of(new WriteOp.Update(NS, ObjectKind.INNER, value(1))));
        clock.now = clock.now.plusSeconds(60);
        tree.commit(WriteSet.of(new WriteOp.Update(NS, ObjectKind.INNER, value(2))));
        clock.now = clock.now.plusSeconds(30);
        GarbageCollector collector = new GarbageCollector(
                tree, RetentionConfig.defaults().withRetainFor(Optional.of(Duration.ofSeconds(60))), clock);
        // Now is 150 s after vid 1; the cutoff (90 s) falls after vid 2 (60 s), before vid 3 (120 s).
        assertThat(collector.collect().horizon()).isEqualTo(2);
        assertThat(tree.read(NS, 2).orElseThrow().value()).isEqualTo(value(1));
    }

    @Test
    void aPausedCollectorDeletesNothing() {
        open();
        rewrite(10);
        GarbageCollector collector = keepingVersions(1);
        collector.pause();
        GarbageCollector.PassResult pass = collector.collect();
        assertThat(pass.completed()).isFalse();
        assertThat(tree.horizon()).isZero();
        collector.resume();
        assertThat(collector.collect().horizon()).isEqualTo(tree.lastVid());
    }

    /** Pausing waits for a pass already running to stop: once it returns, the horizon stays where it is. */
    @Test
    void pauseReturnsOnceARunningPassHasStopped() throws Exception {
        open();
        rewrite(300);
        // 10 keys a second: the pass sleeps off its rate limit for tens of seconds unless the pause wakes it.
        GarbageCollector collector = new GarbageCollector(
                tree,
                RetentionConfig.defaults()
                        .withRetention(Optional.empty(), OptionalLong.of(1))
                        .withRateLimit(10)
                        .withBatchSize(10),
                Clock.systemUTC());
        java.util.concurrent.CompletableFuture<GarbageCollector.PassResult> pass =
                java.util.concurrent.CompletableFuture.supplyAsync(collector::collect);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (tree.horizon() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(tree.horizon()).as("the pass moved the horizon").isPositive();
        collector.pause();
        long reclaimedAtPause = collector.keysReclaimed();
        long horizonAtPause = tree.horizon();

        // Woken from its rate limit's sleep, the pass had stopped (nothing deleted since), well before it would have.
        GarbageCollector.PassResult stopped = pass.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(stopped.completed()).isFalse();
        assertThat(stopped.keysDeleted()).isEqualTo(reclaimedAtPause);
        assertThat(tree.horizon()).isEqualTo(horizonAtPause);
    }

    private static final class MutableClock extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
