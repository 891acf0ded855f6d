package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

/** A name given to a vid by {@code snapshot(name, vid)}. */
public record NamedSnapshot(String name, long vid) {
    public NamedSnapshot {
        requireNonNull(name, "name is null");
    }
}
