/**
 * The immutable syntax tree of a path query, and the evaluation of one step's predicate against one
 * object. Every node renders back to query text that parses to the same tree.
 */
package io.treecat.core.query.tree;
