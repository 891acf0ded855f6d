package io.treecat.core.version;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.PathKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;

/**
 * Turns a write set into one storage batch. Writes apply in order over an overlay of the newest
 * state, so a later write sees the earlier ones (add a namespace, then a table in it). Every
 * precondition is checked before anything is written; a failure leaves the store untouched.
 */
final class CommitBuilder {
    private final VersionedTree tree;
    /**
     * Where the state the commit builds on is read: the tree's store, or a view of it with the earlier
     * commits of a replicated group commit staged. Clone sources are read from the tree (published vids).
     */
    private final KvStore kv;

    private final long readVid;
    private final long vid;
    /** The final state of every path this write set touches, in first-touch order. */
    private final Map<ObjectPath, Pending> pending = new LinkedHashMap<>();
    /** For each parent, the ids of its children that have a pending state. */
    private final Map<ObjectPath, Set<String>> pendingChildren = new HashMap<>();
    /** The stored state (as of {@code readVid}) of the touched paths. */
    private final Map<ObjectPath, Existing> existing = new HashMap<>();

    private KvIterator leafLookup;
    /**
     * A clone's source vid, registered until the commit is written: the references it makes point at
     * primary copies the collector could otherwise delete once the horizon passes the source vid.
     */
    private final List<ReadPins.Pin> pins = new ArrayList<>();

    /** A path's state after this write set: absent when {@code kind} is null. */
    private record Pending(ObjectKind kind, byte[] bson, BsonDocument value, byte[] sharedLeafKey) {
        static final Pending ABSENT = new Pending(null, null, null, null);
    }

    /** A path's stored state: its current inner record (live or removed) and its visible leaf entry. */
    private record Existing(ObjectKind kind, BsonDocument value, byte[] innerRecord, VersionedTree.LeafEntry leaf) {}

    private static final Existing NOTHING = new Existing(null, null, null, null);

    CommitBuilder(VersionedTree tree, KvStore kv, long readVid, long vid) {
        this.tree = tree;
        this.kv = kv;
        this.readVid = readVid;
        this.vid = vid;
    }

    PreparedCommit build(WriteSet writes) {
        try {
            return buildPinned(writes);
        } catch (RuntimeException e) {
            pins.forEach(ReadPins.Pin::close);
            throw e;
        }
    }

    private PreparedCommit buildPinned(WriteSet writes) {
        // The leaf lookup stays open until the batch is built: writing it still looks up paths no
        // op read (the children a clone brings in over a subtree this write set removed).
        try {
            for (int i = 0; i < writes.ops().size(); i++) {
                WriteOp op = writes.ops().get(i);
                try {
                    applyOp(op);
                } catch (CatalogException e) {
                    throw e.with("writeIndex", i).with("writePath", op.path());
                }
            }
            KvBatch batch = tree.newCommitBatch();
            try {
                List<ObjectChange> changes = new ArrayList<>(pending.size());
                for (Map.Entry<ObjectPath, Pending> entry : pending.entrySet()) {
                    ObjectChange change = write(batch, entry.getKey(), entry.getValue());
                    if (change != null) {
                        changes.add(change);
                    }
                }
                return new PreparedCommit(batch, new CommitResult(vid, changes), writes.origin(), pins);
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
        } finally {
            if (leafLookup != null) {
                leafLookup.close();
                leafLookup = null;
            }
        }
    }

    private void applyOp(WriteOp op) {
        if (op instanceof WriteOp.Add add) {
            checkParent(add.path());
            if (state(add.path()).kind() != null) {
                throw new CatalogException(ErrorCode.OBJECT_ALREADY_EXISTS, "Object already exists: " + add.path())
                        .with("path", add.path());
            }
            set(add.path(), add.kind(), add.value());
        } else if (op instanceof WriteOp.Update update) {
            checkParent(update.path());
            ObjectKind kind = state(update.path()).kind();
            if (kind != null && kind != update.kind()) {
                throw new CatalogException(
                                ErrorCode.INVALID_WRITE_SET,
                                "Update cannot change an object's kind: " + update.path() + " is " + kind)
                        .with("path", update.path());
            }
            set(update.path(), update.kind(), update.value());
        } else if (op instanceof WriteOp.Remove remove) {
            if (remove.path().isRoot()) {
                throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "The root cannot be removed");
            }
            if (state(remove.path()).kind() == null) {
                throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "Object not found: " + remove.path())
                        .with("path", remove.path());
            }
            removeSubtree(remove.path());
        } else if (op instanceof WriteOp.Merge merge) {
            State state = state(merge.path());
            if (merge.path().isRoot() || state.kind() == null) {
                throw new CatalogException(
                                ErrorCode.OBJECT_NOT_FOUND, "Merge needs an existing object: " + merge.path())
                        .with("path", merge.path());
            }
            if (state.kind() == ObjectKind.LEAF) {
                throw new CatalogException(
                                ErrorCode.LEAF_IS_IMMUTABLE,
                                "Leaves are immutable and cannot be merged: " + merge.path())
                        .with("path", merge.path());
            }
            set(merge.path(), ObjectKind.INNER, MergeDelta.apply(state.value(), merge.delta()));
        } else if (op instanceof WriteOp.Clone clone) {
            cloneSubtree(clone);
        } else {
            throw new IllegalArgumentException("unknown write " + op);
        }
    }

    private record State(ObjectKind kind, BsonDocument value) {}

    /** The newest state of {@code path}, this write set's earlier writes included. */
    private State state(ObjectPath path) {
        if (path.isRoot()) {
            return new State(ObjectKind.INNER, new BsonDocument());
        }
        Pending pendingState = pending.get(path);
        if (pendingState != null) {
            return new State(pendingState.kind(), pendingState.value());
        }
        Existing stored = existing(path);
        return new State(stored.kind(), stored.value());
    }

    private Existing existing(ObjectPath path) {
        return existing.computeIfAbsent(path, this::loadExisting);
    }

    private Existing loadExisting(ObjectPath path) {
        if (!path.isRoot() && createdHere(path.parent())) {
            // Nothing under an object this write set creates can be stored yet: skip the lookups, which
            // dominate bulk loads of new partitions.
            return NOTHING;
        }
        byte[] pathKey = PathKeys.pathKey(path);
        byte[] innerRecord = kv.get(KeySpace.INNER_CURRENT, pathKey);
        if (innerRecord != null && !Records.innerCurrentRemoved(innerRecord)) {
            return new Existing(
                    ObjectKind.INNER, Records.document(innerRecord, Records.INNER_CURRENT_HEADER), innerRecord, null);
        }
        VersionedTree.LeafEntry leaf = findLeaf(pathKey);
        if (leaf != null) {
            return new Existing(
                    ObjectKind.LEAF,
                    Records.document(tree.resolveLeaf(kv, leaf.record()), Records.HEADER),
                    innerRecord,
                    leaf);
        }
        return new Existing(null, null, innerRecord, null);
    }

    private boolean createdHere(ObjectPath path) {
        Pending state = pending.get(path);
        Existing stored = existing.get(path);
        return state != null && state.kind() == ObjectKind.INNER && stored != null && stored.kind() == null;
    }

    private VersionedTree.LeafEntry findLeaf(byte[] pathKey) {
        if (leafLookup == null) {
            // One iterator for all the lookups of this write set: opening one per lookup costs more than the seek.
            leafLookup = kv.iterator(KeySpace.LEAF, null, null);
        }
        leafLookup.seek(pathKey);
        if (!leafLookup.isValid()) {
            return null;
        }
        byte[] key = leafLookup.key();
        if (!PathKeys.isVersionOf(key, pathKey)) {
            return null;
        }
        byte[] record = leafLookup.value();
        // The newest version comes first; it is the visible one unless it was removed.
        return Records.leafTombstoneVid(record) > readVid
                ? new VersionedTree.LeafEntry(key, record, PathKeys.vidOfVersionedKey(key))
                : null;
    }

    private void checkParent(ObjectPath path) {
        if (path.isRoot()) {
            throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "The root cannot be written");
        }
        ObjectKind parentKind = state(path.parent()).kind();
        if (parentKind == null) {
            throw new CatalogException(ErrorCode.PARENT_NOT_FOUND, "Parent does not exist: " + path.parent())
                    .with("path", path);
        }
        if (parentKind == ObjectKind.LEAF) {
            throw new CatalogException(
                            ErrorCode.LEAF_CANNOT_HAVE_CHILDREN, "A leaf cannot have children: " + path.parent())
                    .with("path", path);
        }
    }

    private void set(ObjectPath path, ObjectKind kind, BsonDocument value) {
        byte[] bson = encode(path, value);
        put(path, new Pending(kind, bson, Records.document(bson, 0), null));
    }

    private void put(ObjectPath path, Pending state) {
        pending.put(path, state);
        pendingChildren
                .computeIfAbsent(path.parent(), parent -> new LinkedHashSet<>())
                .add(path.id());
    }

    private static byte[] encode(ObjectPath path, BsonDocument value) {
        byte[] bson;
        try {
            bson = Records.bson(value);
        } catch (RuntimeException e) {
            throw new CatalogException(ErrorCode.INVALID_VALUE, "Value cannot be encoded as BSON: " + e.getMessage(), e)
                    .with("path", path);
        }
        if (bson.length > Records.MAX_VALUE_BYTES) {
            throw new CatalogException(
                            ErrorCode.VALUE_TOO_LARGE, "Value is larger than " + Records.MAX_VALUE_BYTES + " bytes")
                    .with("path", path)
                    .with("bytes", bson.length);
        }
        return bson;
    }

    private void removeSubtree(ObjectPath path) {
        if (state(path).kind() == ObjectKind.INNER) {
            for (String child : childIds(path)) {
                removeSubtree(path.child(child));
            }
        }
        put(path, Pending.ABSENT);
    }

    /** The ids of the children of {@code parent} in the newest state, pending writes included. */
    private Set<String> childIds(ObjectPath parent) {
        Set<String> ids = new TreeSet<>();
        if (existing(parent).kind() == ObjectKind.INNER) {
            try (ChildCursor cursor = tree.appliedChildren(kv, parent, readVid)) {
                while (cursor.advance()) {
                    ids.add(cursor.id());
                }
            }
        }
        for (String id : pendingChildren.getOrDefault(parent, Set.of())) {
            if (pending.get(parent.child(id)).kind() != null) {
                ids.add(id);
            } else {
                ids.remove(id);
            }
        }
        return ids;
    }

    private void cloneSubtree(WriteOp.Clone clone) {
        pins.add(tree.pin(clone.sourceVid()));
        Optional<CatalogObject> source = tree.read(clone.source(), clone.sourceVid());
        if (source.isEmpty() || clone.source().isRoot()) {
            throw new CatalogException(
                            ErrorCode.OBJECT_NOT_FOUND,
                            "Clone source not found: " + clone.source() + " at version " + clone.sourceVid())
                    .with("source", clone.source())
                    .with("sourceVid", clone.sourceVid());
        }
        checkParent(clone.path());
        if (state(clone.path()).kind() != null) {
            throw new CatalogException(ErrorCode.OBJECT_ALREADY_EXISTS, "Clone target already exists: " + clone.path())
                    .with("path", clone.path());
        }
        CatalogObject root = source.get();
        if (root.kind() == ObjectKind.LEAF) {
            VersionedTree.LeafEntry entry = leafEntryAt(clone.source(), clone.sourceVid());
            byte[] primary =
                    Records.leafIsReference(entry.record()) ? Records.leafReference(entry.record()) : entry.key();
            put(clone.path(), new Pending(ObjectKind.LEAF, null, root.value(), primary));
            return;
        }
        set(clone.path(), ObjectKind.INNER, root.value());
        cloneChildren(clone.source(), clone.path(), clone.sourceVid());
    }

    private void cloneChildren(ObjectPath source, ObjectPath target, long sourceVid) {
        List<ObjectPath> innerChildren = new ArrayList<>();
        try (TreeChildCursor cursor = (TreeChildCursor) tree.children(source, sourceVid)) {
            while (cursor.advance()) {
                ObjectPath child = target.child(cursor.id());
                if (cursor.kind() == ObjectKind.INNER) {
                    set(child, ObjectKind.INNER, cursor.value());
                    innerChildren.add(source.child(cursor.id()));
                } else {
                    put(child, new Pending(ObjectKind.LEAF, null, cursor.value(), cursor.leafPrimaryKey()));
                }
            }
        }
        for (ObjectPath child : innerChildren) {
            cloneChildren(child, target.child(child.id()), sourceVid);
        }
    }

    private VersionedTree.LeafEntry leafEntryAt(ObjectPath path, long atVid) {
        byte[] pathKey = PathKeys.pathKey(path);
        try (var leaves = tree.kv().iterator(KeySpace.LEAF, pathKey, PathKeys.prefixEnd(pathKey))) {
            leaves.seek(PathKeys.versionedKey(pathKey, atVid));
            return new VersionedTree.LeafEntry(leaves.key(), leaves.value(), PathKeys.vidOfVersionedKey(leaves.key()));
        }
    }

    /** Adds the storage writes that take {@code path} from its stored state to {@code target}. */
    private ObjectChange write(KvBatch batch, ObjectPath path, Pending target) {
        Existing before = existing(path);
        byte[] pathKey = PathKeys.pathKey(path);
        byte[] innerRecord = before.innerRecord();
        long previousVid = innerRecord == null ? Records.NONE : Records.innerCurrentVid(innerRecord);
        if (target.kind() == ObjectKind.INNER || before.kind() == ObjectKind.INNER) {
            if (innerRecord != null) {
                batch.put(
                        KeySpace.INNER_HISTORY,
                        PathKeys.versionedKey(pathKey, previousVid),
                        Records.historyFromCurrent(innerRecord, vid));
            }
            byte[] bson = target.kind() == ObjectKind.INNER ? target.bson() : null;
            batch.put(KeySpace.INNER_CURRENT, pathKey, Records.innerCurrent(vid, previousVid, bson));
        }
        if (before.kind() == ObjectKind.LEAF) {
            batch.put(
                    KeySpace.LEAF,
                    before.leaf().key(),
                    Records.withTombstone(before.leaf().record(), vid));
        }
        if (target.kind() == ObjectKind.LEAF) {
            byte[] record = target.sharedLeafKey() != null
                    ? Records.leaf(Records.ALIVE, target.sharedLeafKey(), true)
                    : Records.leaf(Records.ALIVE, target.bson(), false);
            batch.put(KeySpace.LEAF, PathKeys.versionedKey(pathKey, vid), record);
        }
        if (before.kind() == null && target.kind() == null) {
            return null;
        }
        return new ObjectChange(path, before.kind(), before.value(), target.kind(), target.value());
    }
}
