package io.treecat.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads by time and commit history through the service, over the transaction manager's pipeline. */
class TestReadsByTime {
    @TempDir
    Path directory;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-24T09:00:00Z"));
    private CatalogService catalog;

    @BeforeEach
    void open() {
        Clock clock = new Clock() {
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
                return now.get();
            }
        };
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory), clock), TransactionConfig.defaults(), clock);
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    private long put(String path, String owner) {
        ObjectPath objectPath = ObjectPath.parse(path);
        BsonDocument value = BsonDocument.parse("{owner: '" + owner + "'}");
        WriteOp op = catalog.get(objectPath, ReadPoint.LATEST).isPresent()
                ? new WriteOp.Update(objectPath, ObjectKind.INNER, value)
                : new WriteOp.Add(objectPath, ObjectKind.INNER, value);
        return catalog.commit(WriteSet.of(op)).vid();
    }

    private String ownerAt(ReadPoint point) {
        return catalog.get(ObjectPath.parse("/db"), point)
                .orElseThrow()
                .value()
                .getString("owner")
                .getValue();
    }

    @Test
    void aReadAtATimeSeesTheVersionCommittedByThen() {
        put("/db", "ann");
        now.set(Instant.parse("2026-11-24T10:00:00Z"));
        long v2 = put("/db", "bob");
        now.set(Instant.parse("2026-11-24T11:00:00Z"));
        put("/db", "cy");

        assertThat(ownerAt(ReadPoint.time(Instant.parse("2026-11-24T09:30:00Z"))))
                .isEqualTo("ann");
        assertThat(ownerAt(ReadPoint.time(Instant.parse("2026-11-24T10:00:00Z"))))
                .isEqualTo("bob");
        assertThat(ownerAt(ReadPoint.time(Instant.parse("2026-11-24T12:00:00Z"))))
                .isEqualTo("cy");
        assertThat(catalog.resolve(ReadPoint.time(Instant.parse("2026-11-24T10:59:59.999Z"))))
                .isEqualTo(v2);
    }

    @Test
    void aTimeBeforeTheFirstCommitNamesTheOldest() {
        assertThatThrownBy(() -> catalog.resolve(ReadPoint.time(Instant.parse("2026-11-24T09:00:00Z"))))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TIME_BEFORE_HISTORY);
                    assertThat(e.getMessage()).contains("No commit is recorded yet");
                });
        put("/db", "ann");
        assertThatThrownBy(() -> catalog.resolve(ReadPoint.time(Instant.parse("2026-11-24T08:00:00Z"))))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TIME_BEFORE_HISTORY);
                    assertThat(e.getMessage())
                            .isEqualTo("Time 2026-11-24T08:00:00Z is before the oldest recorded commit, at "
                                    + "2026-11-24T09:00:00Z (vid 1)");
                });
    }

    @Test
    void bulkLoadChunksAndOriginsReachTheLog() {
        put("/db", "ann");
        catalog.commit(WriteSet.of(new WriteOp.Update(
                        ObjectPath.parse("/db"), ObjectKind.INNER, BsonDocument.parse("{owner: 'x'}")))
                .withOrigin(new CommitOrigin(null, "hms", "alter_database")));
        String lines = "{\"path\": \"/db/t1\", \"kind\": \"inner\", \"value\": {}}\n"
                + "{\"path\": \"/db/t2\", \"kind\": \"inner\", \"value\": {}}\n";
        catalog.bulkLoad(new BufferedReader(new StringReader(lines)), 10, (records, vid) -> {});
        assertThat(catalog.listCommits(CommitQuery.all(10)).records())
                .extracting(record -> record.origin().qualifiedOperation(), CommitRecord::compact)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("native.commit", false),
                        org.assertj.core.groups.Tuple.tuple("hms.alter_database", false),
                        org.assertj.core.groups.Tuple.tuple("load.chunk", true));
    }

    @Test
    void historyPagesBySubtreeAndTime() {
        put("/db", "ann");
        put("/other", "x");
        now.set(Instant.parse("2026-11-24T10:00:00Z"));
        long v3 = put("/db", "bob");
        long v4 = put("/db", "cy");
        now.set(Instant.parse("2026-11-24T11:00:00Z"));
        long v5 = put("/db", "dan");

        HistoryRequest sinceTen = new HistoryRequest(
                ObjectPath.parse("/db"), ReadPoint.time(Instant.parse("2026-11-24T10:00:00Z")), null, 2, false, null);
        HistoryPage first = catalog.listCommits(sinceTen);
        assertThat(first.commits()).extracting(CommitRecord::vid).containsExactly(v3, v4);
        HistoryPage second = catalog.listCommits(new HistoryRequest(
                sinceTen.path(),
                sinceTen.since(),
                null,
                2,
                false,
                first.nextPageToken().orElseThrow()));
        assertThat(second.commits()).extracting(CommitRecord::vid).containsExactly(v5);
        assertThat(second.nextPageToken()).isEmpty();

        HistoryPage newest = catalog.listCommits(new HistoryRequest(
                ObjectPath.ROOT, null, ReadPoint.time(Instant.parse("2026-11-24T10:30:00Z")), 10, true, null));
        assertThat(newest.commits()).extracting(CommitRecord::vid).containsExactly(v4, v3, 2L, 1L);
        assertThat(catalog.listCommits(new HistoryRequest(
                                ObjectPath.ROOT,
                                null,
                                ReadPoint.time(Instant.parse("2026-01-01T00:00:00Z")),
                                10,
                                true,
                                null))
                        .commits())
                .isEmpty();

        assertThatThrownBy(() -> catalog.listCommits(new HistoryRequest(ObjectPath.ROOT, null, null, 10, false, "x")))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONTINUATION));
        assertThatThrownBy(() -> new HistoryRequest(ObjectPath.ROOT, ReadPoint.LATEST, null, 10, false, null))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY_OPTION));
    }

    @Test
    void timesAreParsedAsRfc3339WithAnOffset() {
        assertThat(ReadPoint.parseTime("2026-11-24T10:00:00+01:00", "as_of_time"))
                .isEqualTo(Instant.parse("2026-11-24T09:00:00Z"));
        assertThatThrownBy(() -> ReadPoint.parseTime("2026-11-24 09:00", "as_of_time"))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(e.getMessage()).startsWith("as_of_time is not an RFC 3339 time");
                });
    }
}
