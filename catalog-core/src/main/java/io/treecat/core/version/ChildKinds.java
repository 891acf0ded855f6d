package io.treecat.core.version;

import io.treecat.core.model.ObjectKind;

/** Which kinds of children a scan returns. */
public enum ChildKinds {
    INNER,
    LEAVES,
    BOTH;

    public boolean includes(ObjectKind kind) {
        return this == BOTH || (kind == ObjectKind.INNER ? this == INNER : this == LEAVES);
    }
}
