package io.treecat.lakehouse.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestTransactionRunner {
    private static final ObjectPath COUNTER = ObjectPath.of("counter");
    private static final Access ACCESS = Access.of(Principal.ANONYMOUS, Action.NATIVE_WRITE, COUNTER);

    @TempDir
    Path directory;

    private CatalogService service;
    private final List<Duration> sleeps = new ArrayList<>();

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory);
        service.commit(new WriteSet(List.of(new WriteOp.Add(COUNTER, ObjectKind.INNER, value(0)))));
    }

    @AfterEach
    void close() {
        service.close();
    }

    private TransactionRunner runner(RetryPolicy policy) {
        return new TransactionRunner(() -> service, Authorizer.allowAll(), policy, sleeps::add);
    }

    private static BsonDocument value(int n) {
        return new BsonDocument("n", new BsonInt32(n));
    }

    private int counter() {
        return service.get(COUNTER, io.treecat.core.service.ReadPoint.LATEST)
                .orElseThrow()
                .value()
                .getInt32("n")
                .getValue();
    }

    /** A body that reads the counter, then (first {@code losses} times) lets another writer bump it before committing its own bump. */
    private Work<Integer, RuntimeException> incrementLosing(int losses, AtomicInteger attempts) {
        return txn -> {
            int attempt = attempts.incrementAndGet();
            int n = txn.read(COUNTER)
                    .map(CatalogObject::value)
                    .orElseThrow()
                    .getInt32("n")
                    .getValue();
            if (attempt <= losses) {
                service.commit(
                        new WriteSet(List.of(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(counter() + 100)))));
            }
            txn.write(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(n + 1)));
            return attempt;
        };
    }

    @Test
    void aLostRaceRunsTheBodyAgainWithBackoffAndSeesTheWinner() {
        AtomicInteger attempts = new AtomicInteger();

        int attempt = runner(new RetryPolicy(5, Duration.ofMillis(4), Duration.ofMillis(8)))
                .write(ACCESS, incrementLosing(2, attempts));

        assertThat(attempt).isEqualTo(3);
        assertThat(counter()).isEqualTo(201); // two winners' +100, then this body's +1 on what it re-read
        assertThat(sleeps)
                .hasSize(2)
                .allSatisfy(sleep -> assertThat(sleep).isBetween(Duration.ZERO, Duration.ofMillis(8)));
    }

    @Test
    void theLastConflictReachesTheCallerAndNothingIsWritten() {
        AtomicInteger attempts = new AtomicInteger();
        List<String> abandoned = new ArrayList<>();
        Work<Integer, RuntimeException> body = txn -> {
            txn.onAbandon(() -> abandoned.add("cleanup"));
            txn.afterCommit(() -> abandoned.add("after-commit"));
            return incrementLosing(10, attempts).run(txn);
        };

        assertThatThrownBy(() ->
                        runner(new RetryPolicy(3, Duration.ZERO, Duration.ZERO)).write(ACCESS, body))
                .isInstanceOf(CatalogException.class)
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));
        assertThat(attempts).hasValue(3);
        assertThat(counter()).isEqualTo(300); // only the three winners
        assertThat(abandoned).containsExactly("cleanup", "cleanup", "cleanup");
    }

    @Test
    void noRetryPolicyGivesUpAtOnce() {
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> runner(RetryPolicy.NONE).write(ACCESS, incrementLosing(1, attempts)))
                .isInstanceOf(CatalogException.class);
        assertThat(attempts).hasValue(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void afterCommitRunsOnceTheWritesAreVisible() {
        List<Integer> seen = new ArrayList<>();

        runner(RetryPolicy.DEFAULT).write(ACCESS, txn -> {
            txn.write(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(7)));
            txn.afterCommit(() -> seen.add(counter()));
            return null;
        });

        assertThat(seen).containsExactly(7);
    }

    @Test
    void aFailingBodyWritesNothingAndRunsItsCleanup() {
        List<String> cleaned = new ArrayList<>();

        assertThatThrownBy(() -> runner(RetryPolicy.DEFAULT).write(ACCESS, txn -> {
                    txn.write(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(9)));
                    txn.onAbandon(() -> cleaned.add("metadata file"));
                    throw new IllegalStateException("requirement failed");
                }))
                .hasMessage("requirement failed");
        assertThat(counter()).isZero();
        assertThat(cleaned).containsExactly("metadata file");
    }

    @Test
    void theAuthorizerDecidesBeforeAnythingIsRead() {
        AtomicInteger bodies = new AtomicInteger();
        TransactionRunner denying = new TransactionRunner(() -> service, access -> {
            throw new IllegalStateException("denied: " + access.action());
        });

        assertThatThrownBy(() -> denying.write(ACCESS, txn -> bodies.incrementAndGet()))
                .hasMessage("denied: NATIVE_WRITE");
        assertThatThrownBy(() -> denying.read(ACCESS, txn -> bodies.incrementAndGet()))
                .hasMessage("denied: NATIVE_WRITE");
        assertThat(bodies).hasValue(0);
    }

    @Test
    void aReadSeesTheNewestStateAndCommitsNothing() {
        Optional<CatalogObject> read = runner(RetryPolicy.DEFAULT).read(ACCESS, txn -> txn.read(COUNTER));

        assertThat(read).map(CatalogObject::value).contains(value(0));
        assertThat(service.lastVid()).isEqualTo(1);
    }

    @Test
    void backoffGrowsAndStaysUnderItsCap() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(1), Duration.ofMillis(5));

        for (int attempt = 1; attempt < 10; attempt++) {
            assertThat(policy.backoff(attempt))
                    .isBetween(Duration.ZERO, Duration.ofMillis(Math.min(5, 1L << (attempt - 1))));
        }
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                .hasMessage("maxAttempts must be at least 1: 0");
    }

    @Test
    void commitsAreLoggedWithTheAdaptersInterfaceAndTheAction() {
        runner(RetryPolicy.DEFAULT).forInterface("hms").write(ACCESS, txn -> {
            txn.write(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(7)));
            return null;
        });
        runner(RetryPolicy.DEFAULT).write(ACCESS, txn -> {
            txn.write(new WriteOp.Update(COUNTER, ObjectKind.INNER, value(8)));
            return null;
        });
        List<io.treecat.core.history.CommitRecord> log = service.listCommits(
                        io.treecat.core.service.HistoryRequest.all())
                .commits();
        String operation = com.google.common.base.CaseFormat.UPPER_UNDERSCORE.to(
                com.google.common.base.CaseFormat.LOWER_CAMEL, ACCESS.action().name());
        assertThat(log)
                .extracting(record -> record.origin().qualifiedOperation())
                .containsExactly("native.commit", "hms." + operation, "lake." + operation);
        assertThat(log.get(1).origin().principal()).isNull();
        assertThatThrownBy(() -> runner(RetryPolicy.DEFAULT).forInterface(""))
                .isInstanceOf(io.treecat.core.error.CatalogException.class);
    }
}
