package io.treecat.core.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Multiple-granularity locks on the tree for the MGL baseline (strict 2PL). The lockable units are
 * each object's subtree (the object, its existence and everything below it) and, finer, each
 * object's own value. A lock on a subtree covers the values in it; intention locks on the ancestors
 * announce finer locks below. Deadlocks are prevented by wait-die (an older transaction waits for a
 * younger one; a younger one requesting a lock an older one holds aborts at once) and bounded by a
 * timeout.
 *
 * <p>One monitor guards the table: MGL is the comparison baseline, not the default protocol.
 */
final class LockManager {
    /** A lockable unit: the subtree at {@code path}, or just the value of the object at {@code path}. */
    record Resource(ObjectPath path, boolean valueOnly) {
        static Resource subtree(ObjectPath path) {
            return new Resource(path, false);
        }

        static Resource value(ObjectPath path) {
            return new Resource(path, true);
        }

        @Override
        public String toString() {
            return valueOnly ? "the value of " + path : path.toString();
        }
    }

    private final Duration timeout;
    /** resource → (transaction → mode held). */
    private final Map<Resource, Map<Transaction, LockMode>> table = new HashMap<>();

    private final Map<Transaction, Set<Resource>> held = new HashMap<>();

    LockManager(Duration timeout) {
        this.timeout = timeout;
    }

    /** Intention locks on every enclosing subtree, then {@code mode} on {@code resource}. */
    void lockHierarchy(Transaction txn, Resource resource, LockMode mode) {
        LockMode intention = mode == LockMode.S || mode == LockMode.IS ? LockMode.IS : LockMode.IX;
        ObjectPath path = resource.path();
        int enclosing = resource.valueOnly() ? path.depth() + 1 : path.depth();
        for (int depth = 0; depth < enclosing; depth++) {
            lock(txn, Resource.subtree(path.prefix(depth)), intention);
        }
        lock(txn, resource, mode);
    }

    synchronized void lock(Transaction txn, Resource path, LockMode requested) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<Transaction, LockMode> holders = table.computeIfAbsent(path, p -> new HashMap<>());
            LockMode current = holders.get(txn);
            LockMode wanted = current == null ? requested : current.join(requested);
            if (wanted == current) {
                return;
            }
            Transaction blocker = null;
            for (Map.Entry<Transaction, LockMode> holder : holders.entrySet()) {
                if (holder.getKey() != txn && !wanted.compatibleWith(holder.getValue())) {
                    blocker = holder.getKey();
                    break;
                }
            }
            if (blocker == null) {
                holders.put(txn, wanted);
                held.computeIfAbsent(txn, t -> new HashSet<>()).add(path);
                return;
            }
            if (txn.startSequence() > blocker.startSequence()) {
                throw new CatalogException(
                                ErrorCode.COMMIT_CONFLICT,
                                "Lock conflict: an older transaction holds " + holders.get(blocker) + " on " + path
                                        + " (wait-die)")
                        .with("path", path.path())
                        .with("requested", wanted);
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new CatalogException(
                                ErrorCode.LOCK_TIMEOUT,
                                "Lock wait timed out after " + timeout.toMillis() + " ms for " + wanted + " on " + path)
                        .with("path", path.path())
                        .with("requested", wanted);
            }
            try {
                wait(Math.max(1, remaining / 1_000_000), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CatalogException(
                                ErrorCode.LOCK_TIMEOUT, "Lock wait interrupted for " + wanted + " on " + path)
                        .with("path", path.path());
            }
        }
    }

    synchronized void releaseAll(Transaction txn) {
        Set<Resource> paths = held.remove(txn);
        if (paths == null) {
            return;
        }
        for (Resource path : paths) {
            Map<Transaction, LockMode> holders = table.get(path);
            if (holders != null) {
                holders.remove(txn);
                if (holders.isEmpty()) {
                    table.remove(path);
                }
            }
        }
        notifyAll();
    }

    synchronized int lockedPaths() {
        return table.size();
    }
}
