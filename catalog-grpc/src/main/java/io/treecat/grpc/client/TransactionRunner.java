package io.treecat.grpc.client;

import static java.util.Objects.requireNonNull;

import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteSet;
import java.time.Duration;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a read-write transaction to completion: begin, run the work, commit; when the commit is
 * ABORTED by a conflict, wait (exponential backoff, full jitter) and run it all again, reading
 * the newer state. Only ABORTED is retried: any other failure (a bad write, a missing parent, an
 * unknown outcome) would fail the same way again or must not be repeated blindly.
 */
public final class TransactionRunner {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionRunner.class);

    private final TreeCatClient client;
    private final RetryPolicy policy;
    private final Random random;
    private final Sleeper sleeper;

    public TransactionRunner(TreeCatClient client, RetryPolicy policy, Random random, Sleeper sleeper) {
        this.client = requireNonNull(client, "client is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.random = requireNonNull(random, "random is null");
        this.sleeper = requireNonNull(sleeper, "sleeper is null");
    }

    /**
     * @return the successful commit
     * @throws TreeCatClientException the last ABORTED once {@code maxAttempts} runs failed, or the
     *     first failure of any other kind
     */
    public CommitSummary run(TransactionWork work) {
        requireNonNull(work, "work is null");
        for (int attempt = 1; ; attempt++) {
            try {
                return runOnce(work);
            } catch (TreeCatClientException e) {
                if (!e.isRetryable() || attempt >= policy.maxAttempts()) {
                    throw e;
                }
                Duration delay = Duration.ofNanos(
                        random.nextLong(policy.delayCap(attempt).toNanos() + 1));
                LOG.debug(
                        "Transaction aborted (attempt {} of {}), retrying in {}: {}",
                        attempt,
                        policy.maxAttempts(),
                        delay,
                        e.getMessage());
                try {
                    sleeper.sleep(delay);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(interrupted);
                    throw e;
                }
            }
        }
    }

    private CommitSummary runOnce(TransactionWork work) {
        RemoteTransaction txn = client.begin(TransactionMode.READ_WRITE);
        WriteSet writes;
        try {
            writes = work.run(txn);
        } catch (RuntimeException | Error e) {
            abortQuietly(txn, e);
            throw e;
        }
        return txn.commit(writes);
    }

    private static void abortQuietly(RemoteTransaction txn, Throwable failure) {
        try {
            txn.abort();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
