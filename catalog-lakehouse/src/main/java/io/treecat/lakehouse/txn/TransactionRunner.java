package io.treecat.lakehouse.txn;

import static java.util.Objects.requireNonNull;

import com.google.common.base.CaseFormat;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every lake operation of every adapter: checks it with the {@link Authorizer}, then runs its
 * body in one TreeCat transaction and commits what the body staged, all or nothing. A read-write
 * transaction that loses a race ({@code COMMIT_CONFLICT}, {@code LOCK_TIMEOUT}) is run again, body
 * and all, after a jittered backoff ({@link RetryPolicy}): the body re-reads and re-decides, so a
 * retry is as serializable as the first attempt. What is left after the last attempt reaches the
 * adapter as the core's {@link CatalogException}, which it maps in its one error table.
 *
 * <p>Outcomes, and what runs of the body's outside effects ({@link LakeTransaction}):
 * <ul>
 *   <li>committed: the {@code afterCommit} actions run;</li>
 *   <li>failed with a known outcome (anything else): nothing was written, the {@code onAbandon}
 *       cleanups run, and the transaction is aborted now rather than at its idle timeout;</li>
 *   <li>{@code COMMIT_STATE_UNKNOWN}: neither runs, the error is passed on.</li>
 * </ul>
 */
public final class TransactionRunner {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionRunner.class);

    /** How the runner waits between attempts; tests pass one that records instead. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * What a request adds to the commit it makes ({@link #attach}): staged in the same transaction, after the body
     * and right before the commit, so it is written exactly when the body's change is.
     */
    @FunctionalInterface
    public interface CommitAttachment {
        /**
         * Stages this attachment's writes in {@code txn}.
         *
         * @param result what the body of the operation returned (its type is the operation's)
         */
        void stage(LakeTransaction txn, Object result);
    }

    /** An attachment bound to the calling thread until {@link #close}; see {@link #attach}. */
    public final class Attached implements AutoCloseable {
        private final CommitAttachment attachment;
        private volatile boolean committed;

        private Attached(CommitAttachment attachment) {
            this.attachment = attachment;
        }

        /** Whether a commit carried the attachment (it did at most once). */
        public boolean committed() {
            return committed;
        }

        /**
         * Stages the attachment in {@code txn}, a transaction another thread runs on the attached request's behalf
         * (a commit chain's, which carries several requests' changes), with what the request's own operation
         * returned; {@link #carried} once that transaction has committed.
         */
        public void stageIn(LakeTransaction txn, Object result) {
            if (!committed) {
                attachment.stage(txn, result);
            }
        }

        /** Records that a transaction run on the request's behalf committed the attachment ({@link #stageIn}). */
        public void carried() {
            committed = true;
        }

        @Override
        public void close() {
            if (attached.get() == this) {
                attached.remove();
            }
        }
    }

    private final Supplier<CatalogService> service;
    private final Authorizer authorizer;
    /** Shared by this runner and its {@link #forInterface} copies: one request thread, one attachment. */
    private final ThreadLocal<Attached> attached;

    private final RetryPolicy defaultPolicy;
    private final Sleeper sleeper;
    /** The interface its commits are logged as coming from ({@link CommitOrigin#interfaceName()}). */
    private final String interfaceName;

    public TransactionRunner(Supplier<CatalogService> service, Authorizer authorizer) {
        this(
                service,
                authorizer,
                RetryPolicy.DEFAULT,
                duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000));
    }

    public TransactionRunner(
            Supplier<CatalogService> service, Authorizer authorizer, RetryPolicy defaultPolicy, Sleeper sleeper) {
        this.service = requireNonNull(service, "service is null");
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
        this.defaultPolicy = requireNonNull(defaultPolicy, "defaultPolicy is null");
        this.sleeper = requireNonNull(sleeper, "sleeper is null");
        this.interfaceName = DEFAULT_INTERFACE;
        this.attached = new ThreadLocal<>();
    }

    private TransactionRunner(TransactionRunner base, String interfaceName) {
        this.service = base.service;
        this.authorizer = base.authorizer;
        this.defaultPolicy = base.defaultPolicy;
        this.sleeper = base.sleeper;
        this.interfaceName = interfaceName;
        this.attached = base.attached;
    }

    /** The interface commits are logged as when no adapter named one. */
    public static final String DEFAULT_INTERFACE = "lake";

    /**
     * The same runner, its commits logged as coming from {@code name} (e.g. {@code rest}, {@code
     * hms}): each adapter takes its own at wiring, so the commit log tells them apart.
     */
    public TransactionRunner forInterface(String name) {
        CommitOrigin.of(name, "check"); // refuses a name the commit log would refuse, now rather than at a commit
        return new TransactionRunner(this, name);
    }

    /**
     * A commit's origin: this runner's interface, the action as its operation ({@code COMMIT_TABLE}
     * as {@code commitTable}), and the principal once there is authentication.
     */
    CommitOrigin origin(Access access) {
        String action = CaseFormat.UPPER_UNDERSCORE.to(
                CaseFormat.LOWER_CAMEL, access.action().name());
        String principal = access.principal().equals(Principal.ANONYMOUS)
                ? null
                : access.principal().name();
        return new CommitOrigin(principal, interfaceName, action);
    }

    /**
     * Binds {@code attachment} to the calling thread until the answer is closed: the first read-write transaction
     * of this thread that commits stages it in its own write set (each attempt afresh, so a lost race leaves
     * nothing of it), and later ones do not. An adapter uses it to carry a request's bookkeeping (an idempotency
     * key) into the commit the request makes, atomically, without each operation knowing of it. Replaces an
     * attachment the thread still held.
     */
    public Attached attach(CommitAttachment attachment) {
        Attached bound = new Attached(requireNonNull(attachment, "attachment is null"));
        attached.set(bound);
        return bound;
    }

    /**
     * The attachment bound to the calling thread, if any, for an operation whose commit another thread runs (a commit
     * chain's member): that thread's transactions do not see this thread's attachment, so the operation stages it
     * itself ({@link Attached#stageIn}).
     */
    public Optional<Attached> attachment() {
        Attached attachment = attached.get();
        return attachment == null || attachment.committed ? Optional.empty() : Optional.of(attachment);
    }

    /** Unbinds whatever attachment the calling thread holds (a request thread starting a new request). */
    public void detach() {
        attached.remove();
    }

    /**
     * The authorizer every operation passes: adapters that filter a list they read (Hive's list calls) ask its {@link
     * Authorizer#maySee} for each row.
     */
    public Authorizer authorizer() {
        return authorizer;
    }

    /** The service operations run on (the current one: a restore may replace it). */
    public CatalogService service() {
        return service.get();
    }

    /** Runs a read-only body at the newest vid: it never conflicts and commits nothing. */
    public <T, E extends Exception> T read(Access access, Work<T, E> work) throws E {
        return read(access, ReadPoint.LATEST, work);
    }

    /** Runs a read-only body at {@code point} (a vid or a named snapshot). */
    public <T, E extends Exception> T read(Access access, ReadPoint point, Work<T, E> work) throws E {
        authorizer.check(access);
        CatalogService catalog = service.get();
        Transaction transaction = catalog.begin(TransactionMode.READ_ONLY, point);
        try {
            return work.run(new LakeTransaction(catalog, transaction));
        } finally {
            abortQuietly(catalog, transaction);
        }
    }

    /** Runs a read-write body with the default retry policy. */
    public <T, E extends Exception> T write(Access access, Work<T, E> work) throws E {
        return write(access, defaultPolicy, work);
    }

    /** Runs a read-write body, again after each lost race while {@code policy} allows. */
    public <T, E extends Exception> T write(Access access, RetryPolicy policy, Work<T, E> work) throws E {
        authorizer.check(access);
        return retrying(access, policy, work);
    }

    /**
     * Runs a read-write body that acts on several objects at once (a multi-table commit): every access
     * is checked before the transaction starts; retries as {@link #write(Access, RetryPolicy, Work)}.
     */
    public <T, E extends Exception> T write(List<Access> accesses, RetryPolicy policy, Work<T, E> work) throws E {
        if (accesses.isEmpty()) {
            throw new IllegalArgumentException("A write names at least one access");
        }
        accesses.forEach(authorizer::check);
        return retrying(accesses.get(0), policy, work);
    }

    private <T, E extends Exception> T retrying(Access access, RetryPolicy policy, Work<T, E> work) throws E {
        for (int attempt = 1; ; attempt++) {
            try {
                return attempt(access, work);
            } catch (CatalogException e) {
                if (!isLostRace(e) || attempt >= policy.maxAttempts()) {
                    throw e;
                }
                Duration backoff = policy.backoff(attempt);
                LOG.debug(
                        "{} on {} lost a race (attempt {} of {}), running it again in {}",
                        access.action(),
                        access.target(),
                        attempt,
                        policy.maxAttempts(),
                        backoff);
                pause(backoff, e);
            }
        }
    }

    private <T, E extends Exception> T attempt(Access access, Work<T, E> work) throws E {
        CatalogService catalog = service.get();
        Transaction transaction = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        LakeTransaction txn = new LakeTransaction(catalog, transaction);
        boolean committed = false;
        boolean unknown = false;
        Attached attachment = attached.get();
        if (attachment != null && attachment.committed) {
            attachment = null;
        }
        try {
            T result = work.run(txn);
            if (attachment != null) {
                attachment.attachment.stage(txn, result);
            }
            if (!txn.writes().isEmpty()) {
                catalog.commit(transaction.id(), new WriteSet(txn.writes(), origin(access)));
                if (attachment != null) {
                    attachment.committed = true;
                }
            } else {
                abortQuietly(catalog, transaction);
            }
            committed = true;
            txn.afterCommitActions().forEach(TransactionRunner::runLogged);
            return result;
        } catch (CatalogException e) {
            unknown = e.code() == ErrorCode.COMMIT_STATE_UNKNOWN;
            throw e;
        } finally {
            if (!committed) {
                abortQuietly(catalog, transaction);
                if (!unknown) {
                    txn.abandonActions().forEach(TransactionRunner::runLogged);
                }
            }
        }
    }

    private static boolean isLostRace(CatalogException e) {
        return e.code() == ErrorCode.COMMIT_CONFLICT || e.code() == ErrorCode.LOCK_TIMEOUT;
    }

    private void pause(Duration backoff, CatalogException lost) {
        if (backoff.isZero()) {
            return;
        }
        try {
            sleeper.sleep(backoff);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw lost;
        }
    }

    private static void runLogged(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warn("An action outside the tree failed; the transaction's outcome stands", e);
        }
    }

    private static void abortQuietly(CatalogService catalog, Transaction transaction) {
        try {
            catalog.abort(transaction.id());
        } catch (RuntimeException e) {
            LOG.debug("Abort of {} failed", transaction.id(), e);
        }
    }
}
