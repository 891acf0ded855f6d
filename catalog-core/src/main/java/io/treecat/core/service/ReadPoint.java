package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** Which version a read sees: the newest, a vid, a named snapshot, or the version current at a time. */
public sealed interface ReadPoint {
    ReadPoint LATEST = new Latest();

    static ReadPoint vid(long vid) {
        return new AtVid(vid);
    }

    static ReadPoint snapshot(String name) {
        return new AtSnapshot(name);
    }

    /** The newest vid committed at or before {@code time}. */
    static ReadPoint time(Instant time) {
        return new AtTime(time);
    }

    record Latest() implements ReadPoint {}

    record AtTime(Instant time) implements ReadPoint {
        public AtTime {
            requireNonNull(time, "time is null");
        }
    }

    record AtVid(long vid) implements ReadPoint {}

    record AtSnapshot(String name) implements ReadPoint {
        public AtSnapshot {
            requireNonNull(name, "name is null");
        }
    }
}
