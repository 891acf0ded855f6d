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
 * Multiple-granularity locks on the tree for the MGL baseline (strict 2PL). A lock on a path covers
 * its subtree; intention locks on the ancestors announce finer locks below. Deadlocks are prevented
 * by wait-die (an older transaction waits for a younger one, a younger one requesting a lock an older
 * one holds aborts at once) and bounded by a timeout.
 *
 * <p>One monitor guards the table: MGL is the comparison baseline, not the default protocol.
 */
final class LockManager {
  private final Duration timeout;
  /** path → (transaction → mode held). */
  private final Map<ObjectPath, Map<Transaction, LockMode>> table = new HashMap<>();
  private final Map<Transaction, Set<ObjectPath>> held = new HashMap<>();

  LockManager(Duration timeout) {
    this.timeout = timeout;
  }

  /** Intention locks on every proper ancestor, then {@code mode} on {@code path}. */
  void lockHierarchy(Transaction txn, ObjectPath path, LockMode mode) {
    LockMode intention = mode == LockMode.S || mode == LockMode.IS ? LockMode.IS : LockMode.IX;
    for (int depth = 0; depth < path.depth(); depth++) {
      lock(txn, path.prefix(depth), intention);
    }
    lock(txn, path, mode);
  }

  synchronized void lock(Transaction txn, ObjectPath path, LockMode requested) {
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
        throw new CatalogException(ErrorCode.COMMIT_CONFLICT,
                "Lock conflict: an older transaction holds " + holders.get(blocker) + " on " + path + " (wait-die)")
            .with("path", path)
            .with("requested", wanted);
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new CatalogException(ErrorCode.LOCK_TIMEOUT, "Lock wait timed out after " + timeout.toMillis() + " ms for " + wanted + " on " + path)
            .with("path", path)
            .with("requested", wanted);
      }
      try {
        wait(Math.max(1, remaining / 1_000_000), 0);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CatalogException(ErrorCode.LOCK_TIMEOUT, "Lock wait interrupted for " + wanted + " on " + path).with("path", path);
      }
    }
  }

  synchronized void releaseAll(Transaction txn) {
    Set<ObjectPath> paths = held.remove(txn);
    if (paths == null) {
      return;
    }
    for (ObjectPath path : paths) {
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
