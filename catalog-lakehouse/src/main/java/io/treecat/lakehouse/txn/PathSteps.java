package io.treecat.lakehouse.txn;

import io.treecat.core.model.ObjectPath;

/** Path-query text for exact paths: one {@code [obj_id='…']} step per id, quotes escaped. */
public final class PathSteps {
    private PathSteps() {}

    /** {@code /[obj_id='a']/[obj_id='b']} for {@code /a/b}; empty for the root. */
    public static String of(ObjectPath path) {
        StringBuilder steps = new StringBuilder();
        for (String id : path.ids()) {
            steps.append("/[obj_id=").append(literal(id)).append(']');
        }
        return steps.toString();
    }

    /** A single-quoted string literal of the query language. */
    public static String literal(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
