package io.treecat.lakehouse.iceberg;

import io.treecat.core.model.ObjectPath;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Queues the commits of one server to the same table behind each other. Correctness never depends
 * on it: two commits that race (from two servers, or after a lock timed out) are still told apart
 * by TreeCat's validation. It only keeps commits to a hot table from failing each other's
 * transactions and redoing their work (reading metadata, rebasing, writing a metadata file) on
 * every retry: queued, each commit reads the table after the previous one swapped it.
 *
 * <p>Striped: a fixed set of fair locks chosen by the table path's hash, taken in stripe order so
 * that multi-table commits cannot deadlock.
 */
final class TableCommitLocks {
    private static final int STRIPES = 64;
    private static final long WAIT_SECONDS = 30;

    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    TableCommitLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock(true);
        }
    }

    /** The locks held for one commit; closing releases them. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** The threads waiting for the lock of {@code table}'s stripe (for tests). */
    int queued(ObjectPath table) {
        return stripes[Math.floorMod(table.hashCode(), STRIPES)].getQueueLength();
    }

    /**
     * Takes the stripes of all tables, in order. A stripe that stays busy for longer than the wait is
     * skipped: the commit then goes ahead unqueued and TreeCat's validation decides.
     */
    Held lock(Collection<ObjectPath> tables) {
        TreeSet<Integer> indexes = new TreeSet<>();
        tables.forEach(path -> indexes.add(Math.floorMod(path.hashCode(), STRIPES)));
        List<ReentrantLock> held = new ArrayList<>();
        try {
            for (int index : indexes) {
                if (stripes[index].tryLock(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    held.add(stripes[index]);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return () -> {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).unlock();
            }
        };
    }
}
