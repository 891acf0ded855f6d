package io.treecat.core.version;

import io.treecat.core.model.ObjectPath;
import java.util.List;

/**
 * The children of many parents, one parent after another, at one vid: the scans of a query step. Every cursor it
 * opens reads through the same store iterators, re-positioned by a seek, instead of opening iterators of its own:
 * a step visits a parent per partition, with a handful of children each, and opening, bounding and closing RocksDB
 * iterators for each one cost more than reading the children.
 *
 * <p>At most one of its cursors is in use at a time: opening the next one ends the one before. Not thread safe; must
 * be closed.
 */
public interface ChildScan extends AutoCloseable {
    /**
     * The children of {@code parent} at {@code vid} within {@code idRanges}, as {@link VersionedTree#children}
     * answers them. A vid other than the last one's reopens the iterators, so that they see every commit up to it.
     */
    ChildCursor children(ObjectPath parent, long vid, List<byte[][]> idRanges);

    @Override
    void close();
}
