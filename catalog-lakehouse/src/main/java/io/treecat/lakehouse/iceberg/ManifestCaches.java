package io.treecat.lakehouse.iceberg;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TreeCatIcebergAccess;

/**
 * The manifest lists a commit leaves cached in snapshot objects, dropped once it has committed. Iceberg's snapshot
 * caches its list (and files) on first read, and a snapshot object is shared by every later version of its table's
 * metadata, which the server keeps ({@link MetadataFileCache}): the lists a commit reads (its own snapshots' for the
 * file index, the branch head's for a rebase) stayed in memory for every snapshot of every table, and a table of
 * thousands of snapshots ran the server out of heap (docs/benchmarks-history.md, "REST hot path").
 */
final class ManifestCaches {
    private ManifestCaches() {}

    /** The heads of {@code base}'s refs with nothing cached yet: what a rebase in this commit may cache. */
    static List<Snapshot> uncachedHeads(TableMetadata base) {
        List<Snapshot> heads = new ArrayList<>();
        if (base == null) {
            return heads;
        }
        for (SnapshotRef ref : base.refs().values()) {
            Snapshot head = base.snapshot(ref.snapshotId());
            if (head != null && !TreeCatIcebergAccess.hasManifests(head)) {
                heads.add(head);
            }
        }
        return heads;
    }

    /**
     * After the commit, before its metadata is handed out: drops the caches of the snapshots it added (no other
     * thread has them yet) and of the {@code heads} its rebase read. Those are shared with the base's readers: one
     * that cached a head's list itself between this commit's start and its end reads it again, and one inside
     * Iceberg's {@code allManifests} of that head at the very instant could find the list dropped under it (a scan
     * planned on the base version while the table commits); not seen, not tested.
     */
    static void forget(TableMetadata base, TableMetadata committed, List<Snapshot> heads) {
        // Iceberg's builder adds snapshots at the end of the list: the commit's own are the last ones, back to the
        // first the base has (looking at every snapshot cost a commit time in proportion to the table's history).
        List<Snapshot> snapshots = committed.snapshots();
        for (int i = snapshots.size() - 1; i >= 0; i--) {
            Snapshot snapshot = snapshots.get(i);
            if (base != null && base.snapshot(snapshot.snapshotId()) != null) {
                break;
            }
            TreeCatIcebergAccess.forgetManifests(snapshot);
        }
        heads.forEach(TreeCatIcebergAccess::forgetManifests);
    }
}
