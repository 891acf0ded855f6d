package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.version.ChildKinds;

/**
 * One predicate read of a transaction: the children of {@code parent}, of the given kinds, were
 * scanned within the step's id ranges and tested against its predicate (paper §5.2, ScanSet).
 */
public record ScanEntry(ObjectPath parent, PlanStep step, ChildKinds kinds) {
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
