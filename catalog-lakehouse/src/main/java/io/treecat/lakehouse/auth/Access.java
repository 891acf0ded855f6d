package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;

/**
 * One operation as an {@link Authorizer} sees it: who, what, on which object. {@code target} is the
 * object acted on (the table of a commit, the parent namespace of a create or a list).
 */
public record Access(Principal principal, Action action, ObjectPath target) {
    public Access {
        requireNonNull(principal, "principal is null");
        requireNonNull(action, "action is null");
        requireNonNull(target, "target is null");
    }

    public static Access of(Principal principal, Action action, ObjectPath target) {
        return new Access(principal, action, target);
    }
}
