/**
 * The durable commit log: one record per vid saying when it was committed, by whom, through which
 * interface and operation, and which paths it added, updated and removed. Written in the same atomic
 * batch as the commit; read for history ({@code ListCommits}, {@code treecat log}) and to resolve
 * reads by time. Later slices (a change feed, Hive's notification log, retention) read the same
 * records through {@link io.treecat.core.history.CommitLog#read}.
 */
package io.treecat.core.history;
