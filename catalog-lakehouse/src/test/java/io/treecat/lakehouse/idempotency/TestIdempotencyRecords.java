package io.treecat.lakehouse.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.txn.PathSteps;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Idempotency-key records on a real tree: written with the change or not at all, expiry, collection, the bound. */
class TestIdempotencyRecords {
    private static final Duration LIFETIME = Duration.ofMinutes(30);
    private static final Access ACCESS = Access.of(Principal.ANONYMOUS, Action.NATIVE_WRITE, ObjectPath.of("x"));

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
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

    @TempDir
    Path directory;

    private final MovingClock clock = new MovingClock();
    private LakeTestStores.Lake lake;
    private IdempotencyRecords records;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        records = new IdempotencyRecords(lake.runner(), clock, LIFETIME, 3);
    }

    @AfterEach
    void close() {
        lake.close();
    }

    private TransactionRunner.Attached attach(String key) {
        return records.attach(key, "fp-" + key, clock.instant(), result -> Map.of("result", List.of((String) result)));
    }

    /** A commit of {@code /<id>} answering {@code id}. */
    private String commit(String id) {
        return lake.runner().write(ACCESS, RetryPolicy.NONE, txn -> {
            txn.write(new WriteOp.Update(ObjectPath.of(id), ObjectKind.INNER, new BsonDocument("n", new BsonInt32(1))));
            return id;
        });
    }

    private long vid() {
        return lake.service().lastVid();
    }

    private int recordCount() {
        return lake.runner()
                .read(
                        ACCESS,
                        txn -> txn.queryAll(QueryRequest.of(PathSteps.of(IdempotencyRecords.root()) + "/*")
                                        .withLimit(100))
                                .size());
    }

    @Test
    void theRecordIsWrittenInTheRequestsOwnCommitAndOnlyThere() {
        long before = vid();
        try (TransactionRunner.Attached attached = attach("k1")) {
            assertThat(commit("x")).isEqualTo("x");
            assertThat(attached.committed()).isTrue();
            // A second commit of the same request does not write the record again.
            commit("y");
        }
        assertThat(vid()).isEqualTo(before + 2);
        IdempotencyRecords.Found found = records.find("k1").orElseThrow();
        assertThat(found.fingerprint()).isEqualTo("fp-k1");
        assertThat(found.created()).isEqualTo(clock.instant());
        assertThat(found.outcome()).isEqualTo(Map.of("result", List.of("x")));
        // Closed: the thread's next commit carries nothing.
        commit("z");
        assertThat(recordCount()).isEqualTo(1);
    }

    @Test
    void aFailedRequestLeavesNoRecord() {
        long before = vid();
        try (TransactionRunner.Attached attached = attach("k2")) {
            assertThatThrownBy(() -> lake.runner().write(ACCESS, RetryPolicy.NONE, txn -> {
                        txn.write(new WriteOp.Update(ObjectPath.of("x"), ObjectKind.INNER, new BsonDocument()));
                        throw new IllegalStateException("the request fails");
                    }))
                    .hasMessage("the request fails");
            // A commit the store refuses (an add under a parent that does not exist) leaves none either.
            assertThatThrownBy(() -> lake.runner().write(ACCESS, RetryPolicy.NONE, txn -> {
                txn.write(new WriteOp.Add(ObjectPath.of("missing", "child"), ObjectKind.INNER, new BsonDocument()));
                return "x";
            }));
            assertThat(attached.committed()).isFalse();
        }
        assertThat(records.find("k2")).isEmpty();
        assertThat(vid()).isEqualTo(before);
    }

    @Test
    void expiredRecordsReadAsAbsentAndAreCollected() {
        try (TransactionRunner.Attached ignored = attach("old")) {
            commit("x");
        }
        clock.advance(Duration.ofMinutes(20));
        try (TransactionRunner.Attached ignored = attach("young")) {
            commit("y");
        }
        clock.advance(Duration.ofMinutes(11));
        assertThat(records.find("old")).isEmpty();
        assertThat(records.find("young")).isPresent();

        assertThat(records.collect()).isEqualTo(1);
        assertThat(recordCount()).isEqualTo(1);
        assertThat(records.collect()).isZero();

        // A key used again after its lifetime gets a new record.
        try (TransactionRunner.Attached ignored = attach("old")) {
            commit("z");
        }
        assertThat(records.find("old").orElseThrow().outcome()).isEqualTo(Map.of("result", List.of("z")));
        // collectIfDue collects at most once per interval.
        clock.advance(LIFETIME.plusMinutes(1));
        records.collectIfDue();
        assertThat(recordCount()).isZero();
    }

    @Test
    void theBoundRemovesTheOldestFirst() {
        for (String key : List.of("a", "b", "c", "d", "e")) {
            try (TransactionRunner.Attached ignored = attach(key)) {
                commit("x");
            }
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(records.collect()).isEqualTo(2);
        assertThat(records.find("a")).isEmpty();
        assertThat(records.find("b")).isEmpty();
        assertThat(records.find("c")).isPresent();
        assertThat(recordCount()).isEqualTo(3);
    }
}
