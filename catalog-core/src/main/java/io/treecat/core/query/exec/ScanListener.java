package io.treecat.core.query.exec;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.version.ChildKinds;

/**
 * Told of every scan a query makes: the parent whose children were scanned, and the step whose
 * predicate they were tested against. A read-write transaction records these pairs as its ScanSet
 * for validation at commit (paper §5.2).
 */
@FunctionalInterface
public interface ScanListener {
    ScanListener NONE = (parent, step, kinds, returnsObjects, vid) -> vid;

    /**
     * Called before the children of {@code parent} are scanned.
     *
     * @param kinds which kinds of children the scan reads
     * @param returnsObjects true for the last step, whose matches (with their values) are the
     *     query's result; an earlier step only decides which children are scanned next
     * @param vid the version the query reads at
     * @return the version to read this scan at: {@code vid}, except under locking protocols, which read
     *     the newest committed state once their lock is granted
     */
    long onScan(ObjectPath parent, PlanStep step, ChildKinds kinds, boolean returnsObjects, long vid);
}
