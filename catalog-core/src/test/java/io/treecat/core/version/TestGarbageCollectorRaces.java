package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector racing commits and reads on real threads: a writer rewrites a table and all its
 * leaves at every vid, readers read random recent vids (point reads and child scans, some through
 * pinned reads), and the collector runs pass after pass keeping only 3 versions. Every read must be
 * exactly what was written at its vid, or {@code VERSION_EXPIRED}: never a partial or wrong answer.
 */
class TestGarbageCollectorRaces {
    private static final ObjectPath TABLE = ObjectPath.parse("/t");
    private static final int LEAVES = 12;

    @TempDir
    Path directory;

    @Test
    void readsRacingThePassesAreRightOrExpiredNeverWrong() throws Exception {
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            List<WriteOp> create = new ArrayList<>(List.of(new WriteOp.Add(TABLE, ObjectKind.INNER, round(0))));
            for (int leaf = 0; leaf < LEAVES; leaf++) {
                create.add(new WriteOp.Add(TABLE.child("f" + leaf), ObjectKind.LEAF, round(0)));
            }
            Map<Long, Integer> rounds = new ConcurrentHashMap<>();
            long first = tree.commit(new WriteSet(create)).vid();
            rounds.put(first, 0);
            // The newest vid whose round is recorded: readers stay at or below it.
            AtomicLong acknowledged = new AtomicLong(first);
            GarbageCollector collector = new GarbageCollector(
                    tree,
                    RetentionConfig.defaults()
                            .withRetention(Optional.empty(), OptionalLong.of(3))
                            .withBatchSize(7),
                    Clock.systemUTC());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong rightReads = new AtomicLong();
            AtomicLong expiredReads = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> {
                for (int round = 1; !stop.get(); round++) {
                    List<WriteOp> ops =
                            new ArrayList<>(List.of(new WriteOp.Update(TABLE, ObjectKind.INNER, round(round))));
                    for (int leaf = 0; leaf < LEAVES; leaf++) {
                        ops.add(new WriteOp.Update(TABLE.child("f" + leaf), ObjectKind.LEAF, round(round)));
                    }
                    long vid = tree.commit(new WriteSet(ops)).vid();
                    rounds.put(vid, round);
                    acknowledged.set(vid);
                }
            }));
            threads.add(new Thread(() -> {
                while (!stop.get()) {
                    collector.collect();
                }
            }));
            for (int reader = 0; reader < 2; reader++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        // Half the reads at the horizon itself: the version the next pass is about to collect.
                        long vid = random.nextBoolean()
                                ? Math.max(first, Math.min(tree.horizon(), acknowledged.get()))
                                : Math.max(first, acknowledged.get() - random.nextLong(6));
                        try {
                            if (random.nextInt(4) == 0) {
                                try (ReadPins.Pin pin = tree.pin(vid)) {
                                    check(tree, vid, rounds.get(vid));
                                }
                            } else {
                                check(tree, vid, rounds.get(vid));
                            }
                            rightReads.incrementAndGet();
                        } catch (CatalogException e) {
                            assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.VERSION_EXPIRED);
                            expiredReads.incrementAndGet();
                        }
                    }
                }));
            }
            threads.forEach(thread -> thread.setUncaughtExceptionHandler((t, e) -> {
                failure.compareAndSet(null, e);
                stop.set(true);
            }));
            threads.forEach(Thread::start);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < deadline && !stop.get()) {
                Thread.sleep(50);
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(collector.keysReclaimed()).isGreaterThan(0);
            assertThat(rightReads.get()).isGreaterThan(100);
            // The race is real: some reads lost it and were refused rather than answered.
            assertThat(expiredReads.get()).isGreaterThan(0);
        }
    }

    private static BsonDocument round(int round) {
        return new BsonDocument("round", new BsonInt32(round));
    }

    /** The table and every leaf at {@code vid} carry the round written there. */
    private static void check(VersionedTree tree, long vid, Integer round) {
        assertThat(round).as("vid %d was acknowledged", vid).isNotNull();
        CatalogObject table = tree.read(TABLE, vid).orElseThrow(() -> new AssertionError("/t missing at " + vid));
        assertThat(table.value()).as("/t at %d", vid).isEqualTo(round(round));
        int leaves = 0;
        try (ChildCursor cursor = tree.children(TABLE, vid)) {
            while (cursor.advance()) {
                assertThat(cursor.value()).as("%s at %d", cursor.id(), vid).isEqualTo(round(round));
                leaves++;
            }
        }
        assertThat(leaves).as("leaves at %d", vid).isEqualTo(LEAVES);
        assertThat(tree.read(TABLE.child("f" + (vid % LEAVES)), vid).map(CatalogObject::value))
                .contains(round(round));
    }
}
