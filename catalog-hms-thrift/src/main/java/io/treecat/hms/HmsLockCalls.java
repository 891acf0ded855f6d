package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TException;

/**
 * The lock calls Iceberg's HiveCatalog and Hive's clients make around a commit, on the server's one in-memory lock
 * table ({@link HmsLocks}), and the locks and heartbeats of Hive transactions ({@link HmsTransactions}): a lock
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

    /** Transaction locks live as long as their transaction: a lock call first aborts the expired ones. */
    private void expireTransactions() throws TException {
        if (locks.holdsTransactionLocks()) {
            transactions.expire();
        }
    }

    public LockResponse lock(LockRequest request) throws TException {
        expireTransactions();
        return locks.lock(request, transactions::checkOpen);
    }

    public LockResponse check_lock(CheckLockRequest request) throws TException {
        expireTransactions();
        long txnId = locks.transactionOf(request.getLockid());
        if (txnId != 0) {
            // As Hive: checking a transaction's lock is a sign of life of the transaction.
            transactions.heartbeat(txnId);
        }
        return locks.check(request);
    }

    public void unlock(UnlockRequest request) throws TException {
        expireTransactions();
        locks.unlock(request);
    }

    /** Hive's order: the lock (if any), then the transaction (if any). */
    public void heartbeat(HeartbeatRequest request) throws TException {
        expireTransactions();
        locks.heartbeat(request.getLockid());
        if (request.getTxnid() != 0) {
            transactions.heartbeat(request.getTxnid());
        }
    }

    public ShowLocksResponse show_locks(ShowLocksRequest request) throws TException {
        expireTransactions();
        return locks.show(request);
    }
}
