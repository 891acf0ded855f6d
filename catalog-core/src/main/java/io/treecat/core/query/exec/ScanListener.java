package io.treecat.core.query.exec;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.PlanStep;

/**
 * Told of every scan a query makes: the parent whose children were scanned, and the step whose
 * predicate they were tested against. A read-write transaction records these pairs as its ScanSet
 * for validation at commit (paper §5.2).
 */
@FunctionalInterface
public interface ScanListener {
  ScanListener NONE = (parent, step) -> {};

  void onScan(ObjectPath parent, PlanStep step);
}
