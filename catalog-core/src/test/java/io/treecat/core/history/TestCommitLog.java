package io.treecat.core.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.ForwardingKvStore;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.PreparedCommit;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestCommitLog {
    private static final CommitOrigin REST = new CommitOrigin("ann", "rest", "commitTable");

    @TempDir
    Path directory;

    private final SettableClock clock = new SettableClock();
    private VersionedTree tree;

    @AfterEach
    void close() {
        if (tree != null) {
            tree.close();
        }
    }

    private VersionedTree open() {
        tree = VersionedTree.open(RocksKvStore.open(directory), clock);
        return tree;
    }

    private void reopen() {
        tree.close();
        open();
    }

    private static ObjectPath path(String text) {
        return ObjectPath.parse(text);
    }

    private static WriteOp add(String path) {
        return new WriteOp.Add(path(path), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'database'}"));
    }

    private long commit(WriteOp... ops) {
        return tree.commit(WriteSet.of(ops)).vid();
    }

    @Test
    void aFullRecordSurvivesTheCodec() {
        CommitRecord record = new CommitRecord(
                7,
                1_700_000_000_123L,
                REST,
                false,
                1,
                1,
                1,
                List.of(
                        new PathChange(path("/a"), ChangeKind.ADDED, ObjectKind.INNER),
                        new PathChange(path("/a/ü b"), ChangeKind.UPDATED, ObjectKind.LEAF),
                        new PathChange(path("/c"), ChangeKind.REMOVED, ObjectKind.INNER)),
                List.of());
        assertThat(CommitRecordCodec.decode(CommitRecordCodec.encode(record))).isEqualTo(record);
    }

    @Test
    void aCompactRecordWithoutPrincipalSurvivesTheCodec() {
        CommitRecord record = new CommitRecord(
                Long.MAX_VALUE - 1,
                0,
                CommitOrigin.LOAD_CHUNK,
                true,
                10_000,
                0,
                3,
                List.of(),
                List.of(path("/lake/sales"), ObjectPath.ROOT));
        assertThat(CommitRecordCodec.decode(CommitRecordCodec.encode(record))).isEqualTo(record);
    }

    @Test
    void aDamagedRecordIsReportedAsCorruptionNotMisread() {
        byte[] bytes = CommitRecordCodec.encode(new CommitRecord(
                1,
                5,
                CommitOrigin.NATIVE,
                false,
                1,
                0,
                0,
                List.of(new PathChange(path("/a"), ChangeKind.ADDED, ObjectKind.INNER)),
                List.of()));
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        assertThatThrownBy(() -> CommitRecordCodec.decode(truncated))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_CORRUPTION));
        byte[] future = bytes.clone();
        future[0] = 9;
        assertThatThrownBy(() -> CommitRecordCodec.decode(future))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_STORAGE_FORMAT));
    }

    @Test
    void eachCommitRecordsItsOriginTimeAndPaths() {
        open();
        clock.set("2026-11-24T09:00:00Z");
        long v1 = commit(add("/a"), add("/a/b"));
        clock.set("2026-11-24T09:00:05Z");
        long v2 = tree.commit(new WriteSet(
                        List.of(
                                new WriteOp.Update(
                                        path("/a/b"), ObjectKind.INNER, BsonDocument.parse("{obj_type: 'table'}")),
                                new WriteOp.Add(path("/a/f"), ObjectKind.LEAF, BsonDocument.parse("{n: 1}"))),
                        REST))
                .vid();
        long v3 = commit(new WriteOp.Remove(path("/a/f")));

        CommitRecord first = tree.log().find(v1).orElseThrow();
        assertThat(first.origin()).isEqualTo(CommitOrigin.NATIVE);
        assertThat(first.commitTime()).isEqualTo(Instant.parse("2026-11-24T09:00:00Z"));
        assertThat(first.changes())
                .containsExactly(
                        new PathChange(path("/a"), ChangeKind.ADDED, ObjectKind.INNER),
                        new PathChange(path("/a/b"), ChangeKind.ADDED, ObjectKind.INNER));
        CommitRecord second = tree.log().find(v2).orElseThrow();
        assertThat(second.origin()).isEqualTo(REST);
        assertThat(second.origin().qualifiedOperation()).isEqualTo("rest.commitTable");
        assertThat(second.changes())
                .containsExactly(
                        new PathChange(path("/a/b"), ChangeKind.UPDATED, ObjectKind.INNER),
                        new PathChange(path("/a/f"), ChangeKind.ADDED, ObjectKind.LEAF));
        assertThat(tree.log().find(v3).orElseThrow().changes())
                .containsExactly(new PathChange(path("/a/f"), ChangeKind.REMOVED, ObjectKind.LEAF));
        assertThat(tree.log().oldest().orElseThrow().vid()).isEqualTo(v1);
        assertThat(tree.log().newest().orElseThrow().vid()).isEqualTo(v3);
    }

    @Test
    void commitTimeNeverGoesBackEvenWhenTheClockDoes() {
        open();
        clock.set("2026-11-24T09:00:00Z");
        long v1 = commit(add("/a"));
        clock.set("2026-11-24T08:00:00Z");
        long v2 = commit(add("/b"));
        assertThat(tree.log().find(v2).orElseThrow().commitTimeMillis())
                .isEqualTo(tree.log().find(v1).orElseThrow().commitTimeMillis());

        // Across a restart too: the newest record's time is the floor.
        reopen();
        clock.set("2026-11-24T07:00:00Z");
        long v3 = commit(add("/c"));
        assertThat(tree.log().find(v3).orElseThrow().commitTime()).isEqualTo(Instant.parse("2026-11-24T09:00:00Z"));
        clock.set("2026-11-24T10:00:00Z");
        long v4 = commit(add("/d"));
        assertThat(tree.log().find(v4).orElseThrow().commitTime()).isEqualTo(Instant.parse("2026-11-24T10:00:00Z"));
    }

    @Test
    void recordsReadBackAfterReopen() {
        open();
        List<CommitRecord> before = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            clock.advanceMillis(1000);
            long vid = tree.commit(WriteSet.of(add("/t" + i)).withOrigin(REST)).vid();
            before.add(tree.log().find(vid).orElseThrow());
        }
        reopen();
        assertThat(tree.log().read(CommitQuery.all(100)).records()).containsExactlyElementsOf(before);
    }

    @Test
    void aRefusedCommitLeavesNoRecord() {
        open();
        long v1 = commit(add("/a"));
        assertThatThrownBy(() -> commit(add("/a"))).isInstanceOf(CatalogException.class);
        assertThat(tree.log().read(CommitQuery.all(100)).records())
                .extracting(CommitRecord::vid)
                .containsExactly(v1);
    }

    @Test
    void aFailedWriteLeavesNeitherTheCommitNorItsRecord() {
        FailingStore store = new FailingStore(RocksKvStore.open(directory));
        tree = VersionedTree.open(store, clock);
        long v1 = commit(add("/a"));
        store.failWrites = true;
        // Whether a failed write reached the store is known only on reopen: the caller hears "unknown".
        assertThatThrownBy(() -> commit(add("/b")))
                .hasMessageContaining("may or may not be durable")
                .rootCause()
                .hasMessageContaining("injected");
        store.failWrites = false;
        reopen();
        assertThat(tree.lastVid()).isEqualTo(v1);
        assertThat(tree.read(path("/b"), v1)).isEmpty();
        assertThat(tree.log().read(CommitQuery.all(100)).records())
                .extracting(CommitRecord::vid)
                .containsExactly(v1);
        // The vid is taken by the next commit that succeeds, with its own record.
        long v2 = commit(add("/c"));
        assertThat(tree.log().find(v2).orElseThrow().changes())
                .extracting(PathChange::path)
                .containsExactly(path("/c"));
    }

    @Test
    void aRecordIsHiddenUntilItsVidIsPublished() {
        open();
        try (PreparedCommit prepared = tree.prepare(WriteSet.of(add("/a")))) {
            tree.apply(prepared, false);
            assertThat(tree.log().find(prepared.vid())).isEmpty();
            assertThat(tree.log().newest()).isEmpty();
            assertThat(tree.log().oldest()).isEmpty();
            assertThat(tree.log().read(CommitQuery.all(10)).records()).isEmpty();
            tree.syncWal();
            tree.publish(prepared.vid());
            assertThat(tree.log().find(prepared.vid())).isPresent();
        }
    }

    @Test
    void bulkChunksAndLargeCommitsGetACompactRecord() {
        open();
        commit(add("/lake"), add("/lake/db1"), add("/lake/db2"));
        List<WriteOp> chunk = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            chunk.add(add("/lake/db" + (1 + i % 2) + "/t" + i));
        }
        long big = commit(chunk.toArray(WriteOp[]::new));
        CommitRecord record = tree.log().find(big).orElseThrow();
        assertThat(record.compact()).isTrue();
        assertThat(record.added()).isEqualTo(1500);
        assertThat(record.changes()).isEmpty();
        assertThat(record.prefixes()).containsExactly(path("/lake/db1"), path("/lake/db2"));
        assertThat(record.touches(path("/lake/db2/t7"))).isTrue();
        assertThat(record.touches(path("/lake"))).isTrue();
        assertThat(record.touches(path("/other"))).isFalse();

        long loaded = tree.commit(new WriteSet(List.of(add("/lake/db1/x")), CommitOrigin.LOAD_CHUNK))
                .vid();
        CommitRecord chunkRecord = tree.log().find(loaded).orElseThrow();
        assertThat(chunkRecord.compact()).isTrue();
        assertThat(chunkRecord.prefixes()).containsExactly(path("/lake/db1"));
        assertThat(CommitRecordCodec.encode(record).length).isLessThan(200);

        // A chunk loaded by a signed-in user, forwarded by a replica, is still a chunk.
        long signedIn = tree.commit(new WriteSet(
                        List.of(add("/lake/db1/y")),
                        CommitOrigin.LOAD_CHUNK.withPrincipal("ann").withRequestId("r-1")))
                .vid();
        assertThat(tree.log().find(signedIn).orElseThrow().compact()).isTrue();
    }

    @Test
    void aForwardedCommitsRequestIdSurvivesTheCodecInFormat2() {
        CommitRecord plain = new CommitRecord(
                3,
                5,
                REST,
                false,
                1,
                0,
                0,
                List.of(new PathChange(path("/a"), ChangeKind.ADDED, ObjectKind.INNER)),
                List.of());
        CommitRecord forwarded = new CommitRecord(
                3,
                5,
                REST.withRequestId("node-2/5f0c"),
                false,
                1,
                0,
                0,
                List.of(new PathChange(path("/a"), ChangeKind.ADDED, ObjectKind.INNER)),
                List.of());

        // Records without one stay in format 1, which older versions read.
        assertThat(CommitRecordCodec.encode(plain)[0]).isEqualTo((byte) 1);
        assertThat(CommitRecordCodec.encode(forwarded)[0]).isEqualTo((byte) 2);
        assertThat(CommitRecordCodec.decode(CommitRecordCodec.encode(forwarded)))
                .isEqualTo(forwarded);
        assertThat(CommitRecordCodec.decode(CommitRecordCodec.encode(forwarded))
                        .origin()
                        .requestId())
                .isEqualTo("node-2/5f0c");
        byte[] withoutId = CommitRecordCodec.encode(plain);
        withoutId[0] = 2;
        assertThatThrownBy(() -> CommitRecordCodec.decode(withoutId))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_CORRUPTION));
    }

    @Test
    void manyScatteredPrefixesAreShortenedToAFew() {
        List<PathChange> changes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            changes.add(new PathChange(path("/c" + (i % 2) + "/db" + i + "/t"), ChangeKind.ADDED, ObjectKind.INNER));
        }
        CommitRecord record = StoreCommitLog.summarize(new CommitEntry(1, CommitOrigin.LOAD_CHUNK, changes), 0);
        assertThat(record.prefixes()).containsExactly(path("/c0"), path("/c1"));
        for (PathChange change : changes) {
            assertThat(record.touches(change.path())).isTrue();
        }
    }

    @Test
    void aTimeResolvesToTheNewestVidCommittedAtOrBeforeIt() {
        open();
        long[] vids = new long[20];
        for (int i = 0; i < vids.length; i++) {
            clock.set(Instant.parse("2026-11-24T09:00:00Z").plusSeconds(10L * (i / 2)));
            vids[i] = commit(add("/t" + i));
        }
        CommitLog log = tree.log();
        assertThat(log.vidAt(Instant.parse("2026-11-24T08:59:59.999Z").toEpochMilli()))
                .isEmpty();
        // Two commits share each time: the newer of them wins.
        assertThat(log.vidAt(Instant.parse("2026-11-24T09:00:00Z").toEpochMilli()))
                .isEqualTo(OptionalLong.of(vids[1]));
        assertThat(log.vidAt(Instant.parse("2026-11-24T09:00:35Z").toEpochMilli()))
                .isEqualTo(OptionalLong.of(vids[7]));
        assertThat(log.vidAt(Instant.parse("2026-11-24T09:00:40Z").toEpochMilli()))
                .isEqualTo(OptionalLong.of(vids[9]));
        assertThat(log.vidAt(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli()))
                .isEqualTo(OptionalLong.of(vids[19]));
    }

    @Test
    void pagesFilteredBySubtreeInEitherOrder() {
        open();
        List<Long> underA = new ArrayList<>();
        commit(add("/a"), add("/b"));
        for (int i = 0; i < 10; i++) {
            underA.add(commit(add("/a/t" + i)));
            commit(add("/b/t" + i));
        }
        List<Long> seen = new ArrayList<>();
        CommitQuery query = new CommitQuery(1, Long.MAX_VALUE, path("/a"), 4, false);
        while (true) {
            CommitPage page = tree.log().read(query);
            page.records().forEach(record -> seen.add(record.vid()));
            if (page.nextVid().isEmpty()) {
                break;
            }
            query = new CommitQuery(page.nextVid().getAsLong(), query.toVid(), query.prefix(), 4, false);
        }
        List<Long> expected = new ArrayList<>(List.of(1L));
        expected.addAll(underA);
        assertThat(seen).isEqualTo(expected);

        CommitPage newest = tree.log().read(new CommitQuery(1, Long.MAX_VALUE, path("/a/t9"), 3, true));
        assertThat(newest.records()).extracting(CommitRecord::vid).containsExactly(underA.get(9));
        CommitPage lastThree = tree.log().read(new CommitQuery(1, 20, ObjectPath.ROOT, 3, true));
        assertThat(lastThree.records()).extracting(CommitRecord::vid).containsExactly(20L, 19L, 18L);
        assertThat(lastThree.nextVid()).isEqualTo(OptionalLong.of(17));
    }

    @Test
    void aStoreFromBeforeTheLogOpensAndSaysWhereHistoryStarts() {
        open();
        clock.set("2026-11-24T09:00:00Z");
        commit(add("/a"));
        commit(add("/b"));
        // Remove the records, as a store written before the log existed has none.
        try (KvBatch batch = tree.store().newBatch()) {
            batch.delete(KeySpace.COMMIT_LOG, CommitRecordCodec.key(1));
            batch.delete(KeySpace.COMMIT_LOG, CommitRecordCodec.key(2));
            tree.store().write(batch, true);
        }
        reopen();
        assertThat(tree.log().oldest()).isEmpty();
        assertThat(tree.log().vidAt(Instant.parse("2027-01-01T00:00:00Z").toEpochMilli()))
                .isEmpty();
        clock.set("2026-11-24T10:00:00Z");
        long v3 = commit(add("/c"));
        assertThat(tree.log().oldest().orElseThrow().vid()).isEqualTo(v3);
        assertThat(tree.log().find(1)).isEmpty();
        assertThat(tree.log().vidAt(Instant.parse("2026-11-24T09:30:00Z").toEpochMilli()))
                .isEmpty();
        assertThat(tree.log()
                        .read(new CommitQuery(1, Long.MAX_VALUE, ObjectPath.ROOT, 10, true))
                        .records())
                .extracting(CommitRecord::vid)
                .containsExactly(v3);
        assertThat(tree.read(path("/a"), v3)).isPresent();
    }

    /** A clock tests set by hand. */
    private static final class SettableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void set(String time) {
            now = Instant.parse(time);
        }

        void set(Instant time) {
            now = time;
        }

        void advanceMillis(long millis) {
            now = now.plusMillis(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** The real store, but its writes fail while {@code failWrites} is set. */
    private static final class FailingStore extends ForwardingKvStore {
        volatile boolean failWrites;

        FailingStore(KvStore delegate) {
            super(delegate);
        }

        @Override
        public void write(KvBatch batch, boolean sync) {
            if (failWrites) {
                throw new IllegalStateException("injected write failure");
            }
            super.write(batch, sync);
        }
    }
}
