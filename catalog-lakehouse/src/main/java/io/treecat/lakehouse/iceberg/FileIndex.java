package io.treecat.lakehouse.iceberg;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.TreeCatIcebergAccess.EntryStatus;
import org.apache.iceberg.io.FileIO;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * Keeps an Iceberg table's live data and delete files as leaves of the tree, in the same write set
 * as the table's commit (DESIGN §6, the paper's table → partition → file layout):
 *
 * <pre>
 * /&lt;catalog&gt;/&lt;ns…&gt;/&lt;table&gt;                          obj_type=table
 * /&lt;catalog&gt;/&lt;ns…&gt;/&lt;table&gt;/_files                   obj_type=file_index: head, head_chain {id: seq}
 * /&lt;catalog&gt;/&lt;ns…&gt;/&lt;table&gt;/&lt;spec&gt;:&lt;part path&gt;      obj_type=partition: spec_id, part_val {field: value}, partition_path
 * /&lt;catalog&gt;/&lt;ns…&gt;/&lt;table&gt;/&lt;spec&gt;:&lt;part path&gt;/&lt;file id&gt;   leaf, obj_type=file ({@link FileLeaves})
 * </pre>
 *
 * <p>The leaves under a table at a vid are exactly the live files of the index's {@code head}
 * snapshot (the table's current snapshot) as of that vid. A snapshot's file set is therefore read
 * at the vid of the commit that made it the head. That vid is only known once the write set
 * commits, so it is recorded one step late, without a second write: the index node is rewritten in
 * every write set that changes the leaves, so its own version (the vid of the write that produced
 * it, {@link CatalogObject#version()}) is the vid at which {@code head} became visible. An older
 * snapshot's vid is that of the node's version whose head it was: {@link #find} searches the node's
 * versions for it. The node holds no map of every snapshot's vid, so its size, and what each commit
 * writes, does not grow with the table's history.
 *
 * <p>Several snapshots committed in one write set (a chain of appends, a client's transaction) all
 * become visible at its vid, where the leaves are the last one's files. An earlier one of them whose
 * successors in the write set only added files, each with its own data sequence number (appends,
 * row-level deltas that delete no file), had exactly the leaves of that vid whose data sequence
 * number is at most its own: what came after it all carries higher numbers. Such snapshots are kept
 * in {@code head_chain} with their sequence numbers, in the same version of the node as the head. Any
 * other snapshot that was never the head of a committed write set (one
 * followed by a delete or a compaction in the same write set, a format 1 table's, whose files carry
 * no sequence numbers, a branch's) has no vid, and planning for it goes through the manifests. One
 * leaf stands for one location: a file appended again while it is live (Iceberg lets a client add a
 * path twice) is the later snapshot's leaf, and an earlier snapshot of its write set filters it out.
 *
 * <p>When the new current snapshot descends from the head, the write set applies each snapshot's
 * own manifest entries (ADDED: add a leaf, DELETED: remove it), oldest first. Otherwise (a rollback,
 * a table without an index yet: registered, created before indexing) every partition node is
 * removed and the live files of the current snapshot are indexed from its manifests. A rename
 * moves the whole subtree with the table ({@link #movedValue}).
 */
final class FileIndex {
    private static final String HEAD = LakeKeys.FILE_INDEX_HEAD;
    private static final String HEAD_CHAIN = LakeKeys.FILE_INDEX_HEAD_CHAIN;
    /** Longer chains of new snapshots than this are re-indexed from the manifests in one go. */
    private static final int MAX_CHAIN = 1000;
    /** Versions of the index node {@link #find} reads whose heads share the wanted snapshot's place in the order. */
    private static final int MAX_TIED_HEADS = 64;

    private FileIndex() {}

    /**
     * Where a snapshot's files are in the tree: the leaves under the table at {@code vid} whose data sequence number
     * is at most {@code maxSequenceNumber} (every leaf there, for the snapshot that was the head).
     */
    record Point(long vid, long maxSequenceNumber) {
        static Point head(long vid) {
            return new Point(vid, Long.MAX_VALUE);
        }

        /** Whether a leaf with this data sequence number (null: none recorded) holds a file of the snapshot. */
        boolean holds(Long dataSequenceNumber) {
            return dataSequenceNumber == null || dataSequenceNumber <= maxSequenceNumber;
        }
    }

    static ObjectPath indexPath(ObjectPath table) {
        return table.child(LakeKeys.FILE_INDEX_ID);
    }

    /** The id of a file's leaf: a hash of its location, which is unique in a table. */
    static String fileId(String location) {
        return com.google.common.hash.Hashing.murmur3_128()
                .hashString(location, java.nio.charset.StandardCharsets.UTF_8)
                .toString();
    }

    /**
     * The writes that bring the table's file leaves to {@code updated}'s current snapshot, read in
     * transaction {@code txn} (so a concurrent index change fails validation with the table swap).
     * Added to the same write set as the table object's swap.
     */
    static List<WriteOp> writes(LakeTransaction txn, FileIO io, ObjectPath table, TableMetadata updated) {
        Optional<CatalogObject> node = txn.read(indexPath(table));
        Snapshot target = updated.currentSnapshot();
        Long targetId = target == null ? null : target.snapshotId();
        Long head = node.map(FileIndex::head).orElse(null);
        if (node.isPresent() && Objects.equals(head, targetId)) {
            return List.of();
        }
        Changes changes = new Changes(table, updated);
        List<Snapshot> chain = node.isPresent() ? chain(updated, target, head) : null;
        Map<Long, Long> headChain = new LinkedHashMap<>();
        if (chain != null) {
            boolean[] onlyOwnAdds = new boolean[chain.size()];
            for (int i = 0; i < chain.size(); i++) {
                onlyOwnAdds[i] = applyDelta(io, changes, updated, chain.get(i));
            }
            if (updated.formatVersion() >= 2) {
                // From the newest down: an earlier snapshot is plannable at this vid while everything after it only
                // added files numbered after it.
                for (int i = chain.size() - 2; i >= 0; i--) {
                    Snapshot snapshot = chain.get(i);
                    Snapshot next = chain.get(i + 1);
                    if (!onlyOwnAdds[i + 1] || next.sequenceNumber() <= snapshot.sequenceNumber()) {
                        break;
                    }
                    headChain.put(snapshot.snapshotId(), snapshot.sequenceNumber());
                }
            }
        } else {
            for (CatalogObject partition : txn.children(table, ObjectType.PARTITION)) {
                changes.removePartition(partition.id());
            }
            if (target != null) {
                indexAll(io, changes, updated, target);
            }
        }
        List<WriteOp> writes = new ArrayList<>();
        // The index node first: the partition nodes and leaves follow, the table object is written by the caller.
        writes.add(new WriteOp.Update(indexPath(table), ObjectKind.INNER, indexValue(targetId, headChain)));
        writes.addAll(changes.writes());
        return writes;
    }

    private static Long head(CatalogObject node) {
        BsonValue head = node.value().get(HEAD);
        return head == null || head.isNull() ? null : head.asInt64().getValue();
    }

    /** Snapshots from the head (exclusive) to the target (inclusive), oldest first; null if the target does not descend from the head. */
    private static List<Snapshot> chain(TableMetadata metadata, Snapshot target, Long head) {
        if (target == null) {
            return null;
        }
        List<Snapshot> chain = new ArrayList<>();
        Snapshot current = target;
        while (current != null && chain.size() <= MAX_CHAIN) {
            chain.add(0, current);
            Long parent = current.parentId();
            if (Objects.equals(parent, head)) {
                return chain;
            }
            if (parent == null) {
                return null;
            }
            current = metadata.snapshot(parent);
        }
        return null;
    }

    private static BsonDocument indexValue(Long targetId, Map<Long, Long> headChain) {
        BsonDocument chain = new BsonDocument();
        headChain.forEach((id, sequenceNumber) -> chain.append(Long.toString(id), new BsonInt64(sequenceNumber)));
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.FILE_INDEX.bson())
                .append(HEAD, targetId == null ? BsonNull.VALUE : new BsonInt64(targetId))
                .append(HEAD_CHAIN, chain);
    }

    /**
     * The index node of a table that moved (a rename): the same head and chain. The rename's write set makes the
     * node's own version the rename's vid, at which the leaves under the new path are the head's files, so the head
     * stays served from the tree. Older snapshots are not found at the new path ({@link #find} searches only the
     * node's versions there, and before the rename there were none), so planning one reads its manifests, as for a
     * snapshot that was never indexed: their vids name versions of the tree in which the leaves were under the old
     * path, which may since name another table.
     */
    static BsonDocument movedValue(CatalogObject node) {
        BsonValue head = node.value().get(HEAD);
        BsonValue chain = node.value().get(HEAD_CHAIN);
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.FILE_INDEX.bson())
                .append(HEAD, head == null ? BsonNull.VALUE : head)
                .append(HEAD_CHAIN, chain != null && chain.isDocument() ? chain : new BsonDocument());
    }

    /**
     * Where the files of {@code snapshotId} are under the table, {@code node} being the index node as read at the
     * plan's vid; empty if the snapshot was never indexed, or its version of the node cannot be found (see below).
     *
     * <p>The head and its chain are in {@code node} itself. An older snapshot was the head (or in the chain) of an
     * older version of the node. Heads follow the table's order (a snapshot's sequence number; a format 1 table's
     * are all 0, so there its timestamp) while the main branch only moves forward, so this searches the versions
     * before {@code node} by vid, reading the node at a vid in each step, for the first whose head comes after the
     * snapshot: the snapshot is in that version's chain, or the head of the version before it (or of one a few
     * before it, for a format 1 table's snapshots made in the same millisecond). That is about log2(vid) reads, where
     * a map of every snapshot's vid in the node made every commit rewrite the whole history. After a rollback the
     * heads may not follow the order; a snapshot the search misses is planned through its manifests: slower, never
     * wrong.
     */
    static Optional<Point> find(
            CatalogService service, ObjectPath table, CatalogObject node, TableMetadata metadata, long snapshotId) {
        Optional<Point> here = pointIn(node, snapshotId);
        Snapshot snapshot = metadata.snapshot(snapshotId);
        if (here.isPresent() || snapshot == null) {
            return here;
        }
        long wanted = order(metadata, snapshot);
        ObjectPath path = indexPath(table);
        CatalogObject after = null;
        long low = 1;
        long high = node.version() - 1;
        while (low <= high) {
            long vid = low + (high - low) / 2;
            Optional<CatalogObject> version = readAt(service, path, vid);
            Long headOrder = version.map(found -> headOrder(metadata, found)).orElse(null);
            if (headOrder != null && headOrder > wanted) {
                after = version.get();
                // The same version is read at every vid from its own up to this one.
                high = Math.min(vid, after.version()) - 1;
            } else {
                low = vid + 1;
            }
        }
        if (after != null) {
            Optional<Point> chained = pointIn(after, snapshotId);
            if (chained.isPresent()) {
                return chained;
            }
        }
        long vid = (after == null ? node.version() : after.version()) - 1;
        for (int step = 0; step < MAX_TIED_HEADS && vid >= 1; step++) {
            Optional<CatalogObject> version = readAt(service, path, vid);
            if (version.isEmpty() || !Objects.equals(headOrder(metadata, version.get()), wanted)) {
                break;
            }
            Optional<Point> point = pointIn(version.get(), snapshotId);
            if (point.isPresent()) {
                return point;
            }
            vid = version.get().version() - 1;
        }
        return Optional.empty();
    }

    /** The head or a member of the head's chain in this version of the node. */
    private static Optional<Point> pointIn(CatalogObject node, long snapshotId) {
        Long head = head(node);
        if (head != null && head == snapshotId) {
            return Optional.of(Point.head(node.version()));
        }
        String id = Long.toString(snapshotId);
        BsonValue chain = node.value().get(HEAD_CHAIN);
        if (chain != null && chain.isDocument()) {
            BsonValue sequenceNumber = chain.asDocument().get(id);
            if (sequenceNumber != null) {
                return Optional.of(
                        new Point(node.version(), sequenceNumber.asInt64().getValue()));
            }
        }
        return Optional.empty();
    }

    /** The node as of {@code vid}; empty where there was none, or where retention has collected that version. */
    private static Optional<CatalogObject> readAt(CatalogService service, ObjectPath path, long vid) {
        try {
            return service.get(path, ReadPoint.vid(vid));
        } catch (CatalogException e) {
            return Optional.empty();
        }
    }

    /** Where a version's head comes in the table's order; null when the table no longer has that snapshot. */
    private static Long headOrder(TableMetadata metadata, CatalogObject node) {
        Long head = head(node);
        Snapshot snapshot = head == null ? null : metadata.snapshot(head);
        return snapshot == null ? null : order(metadata, snapshot);
    }

    private static long order(TableMetadata metadata, Snapshot snapshot) {
        return metadata.formatVersion() >= 2 ? snapshot.sequenceNumber() : snapshot.timestampMillis();
    }

    /**
     * The pending writes under one table: partition nodes removed by a re-index first, then partition
     * upserts and leaf writes in order, a leaf's adds and removes netted by path.
     */
    private static final class Changes {
        private final ObjectPath table;
        private final TableMetadata metadata;
        private final List<WriteOp> removals = new ArrayList<>();
        private final Set<ObjectPath> partitions = new HashSet<>();
        private final Map<ObjectPath, WriteOp> ops = new LinkedHashMap<>();
        /** Leaves this write set adds that were not stored before it. */
        private final Set<ObjectPath> addedHere = new HashSet<>();

        Changes(ObjectPath table, TableMetadata metadata) {
            this.table = table;
            this.metadata = metadata;
        }

        private ObjectPath leafPath(ContentFile<?> file) {
            PartitionSpec spec = metadata.spec(file.specId());
            return table.child(FileLeaves.partitionId(spec, file.partition())).child(fileId(file.location()));
        }

        void removePartition(String id) {
            removals.add(new WriteOp.Remove(table.child(id)));
        }

        void add(ContentFile<?> file, long snapshotId, Schema schema) {
            PartitionSpec spec = metadata.spec(file.specId());
            ObjectPath leaf = leafPath(file);
            ObjectPath partition = leaf.parent();
            if (partitions.add(partition)) {
                // An upsert: no read of the partition node, and one removed by a re-index comes back empty.
                ops.put(
                        partition,
                        new WriteOp.Update(
                                partition, ObjectKind.INNER, FileLeaves.partitionValue(spec, file.partition())));
            }
            if (!(ops.get(leaf) instanceof WriteOp.Remove)) {
                addedHere.add(leaf);
            }
            // Update replaces a leaf that is already there, so re-adding a path never fails the commit.
            ops.put(
                    leaf,
                    new WriteOp.Update(leaf, ObjectKind.LEAF, FileLeaves.fileValue(file, spec, schema, snapshotId)));
        }

        void remove(ContentFile<?> file) {
            ObjectPath leaf = leafPath(file);
            if (addedHere.remove(leaf)) {
                ops.remove(leaf);
            } else {
                ops.put(leaf, new WriteOp.Remove(leaf));
            }
        }

        List<WriteOp> writes() {
            List<WriteOp> writes = new ArrayList<>(removals);
            writes.addAll(ops.values());
            return writes;
        }
    }

    /**
     * One snapshot's own manifest entries: what it added and what it deleted. Answers whether it only added files,
     * each with the snapshot's own sequence number as its data sequence number (then the snapshots before it in the
     * same write set can be told apart from it by that number, {@link Point}).
     */
    private static boolean applyDelta(FileIO io, Changes changes, TableMetadata metadata, Snapshot snapshot) {
        Schema schema = metadata.schema();
        boolean[] onlyOwnAdds = {true};
        for (ManifestFile manifest : manifests(io, snapshot)) {
            if (!Objects.equals(manifest.snapshotId(), snapshot.snapshotId())) {
                continue;
            }
            TreeCatIcebergAccess.EntryVisitor apply = (status, file, snapshotId) -> {
                if (status == EntryStatus.DELETED) {
                    changes.remove(file);
                    onlyOwnAdds[0] = false;
                } else if (status == EntryStatus.ADDED) {
                    changes.add(file, snapshotId, schema);
                    if (!Objects.equals(file.dataSequenceNumber(), snapshot.sequenceNumber())) {
                        onlyOwnAdds[0] = false;
                    }
                }
            };
            // A chain member's own manifest was decoded while it waited (ReadAhead): only its sequence numbers,
            // assigned by this manifest list, are new.
            List<ReadAhead.Entry> readAhead =
                    io instanceof StagingFileIO staging ? staging.entriesReadAhead(manifest.path()) : null;
            if (readAhead != null) {
                readAhead.forEach(entry -> apply.visit(entry.status(), entry.file(manifest), entry.snapshotId()));
            } else {
                TreeCatIcebergAccess.readEntries(manifest, io, metadata.specsById(), false, apply);
            }
        }
        return onlyOwnAdds[0];
    }

    /** Every live file of a snapshot, from all its manifests. */
    private static void indexAll(FileIO io, Changes changes, TableMetadata metadata, Snapshot snapshot) {
        Schema schema = metadata.schema();
        for (ManifestFile manifest : manifests(io, snapshot)) {
            TreeCatIcebergAccess.readEntries(
                    manifest,
                    io,
                    metadata.specsById(),
                    true,
                    (status, file, snapshotId) -> changes.add(file, snapshotId, schema));
        }
    }

    /** A snapshot's data manifests, then its delete manifests. */
    private static List<ManifestFile> manifests(FileIO io, Snapshot snapshot) {
        List<ManifestFile> manifests = new ArrayList<>(snapshot.dataManifests(io));
        manifests.addAll(snapshot.deleteManifests(io));
        return manifests;
    }
}
