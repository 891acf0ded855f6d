package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.version.ChildKinds;

/**
 * One predicate read of a transaction: the children of {@code parent}, of the given kinds, were
 * scanned within the step's id ranges and tested against its predicate (paper §5.2, ScanSet).
 *
 * @param returnsObjects the matches were returned with their values (a query's last step, or a
 *     point read), so a change to a matching object's value matters; for an earlier step only which
 *     children match matters
 */
public record ScanEntry(ObjectPath parent, PlanStep step, ChildKinds kinds, boolean returnsObjects) {
    public ScanEntry {
        requireNonNull(parent, "parent is null");
        requireNonNull(step, "step is null");
        requireNonNull(kinds, "kinds is null");
    }

    /** The predicate in query syntax, for conflict messages. */
    public String predicate() {
        return step.step().toString();
    }
}
