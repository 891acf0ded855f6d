package io.treecat.core.feed;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.Sets;
import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.PathChange;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which commit records a change-feed reader gets: those with at least one change at or under
 * {@code prefix} whose change kind is in {@code changes} and whose object kind is in {@code
 * objectKinds}. A record that matches is delivered whole, as {@code ListCommits} returns it.
 *
 * <p>A compact record (a bulk-load chunk) keeps no paths: it matches the prefix by its common
 * prefixes (as {@link CommitRecord#touches}), the change kinds by its counts, and any object kind
 * (it does not say which kinds it touched). So it may match what it only came near, never the reverse.
 *
 * @param changes the change kinds wanted; all three when the reader names none
 * @param objectKinds the object kinds wanted; both when the reader names none
 */
public record ChangeFilter(ObjectPath prefix, Set<ChangeKind> changes, Set<ObjectKind> objectKinds) {
    public static final ChangeFilter ALL =
            new ChangeFilter(ObjectPath.ROOT, EnumSet.allOf(ChangeKind.class), EnumSet.allOf(ObjectKind.class));

    public ChangeFilter {
        requireNonNull(prefix, "prefix is null");
        changes = Sets.immutableEnumSet(changes.isEmpty() ? EnumSet.allOf(ChangeKind.class) : changes);
        objectKinds = Sets.immutableEnumSet(objectKinds.isEmpty() ? EnumSet.allOf(ObjectKind.class) : objectKinds);
    }

    public static ChangeFilter under(ObjectPath prefix) {
        return new ChangeFilter(prefix, Set.of(), Set.of());
    }

    private boolean allKinds() {
        return changes.size() == ChangeKind.values().length && objectKinds.size() == ObjectKind.values().length;
    }

    public boolean matches(CommitRecord record) {
        if (record.compact()) {
            return record.touches(prefix)
                    && ((changes.contains(ChangeKind.ADDED) && record.added() > 0)
                            || (changes.contains(ChangeKind.UPDATED) && record.updated() > 0)
                            || (changes.contains(ChangeKind.REMOVED) && record.removed() > 0));
        }
        if (allKinds()) {
            return record.touches(prefix);
        }
        for (PathChange change : record.changes()) {
            if (changes.contains(change.change())
                    && objectKinds.contains(change.objectKind())
                    && prefix.isAncestorOrSelf(change.path())) {
                return true;
            }
        }
        return false;
    }
}
