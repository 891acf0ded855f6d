package io.treecat.core.model;

/** The two kinds of object in the tree (paper §3.1). */
public enum ObjectKind {
    /** Has one parent and children; mutable; every past version is kept for time travel. */
    INNER,
    /** Has no children; immutable, only added or removed; may be shared by several parents. */
    LEAF
}
