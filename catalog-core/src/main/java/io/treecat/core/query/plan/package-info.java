/**
 * The pure planner: a query becomes one plan step per query step, each with the id ranges its
 * predicate allows (iterator bounds) and whether it must read values. No I/O; {@link
 * io.treecat.core.query.plan.QueryPlan#explain} is deterministic text for tests and users.
 */
package io.treecat.core.query.plan;
