package org.apache.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;

/**
 * The package-private pieces of iceberg-core that TreeCat's server reuses instead of re-implementing
 * them: setting a file's sequence numbers (which Iceberg otherwise only does when it reads a manifest
 * entry), reading a manifest's entries with their inherited values (also before the manifest list
 * has assigned its sequence number, for commit chains), and {@link DeleteFileIndex}, Iceberg's own
 * rules for which delete files apply to a data file. Keeping planning on Iceberg's code is what makes
 * TreeCat's {@code /plan} answer exactly what the client-side {@code planFiles} answers.
 *
 * <p>This class lives in Iceberg's package only to reach those members; it holds no state. One
 * member is private, not package-private: the manifest list a {@code BaseSnapshot} keeps once it has
 * read it, which a commit chain fills in with the list it just wrote (reflection; it fails at class
 * load if the field goes). A change of iceberg-core's version must re-run the differential planning
 * test and TestChainedCommits.
 */
public final class TreeCatIcebergAccess {
    /**
     * A sequence number no manifest carries: the entries of {@link #readEntriesBeforeAssignment} that
     * inherit their manifest's sequence number have it, to be replaced once the number is known.
     */
    public static final long UNASSIGNED_SEQUENCE = Long.MIN_VALUE;

    private static final int SEQUENCE_NUMBER_POSITION =
            ManifestFile.schema().columns().indexOf(ManifestFile.SEQUENCE_NUMBER);
    private static final int MIN_SEQUENCE_NUMBER_POSITION =
            ManifestFile.schema().columns().indexOf(ManifestFile.MIN_SEQUENCE_NUMBER);

    /** Iceberg's {@code ManifestWriter.UNASSIGNED_SEQ}: a manifest whose list assigns its sequence number. */
    private static final long UNASSIGNED_BY_LIST = -1L;

    /** {@code BaseSnapshot.allManifests}, the list a snapshot caches once it has read it. */
    private static final Field SNAPSHOT_MANIFESTS = snapshotManifestsField();

    private TreeCatIcebergAccess() {}

    private static Field snapshotManifestsField() {
        try {
            Field field = BaseSnapshot.class.getDeclaredField("allManifests");
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("iceberg-core's BaseSnapshot has no allManifests cache any more", e);
        }
    }

    /**
     * A manifest that an append snapshot took as it was ({@code appendManifest}, format 2), as that
     * snapshot's manifest list records it: the snapshot's id, and the snapshot's sequence number where
     * the manifest left it to the list. What {@code ManifestLists.read} would give back for it.
     */
    public static ManifestFile asListedBy(ManifestFile appended, long snapshotId, long sequenceNumber) {
        ManifestFile listed =
                GenericManifestFile.copyOf(appended).withSnapshotId(snapshotId).build();
        StructLike fields = (StructLike) listed;
        if (listed.sequenceNumber() == UNASSIGNED_BY_LIST) {
            fields.set(SEQUENCE_NUMBER_POSITION, sequenceNumber);
        }
        if (listed.minSequenceNumber() == UNASSIGNED_BY_LIST) {
            fields.set(MIN_SEQUENCE_NUMBER_POSITION, sequenceNumber);
        }
        return listed;
    }

    /**
     * A manifest a snapshot wrote, as its writer left it before that snapshot's manifest list assigned
     * it a sequence number: the number {@code listedSequenceNumber} the list gave it (and its minimum,
     * where the minimum came from the list rather than from an explicit data sequence number of an
     * entry) back to "assign at commit". Listed again by a snapshot with the same id, the entries that
     * inherit take the new list's number, and explicit ones (a compaction's preserved data sequence
     * numbers, existing and deleted entries) keep theirs: what Iceberg's writer produces on a retry.
     */
    public static ManifestFile asWritten(ManifestFile listed, long listedSequenceNumber) {
        ManifestFile written = GenericManifestFile.copyOf(listed).build();
        StructLike fields = (StructLike) written;
        if (listed.sequenceNumber() == listedSequenceNumber) {
            fields.set(SEQUENCE_NUMBER_POSITION, UNASSIGNED_BY_LIST);
        }
        if (listed.minSequenceNumber() == listedSequenceNumber) {
            fields.set(MIN_SEQUENCE_NUMBER_POSITION, UNASSIGNED_BY_LIST);
        }
        return written;
    }

    /**
     * Writes a format 2 manifest list with Iceberg's own writer ({@code ManifestLists.write}, which
     * assigns {@code sequenceNumber} to the manifests that leave it to the list and checks they are
     * {@code snapshotId}'s), and answers the snapshot that lists it. The caller deletes the file if the
     * snapshot is not committed.
     */
    public static Snapshot writeSnapshot(
            OutputFile listFile,
            long sequenceNumber,
            long snapshotId,
            Long parentId,
            long timestampMillis,
            String operation,
            Map<String, String> summary,
            Integer schemaId,
            List<ManifestFile> manifests) {
        try (ManifestListWriter writer = ManifestLists.write(
                2, listFile, PlaintextEncryptionManager.instance(), snapshotId, parentId, sequenceNumber, null)) {
            writer.addAll(manifests);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write manifest list " + listFile.location(), e);
        }
        return new BaseSnapshot(
                sequenceNumber,
                snapshotId,
                parentId,
                timestampMillis,
                operation,
                summary,
                schemaId,
                listFile.location(),
                null,
                null,
                null);
    }

    /** Whether a snapshot holds its manifest list already (read, or {@link #rememberManifests remembered}). */
    public static boolean hasManifests(Snapshot snapshot) {
        if (!(snapshot instanceof BaseSnapshot)) {
            return false;
        }
        try {
            return SNAPSHOT_MANIFESTS.get(snapshot) != null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot read BaseSnapshot.allManifests", e);
        }
    }

    /** Every manifest and file list a {@code BaseSnapshot} caches once it has read them. */
    private static final List<Field> SNAPSHOT_CACHES = snapshotCacheFields();

    private static List<Field> snapshotCacheFields() {
        List<Field> fields = new java.util.ArrayList<>();
        for (String name : List.of(
                "allManifests",
                "dataManifests",
                "deleteManifests",
                "addedDataFiles",
                "removedDataFiles",
                "addedDeleteFiles",
                "removedDeleteFiles")) {
            try {
                Field field = BaseSnapshot.class.getDeclaredField(name);
                field.setAccessible(true);
                fields.add(field);
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("iceberg-core's BaseSnapshot has no " + name + " cache any more", e);
            }
        }
        return List.copyOf(fields);
    }

    /**
     * Drops what a snapshot cached of its manifest list and files. A snapshot object lives as long as any metadata
     * that holds it: every later version of its table shares it, so a list cached once by a commit (the file index,
     * a rebase) stayed in memory for every snapshot ever committed through the server, and a table of thousands of
     * snapshots filled the heap. For a snapshot no other thread should be reading its lists from: one just committed
     * and not yet handed out, or a branch head whose list the commit itself cached (ManifestCaches says what a reader
     * of that head may meet).
     */
    public static void forgetManifests(Snapshot snapshot) {
        if (!(snapshot instanceof BaseSnapshot)) {
            return;
        }
        try {
            for (Field field : SNAPSHOT_CACHES) {
                field.set(snapshot, null);
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot clear BaseSnapshot's caches", e);
        }
    }

    /**
     * Gives a snapshot just written the manifest list it was written with, as if it had read its list
     * back (which is what it caches on first read). A commit chain appends each member on top of the
     * one before and then indexes each member's files: every one of those reads would otherwise decode
     * the member's whole list again, O(manifests) per member on the chain's one thread. The caller
     * must pass exactly what was written, in the same order (TestChainedCommits checks it against the
     * written files). A snapshot that is not one of Iceberg's own is left as it is (it reads its list itself).
     */
    public static void rememberManifests(Snapshot snapshot, List<ManifestFile> manifests) {
        if (!(snapshot instanceof BaseSnapshot)) {
            return;
        }
        try {
            SNAPSHOT_MANIFESTS.set(snapshot, List.copyOf(manifests));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot set BaseSnapshot.allManifests", e);
        }
    }

    /** Sets the data and file sequence numbers a manifest entry would give {@code file}; returns it. */
    public static <F extends ContentFile<F>> F withSequenceNumbers(
            F file, Long dataSequenceNumber, Long fileSequenceNumber) {
        BaseFile<?> base = (BaseFile<?>) file;
        base.setDataSequenceNumber(dataSequenceNumber);
        base.setFileSequenceNumber(fileSequenceNumber);
        return file;
    }

    /** What a manifest entry says about its file. */
    public enum EntryStatus {
        EXISTING,
        ADDED,
        DELETED
    }

    /** Receives the entries of a manifest: the file (a copy, safe to keep) and its entry's sequence numbers already set on it. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(EntryStatus status, ContentFile<?> file, long snapshotId);
    }

    /**
     * Visits every entry of a data or delete manifest, live or deleted, with the sequence numbers
     * inherited from the manifest set on the file (what {@code ManifestEntry} carries and the public
     * reader API does not expose).
     */
    public static void readEntries(
            ManifestFile manifest,
            FileIO io,
            Map<Integer, PartitionSpec> specsById,
            boolean liveOnly,
            EntryVisitor visitor) {
        if (manifest.content() == ManifestContent.DATA) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specsById)) {
                visit(liveOnly ? reader.liveEntries() : reader.entries(), visitor);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, io, specsById)) {
                visit(liveOnly ? reader.liveEntries() : reader.entries(), visitor);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static <F extends ContentFile<F>> void visit(
            CloseableIterable<ManifestEntry<F>> entries, EntryVisitor visitor) throws IOException {
        try (CloseableIterable<ManifestEntry<F>> closing = entries) {
            for (ManifestEntry<F> entry : closing) {
                F file = entry.status() == ManifestEntry.Status.DELETED
                        ? entry.file().copyWithoutStats()
                        : entry.file().copy();
                withSequenceNumbers(file, entry.dataSequenceNumber(), entry.fileSequenceNumber());
                EntryStatus status = switch (entry.status()) {
                    case EXISTING -> EntryStatus.EXISTING;
                    case ADDED -> EntryStatus.ADDED;
                    case DELETED -> EntryStatus.DELETED;
                };
                visitor.visit(status, file, entry.snapshotId() == null ? -1 : entry.snapshotId());
            }
        }
    }

    /**
     * Visits every entry of a data or delete manifest as {@link #readEntries} does, but before its
     * manifest list has given the manifest its sequence number: an entry that would inherit it gets
     * {@link #UNASSIGNED_SEQUENCE} instead. A commit chain decodes a member's manifests while the
     * member waits, before its rebase assigns the number (ChainedCommits). {@code specsById} are the table's
     * partition specs if known (null: each manifest's own, parsed from its file, which Iceberg warns about on every
     * read).
     */
    public static void readEntriesBeforeAssignment(
            ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specsById, EntryVisitor visitor) {
        ManifestFile unassigned = GenericManifestFile.copyOf(manifest).build();
        StructLike fields = (StructLike) unassigned;
        fields.set(SEQUENCE_NUMBER_POSITION, UNASSIGNED_SEQUENCE);
        fields.set(MIN_SEQUENCE_NUMBER_POSITION, UNASSIGNED_SEQUENCE);
        readEntries(unassigned, io, specsById, false, visitor);
    }

    /**
     * A copy of a file read by {@link #readEntriesBeforeAssignment}, with the sequence numbers it
     * inherits from its manifest set to {@code sequenceNumber}, now known.
     */
    public static ContentFile<?> withAssignedSequence(ContentFile<?> file, long sequenceNumber) {
        ContentFile<?> copy = (ContentFile<?>) file.copy();
        Long data = file.dataSequenceNumber();
        Long fileSequence = file.fileSequenceNumber();
        BaseFile<?> base = (BaseFile<?>) copy;
        base.setDataSequenceNumber(data != null && data == UNASSIGNED_SEQUENCE ? Long.valueOf(sequenceNumber) : data);
        base.setFileSequenceNumber(
                fileSequence != null && fileSequence == UNASSIGNED_SEQUENCE
                        ? Long.valueOf(sequenceNumber)
                        : fileSequence);
        return copy;
    }

    /** Iceberg's delete-file index over live delete files that already passed the scan's filter. */
    public static DeleteMatcher deleteMatcher(
            Iterable<DeleteFile> deleteFiles, Map<Integer, PartitionSpec> specsById, boolean caseSensitive) {
        return new DeleteMatcher(DeleteFileIndex.builderFor(deleteFiles)
                .specsById(specsById)
                .caseSensitive(caseSensitive)
                .build());
    }

    /** Which delete files apply to a data file, by {@link DeleteFileIndex#forDataFile(long, DataFile)}. */
    public static final class DeleteMatcher {
        private final DeleteFileIndex index;

        private DeleteMatcher(DeleteFileIndex index) {
            this.index = index;
        }

        public boolean isEmpty() {
            return index.isEmpty();
        }

        /** The delete files that apply to {@code file}, whose data sequence number must be set. */
        public DeleteFile[] forDataFile(DataFile file) {
            return index.forDataFile(file.dataSequenceNumber(), file);
        }
    }
}
