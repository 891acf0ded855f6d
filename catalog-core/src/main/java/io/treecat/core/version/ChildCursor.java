package io.treecat.core.version;

import io.treecat.core.model.ObjectKind;
import org.bson.BsonDocument;

/**
 * The children of one parent visible at one vid, in id order, within the id ranges the cursor was
 * opened with. Reused in place: each {@link #advance()} moves to the next child, and the accessors
 * describe the current one. Not thread safe; must be closed.
 */
public interface ChildCursor extends AutoCloseable {
    /** Moves to the next visible child; false when there is none. */
    boolean advance();

    String id();

    ObjectKind kind();

    /** The child's value, parsed lazily: a cursor that only looks at ids never decodes BSON. */
    BsonDocument value();

    /** The vid that produced this version of the child. */
    long version();

    @Override
    void close();
}
