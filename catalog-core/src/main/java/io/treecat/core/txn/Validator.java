package io.treecat.core.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.query.tree.EvaluationTarget;
import io.treecat.core.query.tree.Predicates;
import io.treecat.core.query.tree.Step;
import io.treecat.core.version.ObjectChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.bson.BsonDocument;

/**
 * Optimistic validation of a scan set against the changes committed after the transaction's read
 * vid (paper Algorithm 1). With OSPL a candidate change conflicts only if its before- or after-image
 * satisfies the scan's predicate (precision locking); with OSL every change in the scanned range
 * conflicts (scan-range locking, using the step's id bounds).
 */
final class Validator {
    private final ChangeLog log;
    private final ConcurrencyProtocol protocol;
    private final ExecutorService partitions;
    private final int parallelThreshold;
    private final int partitionCount;

    Validator(
            ChangeLog log,
            ConcurrencyProtocol protocol,
            ExecutorService partitions,
            int partitionCount,
            int parallelThreshold) {
        this.log = log;
        this.protocol = protocol;
        this.partitions = partitions;
        this.partitionCount = partitionCount;
        this.parallelThreshold = parallelThreshold;
    }

    /** Throws {@code COMMIT_CONFLICT} naming the first conflict found. */
    void validate(List<ScanEntry> scanSet, long readVid) {
        checkTracked(readVid);
        validateScans(scanSet, readVid);
        // Checked again after: the log's collector may have dropped changes this validation was reading
        // (it raises the floor before it drops anything). Failing closed is a retry; missing a conflict
        // would be a serializability violation.
        checkTracked(readVid);
    }

    private void checkTracked(long readVid) {
        if (!log.tracksChangesAfter(readVid)) {
            throw new CatalogException(
                            ErrorCode.COMMIT_CONFLICT,
                            "Commit conflict: the changes committed after version " + readVid
                                    + " can no longer be validated; retry the transaction")
                    .with("readVid", readVid)
                    .with("oldestVid", log.floor());
        }
    }

    private void validateScans(List<ScanEntry> scanSet, long readVid) {
        if (scanSet.size() < parallelThreshold || partitionCount == 1) {
            validatePartition(scanSet, readVid);
            return;
        }
        // Hash-partition the scan set by parent, as the paper does, and validate the parts in parallel.
        List<List<ScanEntry>> parts = new ArrayList<>();
        for (int i = 0; i < partitionCount; i++) {
            parts.add(new ArrayList<>());
        }
        for (ScanEntry entry : scanSet) {
            parts.get(Math.floorMod(entry.parent().hashCode(), partitionCount)).add(entry);
        }
        List<Future<?>> running = new ArrayList<>();
        for (int i = 1; i < partitionCount; i++) {
            List<ScanEntry> part = parts.get(i);
            running.add(partitions.submit(() -> validatePartition(part, readVid)));
        }
        CatalogException conflict = null;
        try {
            validatePartition(parts.get(0), readVid);
        } catch (CatalogException e) {
            conflict = e;
        }
        for (Future<?> part : running) {
            try {
                part.get();
            } catch (ExecutionException e) {
                if (conflict == null && e.getCause() instanceof CatalogException catalogException) {
                    conflict = catalogException;
                } else if (conflict == null) {
                    throw new IllegalStateException("validation failed", e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CatalogException(ErrorCode.COMMIT_CONFLICT, "Validation was interrupted");
            }
        }
        if (conflict != null) {
            throw conflict;
        }
    }

    private void validatePartition(List<ScanEntry> scanSet, long readVid) {
        for (ScanEntry entry : scanSet) {
            // Scan-range check: nothing under this parent changed since the read.
            if (log.newestChildVid(entry.parent()) <= readVid) {
                continue;
            }
            for (ObjectChange change : log.changesAfter(entry.parent(), readVid)) {
                if (conflicts(entry, change)) {
                    throw new CatalogException(
                                    ErrorCode.COMMIT_CONFLICT,
                                    "Commit conflict: " + change.path() + " changed after version " + readVid
                                            + " under " + entry.parent() + ", which this transaction read with "
                                            + entry.predicate())
                            .with("path", entry.parent())
                            .with("predicate", entry.predicate())
                            .with("conflictingPath", change.path())
                            .with("readVid", readVid);
                }
            }
        }
    }

    private boolean conflicts(ScanEntry entry, ObjectChange change) {
        String id = change.path().id();
        if (!entry.step().idRanges().contains(id)) {
            return false;
        }
        boolean before = change.beforeKind() != null && entry.kinds().includes(change.beforeKind());
        boolean after = change.afterKind() != null && entry.kinds().includes(change.afterKind());
        if (protocol == ConcurrencyProtocol.OSL) {
            return before || after;
        }
        boolean matchedBefore = before && satisfies(entry.step().step(), id, change.before());
        boolean matchedAfter = after && satisfies(entry.step().step(), id, change.after());
        if (entry.returnsObjects()) {
            // The scan returned matching objects with their values: any change to a match matters.
            return matchedBefore || matchedAfter;
        }
        // The scan only chose which children the next step visits: only a change of membership
        // matters. Changes inside a child that stays a match are validated by the next step's scans.
        return matchedBefore != matchedAfter;
    }

    private static boolean satisfies(Step step, String id, BsonDocument image) {
        if (step instanceof Step.Filter filter) {
            return Predicates.test(filter.expr(), EvaluationTarget.of(id, image));
        }
        return true;
    }
}
