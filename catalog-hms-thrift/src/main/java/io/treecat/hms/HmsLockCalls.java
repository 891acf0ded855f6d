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
 * The lock calls Iceberg's HiveCatalog and Hive's clients make around a commit, on the server's one
 * in-memory lock table ({@link HmsLocks}); Hive's transactions ({@code open_txns}, …) are not served.
 */
final class HmsLockCalls {
    private final HmsLocks locks;

    HmsLockCalls(HmsLocks locks) {
        this.locks = requireNonNull(locks, "locks is null");
    }

    public LockResponse lock(LockRequest request) throws TException {
        return locks.lock(request);
    }

    public LockResponse check_lock(CheckLockRequest request) throws TException {
        return locks.check(request);
    }

    public void unlock(UnlockRequest request) throws TException {
        locks.unlock(request);
    }

    public void heartbeat(HeartbeatRequest request) throws TException {
        locks.heartbeat(request);
    }

    public ShowLocksResponse show_locks(ShowLocksRequest request) throws TException {
        return locks.show(request);
    }
}
