package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;

/**
 * One path a commit touched: what happened to it and the kind of object it is (after the commit;
 * before it, for a removal).
 */
public record PathChange(ObjectPath path, ChangeKind change, ObjectKind objectKind) {
    public PathChange {
        requireNonNull(path, "path is null");
        requireNonNull(change, "change is null");
        requireNonNull(objectKind, "objectKind is null");
    }
}
