package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

/** Which version a read sees: the newest, a vid, or a named snapshot. */
public sealed interface ReadPoint {
    ReadPoint LATEST = new Latest();

    static ReadPoint vid(long vid) {
        return new AtVid(vid);
    }

    static ReadPoint snapshot(String name) {
        return new AtSnapshot(name);
    }

    record Latest() implements ReadPoint {}

    record AtVid(long vid) implements ReadPoint {}

    record AtSnapshot(String name) implements ReadPoint {
        public AtSnapshot {
            requireNonNull(name, "name is null");
        }
    }
}
