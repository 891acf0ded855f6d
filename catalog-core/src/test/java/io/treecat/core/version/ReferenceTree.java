package io.treecat.core.version;

import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;

/**
 * The simplest model of the tree's semantics: a map from path to object, copied whole at every
 * vid. Tests compare the real tree with it. Independent of the real implementation on purpose.
 */
public final class ReferenceTree {
    public record Entry(ObjectKind kind, BsonDocument value) {}

    /** The state after each vid; index 0 is the empty tree. */
    private final List<TreeMap<ObjectPath, Entry>> versions = new ArrayList<>();

    public ReferenceTree() {
        versions.add(new TreeMap<>());
    }

    public long lastVid() {
        return versions.size() - 1;
    }

    public Map<ObjectPath, Entry> at(long vid) {
        Map<ObjectPath, Entry> state = versions.get((int) vid);
        if (state == null) {
            throw new IllegalStateException("version " + vid + " was forgotten");
        }
        return state;
    }

    /** Drops the states before {@code vid}, to bound memory over long histories. */
    public void forgetBefore(long vid) {
        for (int i = 0; i < vid && i < versions.size(); i++) {
            versions.set(i, null);
        }
    }

    /** Starts the model from an existing state instead of the empty tree; vids before it are forgotten. */
    public ReferenceTree(Map<ObjectPath, Entry> state, long vid) {
        for (long i = 0; i < vid; i++) {
            versions.add(null);
        }
        versions.add(new TreeMap<>(state));
    }

    /** Applies a write set; returns false (and changes nothing) if any precondition fails. */
    public boolean commit(WriteSet writes) {
        TreeMap<ObjectPath, Entry> state = new TreeMap<>(versions.get(versions.size() - 1));
        for (WriteOp op : writes.ops()) {
            if (!apply(state, op)) {
                return false;
            }
        }
        versions.add(state);
        return true;
    }

    private boolean apply(TreeMap<ObjectPath, Entry> state, WriteOp op) {
        if (op instanceof WriteOp.Add add) {
            if (!parentOk(state, add.path()) || state.containsKey(add.path())) {
                return false;
            }
            state.put(add.path(), new Entry(add.kind(), add.value()));
            return true;
        }
        if (op instanceof WriteOp.Update update) {
            Entry existing = state.get(update.path());
            if (!parentOk(state, update.path()) || (existing != null && existing.kind() != update.kind())) {
                return false;
            }
            state.put(update.path(), new Entry(update.kind(), update.value()));
            return true;
        }
        if (op instanceof WriteOp.Remove remove) {
            if (!state.containsKey(remove.path())) {
                return false;
            }
            state.keySet().removeIf(remove.path()::isAncestorOrSelf);
            return true;
        }
        if (op instanceof WriteOp.Merge merge) {
            Entry existing = state.get(merge.path());
            if (existing == null || existing.kind() != ObjectKind.INNER) {
                return false;
            }
            state.put(merge.path(), new Entry(ObjectKind.INNER, MergeDelta.apply(existing.value(), merge.delta())));
            return true;
        }
        WriteOp.Clone clone = (WriteOp.Clone) op;
        Map<ObjectPath, Entry> source = at(clone.sourceVid());
        if (!source.containsKey(clone.source()) || !parentOk(state, clone.path()) || state.containsKey(clone.path())) {
            return false;
        }
        Map<ObjectPath, Entry> copies = new HashMap<>();
        source.forEach((path, entry) -> {
            if (clone.source().isAncestorOrSelf(path)) {
                copies.put(path.rebase(clone.source(), clone.path()), entry);
            }
        });
        state.putAll(copies);
        return true;
    }

    private static boolean parentOk(Map<ObjectPath, Entry> state, ObjectPath path) {
        if (path.isRoot()) {
            return false;
        }
        ObjectPath parent = path.parent();
        return parent.isRoot()
                || (state.containsKey(parent) && state.get(parent).kind() == ObjectKind.INNER);
    }

    public List<ObjectPath> children(ObjectPath parent, long vid) {
        List<ObjectPath> children = new ArrayList<>();
        for (ObjectPath path : at(vid).keySet()) {
            if (!path.isRoot() && path.parent().equals(parent)) {
                children.add(path);
            }
        }
        children.sort((a, b) -> IdOrder.compare(a.id(), b.id()));
        return children;
    }
}
