package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;

/**
 * The lock calls Iceberg's HiveCatalog and Hive's clients make around a commit, on the HMS catalog's lock table in
 * the tree ({@link HmsLocks}), and the locks and heartbeats of Hive transactions ({@link HmsTransactions}): a lock
 * request with a {@code txnid} needs the transaction open, and {@code heartbeat} with a {@code txnid} heartbeats
 * the transaction.
 */
final class HmsLockCalls {
    private final HmsLocks locks;
    private final HmsTransactions transactions;

    HmsLockCalls(HmsLocks locks, HmsTransactions transactions) {
        this.locks = requireNonNull(locks, "locks is null");
        this.transactions = requireNonNull(transactions, "transactions is null");
    }

    /**
     * Transaction locks live as long as their transaction: a lock call first aborts the expired ones (a sweep that
     * runs at most once a second, {@link HmsTransactions#expire}).
     */
    private void expireTransactions() throws TException {
        transactions.expire();
    }

    /**
     * A call whose request struct is absent ({@code show_locks(null)}) is the client's mistake, answered as Thrift
     * answers a malformed call: a {@link TApplicationException} naming what is missing. None of these calls declares
     * {@code MetaException}, so anything else would reach the client as Thrift's "Internal error processing …".
     */
    private static <T> T required(T request, String call, String type) throws TApplicationException {
        if (request == null) {
            throw new TApplicationException(
                    TApplicationException.PROTOCOL_ERROR, call + ": the request (" + type + ") is missing");
        }
        return request;
    }

    /**
     * A request {@link HmsLocks} refuses for what it holds (no component, a component without a database or table
     * name, a database name that is {@code @cat#} or names another catalog) is answered with {@link
     * NoSuchTxnException} carrying the reason: {@code lock} declares only it and {@code TxnAbortedException}, so the
     * {@code MetaException} would reach the client as Thrift's opaque "Internal error processing lock" (found by the
     * live protocol fuzzer, docs/robustness.md).
     */
    public LockResponse lock(LockRequest request) throws TException {
        required(request, "lock", "LockRequest");
        expireTransactions();
        try {
            return locks.lock(request, transactions::checkOpen);
        } catch (MetaException e) {
            NoSuchTxnException refused = new NoSuchTxnException(e.getMessage());
            refused.initCause(e);
            throw refused;
        }
    }

    public LockResponse check_lock(CheckLockRequest request) throws TException {
        required(request, "check_lock", "CheckLockRequest");
        expireTransactions();
        long txnId = locks.transactionOf(request.getLockid());
        if (txnId != 0) {
            // As Hive: checking a transaction's lock is a sign of life of the transaction.
            transactions.heartbeat(txnId);
        }
        return locks.check(request);
    }

    public void unlock(UnlockRequest request) throws TException {
        required(request, "unlock", "UnlockRequest");
        expireTransactions();
        locks.unlock(request);
    }

    /** Hive's order: the lock (if any), then the transaction (if any). */
    public void heartbeat(HeartbeatRequest request) throws TException {
        required(request, "heartbeat", "HeartbeatRequest");
        expireTransactions();
        locks.heartbeat(request.getLockid());
        if (request.getTxnid() != 0) {
            transactions.heartbeat(request.getTxnid());
        }
    }

    public ShowLocksResponse show_locks(ShowLocksRequest request) throws TException {
        required(request, "show_locks", "ShowLocksRequest");
        expireTransactions();
        return locks.show(request);
    }
}
