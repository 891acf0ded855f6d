package io.treecat.lakehouse.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.TreeCatIcebergAccess.EntryStatus;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an append reads on its own request thread once it has joined its table's chain
 * ({@link ChainedCommits}), while the chain applies its members and writes the metadata file: the
 * manifests it wrote for its snapshot, and their entries decoded. The chain runs one member after the
 * other on one thread while the table's other commits wait; on an object store each manifest read is
 * a round trip, and decoding each member's manifest for the file index there was a third of that
 * thread's time. Read here, in parallel with the chain and the other requests, the chain finds both
 * in memory ({@link StagingFileIO}) when it gets to its file index.
 *
 * <p>The entries are decoded before the chain's rebase assigns the manifest its sequence number:
 * the numbers an entry inherits are left open ({@link TreeCatIcebergAccess#readEntriesBeforeAssignment})
 * and filled in from the committed manifest list ({@link Entry#file}). A format 3 table's manifests
 * are not decoded ahead (its files inherit first row ids too, also assigned by the list); the file
 * index reads them in the chain, as before.
 */
record ReadAhead(Map<String, byte[]> files, Map<String, List<Entry>> entries) {
    private static final Logger LOG = LoggerFactory.getLogger(ReadAhead.class);

    /**
     * The most bytes of manifests one commit reads ahead (memory held per queued commit); the
     * manifests past it are read by the file index from the store.
     */
    private static final long MAX_BYTES = 16L << 20;

    static final ReadAhead NONE = new ReadAhead(Map.of(), Map.of());

    /** One manifest entry: its status, its file with its own values, and the snapshot that wrote it. */
    record Entry(EntryStatus status, ContentFile<?> file, long snapshotId) {
        /** A copy of the file as the committed {@code manifest} gives it, the inherited sequence numbers set. */
        ContentFile<?> file(ManifestFile manifest) {
            return TreeCatIcebergAccess.withAssignedSequence(file, manifest.sequenceNumber());
        }
    }

    /** Reads the manifests {@code change}'s snapshot wrote, within the byte budget; what cannot be read is left to the chain. */
    static ReadAhead of(FileIO io, TableChange change, Map<Integer, PartitionSpec> knownSpecs) {
        Map<String, byte[]> files = new HashMap<>();
        Map<String, List<Entry>> entries = new HashMap<>();
        long budget = MAX_BYTES;
        for (MetadataUpdate update : change.updates()) {
            if (update instanceof MetadataUpdate.AddSnapshot add) {
                try {
                    StagingFileIO memory = new StagingFileIO(io);
                    for (ManifestFile manifest : StagingFileIO.readManifestList(io, add.snapshot())) {
                        if (!Objects.equals(
                                        manifest.snapshotId(), add.snapshot().snapshotId())
                                || manifest.length() > budget) {
                            continue;
                        }
                        budget -= manifest.length();
                        byte[] bytes = StagingFileIO.readAll(io, manifest.path(), manifest.length());
                        files.put(manifest.path(), bytes);
                        if (add.snapshot().firstRowId() == null) {
                            memory.readAhead(new ReadAhead(Map.of(manifest.path(), bytes), Map.of()));
                            List<Entry> decoded = new ArrayList<>();
                            // A spec id names one spec for the table's whole life: the specs of a base read
                            // before are right for every id they hold.
                            Map<Integer, PartitionSpec> specs =
                                    knownSpecs != null && knownSpecs.containsKey(manifest.partitionSpecId())
                                            ? knownSpecs
                                            : null;
                            TreeCatIcebergAccess.readEntriesBeforeAssignment(
                                    manifest,
                                    memory,
                                    specs,
                                    (status, file, snapshotId) -> decoded.add(new Entry(status, file, snapshotId)));
                            entries.put(manifest.path(), List.copyOf(decoded));
                        }
                    }
                } catch (RuntimeException e) {
                    LOG.debug(
                            "Manifests of snapshot {} not read ahead",
                            add.snapshot().snapshotId(),
                            e);
                }
            }
        }
        return new ReadAhead(Map.copyOf(files), Map.copyOf(entries));
    }
}
