package io.treecat.lakehouse.events;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * One change to a namespace, table or view of a catalog, as an events API reports it: derived from
 * a commit-log record by {@link LakeEvents}.
 *
 * @param namespace the namespace's levels (for a namespace event, the namespace itself)
 * @param name the table or view name; null for a namespace
 * @param uuid the Iceberg table or view uuid, null when there is none (a namespace, a Hive table)
 * @param from for a rename, the old namespace and name (the last element); empty otherwise
 */
public record LakeEvent(
        long vid,
        long commitTimeMillis,
        Action action,
        Kind kind,
        List<String> namespace,
        String name,
        String uuid,
        List<String> from) {
    public enum Kind {
        NAMESPACE,
        TABLE,
        VIEW
    }

    public enum Action {
        CREATED,
        UPDATED,
        DROPPED,
        RENAMED
    }

    public LakeEvent {
        requireNonNull(action, "action is null");
        requireNonNull(kind, "kind is null");
        namespace = ImmutableList.copyOf(namespace);
        from = ImmutableList.copyOf(from);
    }
}
