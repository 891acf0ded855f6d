package io.treecat.lakehouse.events;

import static java.util.Objects.requireNonNull;

import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.PathChange;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.model.IcebergPointer;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.model.ViewEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns commit-log records into the namespace, table and view events of one catalog: for each
 * inner object the record touched under {@code /<catalog>}, the object's lake type is read from the
 * tree at the record's vid (the vid before it for a removal). Leaves (data files) and the lake's
 * other objects (partitions, file indexes, Hive bookkeeping) make no event. A table or view removed
 * and added under another name in the same commit, with the same uuid, is one rename. Compact records
 * (bulk loads) keep no paths and make no event.
 */
public final class LakeEvents {
    private final CatalogService catalog;

    public LakeEvents(CatalogService catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    /** The events of {@code record} in {@code catalogName}, in the record's path order (renames where the drop was). */
    public List<LakeEvent> of(CommitRecord record, String catalogName) {
        ObjectPath root = ObjectPath.of(catalogName);
        List<LakeEvent> events = new ArrayList<>();
        if (record.compact()) {
            return events;
        }
        Set<ObjectPath> removed = new HashSet<>();
        for (PathChange change : record.changes()) {
            if (change.change() == ChangeKind.REMOVED) {
                removed.add(change.path());
            }
        }
        for (PathChange change : record.changes()) {
            ObjectPath path = change.path();
            if (change.objectKind() != ObjectKind.INNER || path.depth() < 2 || !root.isAncestorOrSelf(path)) {
                continue;
            }
            // A removed subtree's objects go with its top: only the top can be a table, view or namespace drop.
            if (change.change() == ChangeKind.REMOVED && removed.contains(path.parent())) {
                continue;
            }
            long readAt = change.change() == ChangeKind.REMOVED ? record.vid() - 1 : record.vid();
            Optional<CatalogObject> object = catalog.get(path, ReadPoint.vid(readAt));
            if (object.isEmpty()) {
                continue;
            }
            Optional<ObjectType> type = ObjectType.of(object.get().value());
            if (type.isEmpty()) {
                continue;
            }
            LakeEvent.Action action = switch (change.change()) {
                case ADDED -> LakeEvent.Action.CREATED;
                case UPDATED -> LakeEvent.Action.UPDATED;
                case REMOVED -> LakeEvent.Action.DROPPED;
            };
            List<String> levels = path.ids().subList(1, path.depth());
            switch (type.get()) {
                case NAMESPACE ->
                    events.add(new LakeEvent(
                            record.vid(),
                            record.commitTimeMillis(),
                            action,
                            LakeEvent.Kind.NAMESPACE,
                            levels,
                            null,
                            null,
                            List.of()));
                case TABLE, VIEW -> {
                    LakeEvent.Kind kind = type.get() == ObjectType.TABLE ? LakeEvent.Kind.TABLE : LakeEvent.Kind.VIEW;
                    events.add(new LakeEvent(
                            record.vid(),
                            record.commitTimeMillis(),
                            action,
                            kind,
                            levels.subList(0, levels.size() - 1),
                            path.id(),
                            uuid(kind, object.get()),
                            List.of()));
                }
                default -> {
                    // Partitions, file indexes, functions, Hive bookkeeping: no catalog event.
                }
            }
        }
        return renames(events);
    }

    private static String uuid(LakeEvent.Kind kind, CatalogObject object) {
        try {
            Optional<IcebergPointer> pointer = kind == LakeEvent.Kind.TABLE
                    ? TableEntry.decode(object.value()).icebergPointer()
                    : Optional.of(ViewEntry.decode(object.value()).pointer());
            return pointer.map(IcebergPointer::uuid).orElse(null);
        } catch (RuntimeException e) {
            // A value the lake's codec refuses (written natively) still makes its event, without a uuid.
            return null;
        }
    }

    /** A drop and a create of the same uuid in one commit are one rename, reported where the drop was. */
    private static List<LakeEvent> renames(List<LakeEvent> events) {
        Map<String, LakeEvent> created = new LinkedHashMap<>();
        for (LakeEvent event : events) {
            if (event.action() == LakeEvent.Action.CREATED && event.uuid() != null) {
                created.put(event.kind() + event.uuid(), event);
            }
        }
        if (created.isEmpty()) {
            return events;
        }
        List<LakeEvent> result = new ArrayList<>();
        Set<LakeEvent> merged = new HashSet<>();
        for (LakeEvent event : events) {
            LakeEvent target = event.action() == LakeEvent.Action.DROPPED && event.uuid() != null
                    ? created.get(event.kind() + event.uuid())
                    : null;
            if (target != null) {
                List<String> from = new ArrayList<>(event.namespace());
                from.add(event.name());
                result.add(new LakeEvent(
                        event.vid(),
                        event.commitTimeMillis(),
                        LakeEvent.Action.RENAMED,
                        event.kind(),
                        target.namespace(),
                        target.name(),
                        event.uuid(),
                        from));
                merged.add(target);
            } else {
                result.add(event);
            }
        }
        result.removeIf(merged::contains);
        return result;
    }
}
