package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.MoreExecutors;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.EnvironmentContext;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.RowLevelOperationMode;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebases a blind append that lost a race onto the table as it is now, on the server, instead of
 * answering 409 and making the client refresh, rewrite its manifest list and send the commit again;
 * and, over appends only, a row-level delta or a copy-on-write change in other partitions, or a
 * compaction's {@code replace} ({@link ManifestListRebase}, which states its own further conditions;
 * the ones below hold for those too, with their {@code overwrite}, {@code delete} or {@code replace}
 * snapshot in place of the append, except the last, which is the append's own).
 *
 * <p>A change is rebased only when all of this holds, and otherwise the original failure stands:
 * <ul>
 *   <li>rebase is on for the table ({@link #enabled}): its own property {@value #PROPERTY}, or, without
 *       one, the server's {@code iceberg.rebase-appends} (on by default) unless the table is one whose
 *       MERGE may write an {@code append} snapshot that validated a conflict filter. Iceberg's REST
 *       protocol cannot tell a blind append from a {@code RowDelta} that only added rows (a MERGE whose
 *       rows all turned out to be new, under serializable isolation: its snapshot is an {@code append}
 *       too), and rebasing one such MERGE over another could insert a key twice. Spark writes those only
 *       on tables with {@code write.merge.mode=merge-on-read} and a serializable merge isolation, so the
 *       server's default leaves such tables out ({@link #mergeMayValidateAppends});</li>
 *   <li>the updates are exactly one {@code add-snapshot} of an {@code append} snapshot and one
 *       {@code set-snapshot-ref} of a branch to it;</li>
 *   <li>the only requirement that fails is {@code assert-ref-snapshot-id} on that branch, naming the
 *       snapshot's parent, and that parent is still an ancestor of the branch's head (no rollback,
 *       no replace in between);</li>
 *   <li>the snapshot was written against the current schema, every spec it uses still exists, and
 *       it only adds data files: no removed data files, no added or removed delete files.</li>
 * </ul>
 *
 * <p>The rebase is what the client's own retry of a {@code FastAppend} would do, run by Iceberg's
 * own {@code FastAppend} over a {@link TableOperations} that holds the current metadata: the files
 * the client's snapshot added are appended to the branch head with a fresh sequence number, and the
 * totals recomputed. The client's manifests are reused as they are (their entries inherit snapshot id
 * and sequence numbers from the manifest list: format 2 and later), so a rebase writes one new file,
 * the manifest list, and reads no manifest. The new snapshot keeps the client's snapshot id, so the
 * client finds its commit when it refreshes: it then keeps its manifests (they are in the committed
 * snapshot) and deletes only the manifest list it wrote and no longer needs. The summary keeps the
 * client's own properties and records the parent the client saw in {@value #REBASED_FROM}.
 */
final class CommitRebaser {
    private static final Logger LOG = LoggerFactory.getLogger(CommitRebaser.class);

    /** The table property that turns server-side rebase on ({@code true}) or off ({@code false}) for one table. */
    static final String PROPERTY = "treecat.rebase-appends";
    /** {@code write.merge.mode}'s value for a MERGE that writes delete files (and a {@code RowDelta}). */
    private static final String MERGE_ON_READ = RowLevelOperationMode.MERGE_ON_READ.modeName();
    /** {@code write.merge.isolation-level}'s value under which a MERGE checks nothing against concurrent appends. */
    private static final String SNAPSHOT_ISOLATION = IsolationLevel.SNAPSHOT.name();
    /** Snapshot summary key of a rebased snapshot: the parent snapshot id the client wrote it against ("none" for an empty branch). */
    static final String REBASED_FROM = "treecat.rebased-from";

    /**
     * Summary keys the rebased append computes again: the totals (from the new parent's), the file and
     * record counts it takes from the appended manifests, and the manifest counts. Setting one of them
     * too would clash when the summary is built. The client's other keys stay as it wrote them: the
     * added size and the per-partition summaries describe the same files, wherever they land.
     */
    private static final Set<String> RECOMPUTED_SUMMARY_KEYS = recomputedSummaryKeys();
    /** Every summary key Iceberg computes (SnapshotSummary's constants): all recomputed when a manifest is copied. */
    private static final Set<String> ALL_COMPUTED_SUMMARY_KEYS = summaryConstants(name -> true);

    private static final ExecutorService DIRECT = MoreExecutors.newDirectExecutorService();

    private final boolean enabledByDefault;
    /** The time of a snapshot rebased by listing ({@link ManifestListRebase}), as Iceberg's retry would take it. */
    private final Clock clock;

    /**
     * @param enabledByDefault whether tables without the property {@value #PROPERTY} are rebased (the
     *     server's {@code iceberg.rebase-appends}), tables whose MERGE may validate appends left out
     */
    CommitRebaser(boolean enabledByDefault) {
        this(enabledByDefault, Clock.systemUTC());
    }

    CommitRebaser(boolean enabledByDefault, Clock clock) {
        this.enabledByDefault = enabledByDefault;
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * A rebased change: the table's new metadata (with its changes), the snapshot written for it, and
     * the paths of the client's manifests it took over (the client's, never deleted here).
     */
    record Rebased(TableMetadata metadata, Snapshot snapshot, Set<String> clientManifests) {}

    /**
     * The table's own {@value #PROPERTY} if it has one (anything but {@code true} is false), else the
     * server's default, which leaves out tables whose MERGE may validate a conflict filter
     * ({@link #mergeMayValidateAppends}).
     */
    boolean enabled(TableMetadata metadata) {
        if (metadata == null) {
            return false;
        }
        String own = metadata.properties().get(PROPERTY);
        if (own != null) {
            return Boolean.parseBoolean(own.trim());
        }
        return enabledByDefault && !mergeMayValidateAppends(metadata.properties());
    }

    /**
     * Whether a MERGE on the table may commit an {@code append} snapshot after checking a conflict filter
     * on the client: Spark's merge-on-read MERGE under serializable isolation (the isolation's default)
     * writes a {@code RowDelta}, whose snapshot is an {@code append} when it only inserted rows, and checks
     * that no concurrent commit added rows its join would have matched. The request does not carry that
     * check, so the server cannot run it again; such a commit looks exactly like a blind append. Under
     * {@code snapshot} isolation nothing is checked against concurrent appends. Not covered (a table's
     * opt-out is the remedy, docs/iceberg-rest.md): another engine's merge-on-read MERGE (Trino's), and a
     * copy-on-write MERGE that rewrote no file, which Iceberg's {@code OverwriteFiles} also names an
     * {@code append}.
     */
    static boolean mergeMayValidateAppends(Map<String, String> properties) {
        String mode = properties.getOrDefault(TableProperties.MERGE_MODE, TableProperties.MERGE_MODE_DEFAULT);
        String isolation = properties.getOrDefault(
                TableProperties.MERGE_ISOLATION_LEVEL, TableProperties.MERGE_ISOLATION_LEVEL_DEFAULT);
        return MERGE_ON_READ.equalsIgnoreCase(mode.trim()) && !SNAPSHOT_ISOLATION.equalsIgnoreCase(isolation.trim());
    }

    /**
     * The change rebased onto {@code current}, or empty when it does not clearly commute with what
     * happened since the client read the table (the caller then answers the original failure).
     */
    Optional<Rebased> rebase(FileIO io, TableMetadata current, TableChange change) {
        if (!enabled(current)) {
            LOG.debug("Not rebasing a change of {}: rebase is off for the table", change.identifier());
            return Optional.empty();
        }
        Optional<Append> append = snapshotOf(change.updates());
        if (append.isEmpty()) {
            LOG.debug(
                    "Not rebasing a change of {}: its updates are not one snapshot set on a branch",
                    change.identifier());
            return Optional.empty();
        }
        boolean blindAppend =
                DataOperations.APPEND.equals(append.get().snapshot().operation());
        if (!blindAppend && !ManifestListRebase.rebases(append.get().snapshot())) {
            return refuse(
                    append.get().snapshot(),
                    "its operation is " + append.get().snapshot().operation());
        }
        Snapshot incoming = append.get().snapshot();
        String branch = append.get().branch();
        if (current.snapshot(incoming.snapshotId()) != null) {
            return refuse(incoming, "its snapshot id is already in the table");
        }
        for (UpdateRequirement requirement : change.requirements()) {
            if (requirement instanceof UpdateRequirement.AssertRefSnapshotID ref
                    && ref.refName().equals(branch)) {
                if (!Objects.equals(ref.snapshotId(), incoming.parentId())) {
                    return refuse(incoming, "its branch requirement does not name its parent");
                }
                continue;
            }
            try {
                requirement.validate(current);
            } catch (CommitFailedException e) {
                return refuse(incoming, "another requirement fails: " + e.getMessage());
            }
        }
        SnapshotRef head = current.ref(branch);
        if (head == null || !head.isBranch()) {
            // Nothing moved the branch (some other requirement failed), or it became a tag.
            return refuse(incoming, "its branch is not a branch with a head");
        }
        if (incoming.parentId() != null
                && !SnapshotUtil.isAncestorOf(head.snapshotId(), incoming.parentId(), current::snapshot)) {
            return refuse(incoming, "its parent is no longer an ancestor of the branch head");
        }
        if (incoming.schemaId() != null && incoming.schemaId() != current.currentSchemaId()) {
            return refuse(incoming, "the schema changed");
        }
        if (!blindAppend) {
            return rebaseByListing(io, current, incoming, branch, head);
        }
        List<ManifestFile> added = new ArrayList<>();
        try {
            // Only manifests this snapshot wrote can hold its changes; each must hold only added data files.
            for (ManifestFile manifest : incoming.allManifests(io)) {
                if (!Objects.equals(manifest.snapshotId(), incoming.snapshotId())) {
                    continue;
                }
                if (manifest.content() != ManifestContent.DATA
                        || manifest.hasDeletedFiles()
                        || manifest.hasExistingFiles()) {
                    return refuse(incoming, "it does more than add data files");
                }
                if (!current.specsById().containsKey(manifest.partitionSpecId())) {
                    return refuse(incoming, "partition spec " + manifest.partitionSpecId() + " no longer exists");
                }
                added.add(new UnassignedManifest(manifest));
            }
        } catch (RuntimeException e) {
            LOG.debug("Cannot read the manifest list of snapshot {}", incoming.snapshotId(), e);
            return refuse(incoming, "its manifest list cannot be read");
        }

        RebaseOperations ops = new RebaseOperations(current, io, incoming.snapshotId());
        AppendFiles rebasedAppend =
                new BaseTable(ops, "rebase", report -> {}).newFastAppend().toBranch(branch);
        // Its few small tasks run on this thread: on Iceberg's worker pool, the append would poll for
        // their end in 10 ms sleeps (Tasks.waitFor), while the table's commit queue waits behind it.
        rebasedAppend.scanManifestsWith(DIRECT);
        // The client's manifests are appended as they are, not rewritten: their entries leave snapshot id
        // and sequence numbers to be inherited from the manifest list (format 2 and later), so the new
        // list assigns them the rebased snapshot's. Format 1 cannot inherit, and Iceberg copies them.
        added.forEach(rebasedAppend::appendManifest);
        // Taken: from now on each answers the snapshot id it will have, so Iceberg's append does not read it again
        // to count what the client's manifest list already counted (SnapshotProducer's manifestsWithMetadata).
        added.forEach(manifest -> ((UnassignedManifest) manifest).taken(incoming.snapshotId()));
        // A copied manifest's files are counted again, sizes and partitions too; a reused one's are not.
        boolean copies = current.formatVersion() == 1
                && !current.propertyAsBoolean(
                        TableProperties.SNAPSHOT_ID_INHERITANCE_ENABLED,
                        TableProperties.SNAPSHOT_ID_INHERITANCE_ENABLED_DEFAULT);
        incoming.summary().forEach((key, value) -> {
            boolean recomputed = copies
                    ? ALL_COMPUTED_SUMMARY_KEYS.contains(key)
                            || key.startsWith(SnapshotSummary.CHANGED_PARTITION_PREFIX)
                    : RECOMPUTED_SUMMARY_KEYS.contains(key);
            if (!recomputed && !EnvironmentContext.get().containsKey(key) && !key.equals(REBASED_FROM)) {
                rebasedAppend.set(key, value);
            }
        });
        rebasedAppend.set(REBASED_FROM, incoming.parentId() == null ? "none" : String.valueOf(incoming.parentId()));
        Snapshot snapshot = rebasedAppend.apply();
        if (current.formatVersion() == 2) {
            rememberWrittenList(io, current, branch, snapshot, added);
        }
        TableMetadata updated = TableMetadata.buildFrom(current)
                .setBranchSnapshot(snapshot, branch)
                .build();
        return Optional.of(new Rebased(
                updated,
                snapshot,
                Set.copyOf(added.stream().map(ManifestFile::path).toList())));
    }

    /**
     * A row-level delta, a copy-on-write change or a compaction rebased by listing its manifests with the
     * ones the appends since its base added ({@link ManifestListRebase}), or empty. A list that cannot be
     * read or written is a refusal: the client gets the 409 it would have got, and retries on its own.
     */
    private Optional<Rebased> rebaseByListing(
            FileIO io, TableMetadata current, Snapshot incoming, String branch, SnapshotRef head) {
        Optional<ManifestListRebase.Rebased> listed;
        try {
            listed = ManifestListRebase.rebase(
                    io,
                    current,
                    incoming,
                    current.snapshot(head.snapshotId()),
                    fileName -> metadataFileLocation(current, fileName),
                    clock.millis());
        } catch (RuntimeException e) {
            LOG.debug("Cannot rebase snapshot {} by listing", incoming.snapshotId(), e);
            return refuse(incoming, "its manifests cannot be listed again");
        }
        return listed.map(rebased -> new Rebased(
                TableMetadata.buildFrom(current)
                        .setBranchSnapshot(rebased.snapshot(), branch)
                        .build(),
                rebased.snapshot(),
                rebased.clientManifests()));
    }

    /** Where a table's metadata files go: {@code write.metadata.path}, else the table's {@code metadata/}. */
    private static String metadataFileLocation(TableMetadata current, String fileName) {
        String directory = current.properties().get(TableProperties.WRITE_METADATA_LOCATION);
        String base = directory != null ? directory : current.location() + "/metadata";
        return (base.endsWith("/") ? base : base + "/") + fileName;
    }

    /**
     * Hands the rebased snapshot the manifest list just written for it, so that nothing decodes it
     * again ({@link TreeCatIcebergAccess#rememberManifests}): the next member of a chain appends on top
     * of it and the file index reads its manifests. For format 2 {@code FastAppend} writes the appended
     * manifests, each with the snapshot's id, then every manifest of the branch head; the list assigns
     * the appended ones its sequence number. (Format 1 copies the manifests and format 3 also assigns
     * row ids: those are read back as before.)
     */
    private static void rememberWrittenList(
            FileIO io, TableMetadata current, String branch, Snapshot snapshot, List<ManifestFile> appended) {
        List<ManifestFile> written = new ArrayList<>();
        for (ManifestFile manifest : appended) {
            written.add(TreeCatIcebergAccess.asListedBy(manifest, snapshot.snapshotId(), snapshot.sequenceNumber()));
        }
        Snapshot head = SnapshotUtil.latestSnapshot(current, branch);
        if (head != null) {
            // Already read (or remembered) by the append itself.
            written.addAll(head.allManifests(io));
        }
        TreeCatIcebergAccess.rememberManifests(snapshot, written);
    }

    /** Notes a rebase whose metadata was committed. */
    void committed(Rebased rebase) {
        LOG.debug(
                "Rebased snapshot {} onto {}",
                rebase.snapshot().snapshotId(),
                rebase.snapshot().parentId());
    }

    /**
     * Deletes what a rebase wrote (its manifest list, and the manifests it copied for a format 1 table)
     * when its commit did not happen. The client's manifests stay: the client may send them again.
     */
    void discard(FileIO io, Rebased rebase) {
        Snapshot snapshot = rebase.snapshot();
        try {
            for (ManifestFile manifest : snapshot.allManifests(io)) {
                if (Objects.equals(manifest.snapshotId(), snapshot.snapshotId())
                        && !rebase.clientManifests().contains(manifest.path())) {
                    io.deleteFile(manifest.path());
                }
            }
            io.deleteFile(snapshot.manifestListLocation());
        } catch (RuntimeException e) {
            LOG.debug("Could not delete the files of rebased snapshot {}", snapshot.snapshotId(), e);
        }
    }

    private static Optional<Rebased> refuse(Snapshot incoming, String reason) {
        LOG.debug("Not rebasing snapshot {}: {}", incoming.snapshotId(), reason);
        return Optional.empty();
    }

    private record Append(Snapshot snapshot, String branch) {}

    /**
     * Whether {@code updates} are a blind append's: one {@code append} snapshot added and a branch set
     * to it, the only shape this rebases (and {@link ChainedCommits} chains).
     */
    static boolean isAppend(List<MetadataUpdate> updates) {
        return appendOf(updates).isPresent();
    }

    /** The append the updates make: exactly an {@code append} snapshot added and a branch set to it. */
    private static Optional<Append> appendOf(List<MetadataUpdate> updates) {
        return snapshotOf(updates)
                .filter(append -> DataOperations.APPEND.equals(append.snapshot().operation()));
    }

    /** The snapshot the updates add, of any operation, when they are exactly it and a branch set to it. */
    private static Optional<Append> snapshotOf(List<MetadataUpdate> updates) {
        if (updates.size() != 2) {
            return Optional.empty();
        }
        MetadataUpdate.AddSnapshot add = null;
        MetadataUpdate.SetSnapshotRef ref = null;
        for (MetadataUpdate update : updates) {
            if (update instanceof MetadataUpdate.AddSnapshot a) {
                add = a;
            } else if (update instanceof MetadataUpdate.SetSnapshotRef r) {
                ref = r;
            }
        }
        if (add == null
                || ref == null
                || ref.snapshotId() != add.snapshot().snapshotId()
                || !"branch".equalsIgnoreCase(ref.type())) {
            return Optional.empty();
        }
        return Optional.of(new Append(add.snapshot(), ref.name()));
    }

    private static Set<String> recomputedSummaryKeys() {
        Set<String> keys = new HashSet<>(List.of(
                SnapshotSummary.ADDED_FILES_PROP, SnapshotSummary.DELETED_FILES_PROP,
                SnapshotSummary.ADDED_RECORDS_PROP, SnapshotSummary.DELETED_RECORDS_PROP,
                SnapshotSummary.ADDED_DELETE_FILES_PROP, SnapshotSummary.REMOVED_DELETE_FILES_PROP,
                SnapshotSummary.CREATED_MANIFESTS_COUNT, SnapshotSummary.KEPT_MANIFESTS_COUNT,
                SnapshotSummary.REPLACED_MANIFESTS_COUNT, SnapshotSummary.PROCESSED_MANIFEST_ENTRY_COUNT));
        keys.addAll(summaryConstants(name -> name.startsWith("TOTAL_")));
        return Set.copyOf(keys);
    }

    /** The values of SnapshotSummary's public String constants whose field names match. */
    private static Set<String> summaryConstants(Predicate<String> fieldName) {
        Set<String> keys = new HashSet<>();
        for (Field field : SnapshotSummary.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && field.getType() == String.class
                    && fieldName.test(field.getName())) {
                try {
                    keys.add((String) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("Cannot read SnapshotSummary." + field.getName(), e);
                }
            }
        }
        return Set.copyOf(keys);
    }

    /**
     * A manifest the client wrote for its snapshot, as it was before the client's manifest list
     * assigned it a snapshot id, sequence numbers and a first row id: so that Iceberg's append takes
     * it as it is, and the rebased snapshot's manifest list assigns them afresh.
     *
     * <p>Its snapshot id is none until the append has taken it ({@code appendManifest} takes only
     * manifests without one), then the rebased snapshot's ({@link #taken}). With none, Iceberg's
     * append would read the manifest again to count its files, which the client's manifest list
     * already counted; the list writer then checks that an unassigned sequence number belongs to the
     * snapshot it writes, which holds.
     */
    private static final class UnassignedManifest implements ManifestFile {
        /** Iceberg's {@code ManifestWriter.UNASSIGNED_SEQ} (package-private there): "assign at commit". */
        private static final long UNASSIGNED = -1L;

        private final ManifestFile written;
        private volatile Long snapshotId;

        UnassignedManifest(ManifestFile written) {
            this.written = written;
        }

        void taken(long rebasedSnapshotId) {
            this.snapshotId = rebasedSnapshotId;
        }

        @Override
        public String path() {
            return written.path();
        }

        @Override
        public long length() {
            return written.length();
        }

        @Override
        public int partitionSpecId() {
            return written.partitionSpecId();
        }

        @Override
        public ManifestContent content() {
            return written.content();
        }

        @Override
        public long sequenceNumber() {
            return UNASSIGNED;
        }

        @Override
        public long minSequenceNumber() {
            return UNASSIGNED;
        }

        @Override
        public Long snapshotId() {
            return snapshotId;
        }

        @Override
        public Integer addedFilesCount() {
            return written.addedFilesCount();
        }

        @Override
        public Long addedRowsCount() {
            return written.addedRowsCount();
        }

        @Override
        public Integer existingFilesCount() {
            return written.existingFilesCount();
        }

        @Override
        public Long existingRowsCount() {
            return written.existingRowsCount();
        }

        @Override
        public Integer deletedFilesCount() {
            return written.deletedFilesCount();
        }

        @Override
        public Long deletedRowsCount() {
            return written.deletedRowsCount();
        }

        @Override
        public List<PartitionFieldSummary> partitions() {
            return written.partitions();
        }

        @Override
        public ByteBuffer keyMetadata() {
            return written.keyMetadata();
        }

        @Override
        public Long firstRowId() {
            return null;
        }

        @Override
        public ManifestFile copy() {
            UnassignedManifest copy = new UnassignedManifest(written.copy());
            copy.snapshotId = snapshotId;
            return copy;
        }
    }

    /**
     * The table as the server sees it now, for Iceberg's {@code FastAppend}: it reads the current
     * metadata, writes manifests beside the table's metadata, and hands out the client's snapshot id.
     * It never commits: the caller commits the result in its TreeCat transaction.
     */
    private static final class RebaseOperations implements TableOperations {
        private final TableMetadata current;
        private final FileIO io;
        private final long snapshotId;

        RebaseOperations(TableMetadata current, FileIO io, long snapshotId) {
            this.current = current;
            this.io = io;
            this.snapshotId = snapshotId;
        }

        @Override
        public TableMetadata current() {
            return current;
        }

        @Override
        public TableMetadata refresh() {
            return current;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            throw new UnsupportedOperationException(
                    "A rebase is committed by the catalog's transaction, not by its operations");
        }

        @Override
        public FileIO io() {
            return io;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return CommitRebaser.metadataFileLocation(current, fileName);
        }

        @Override
        public LocationProvider locationProvider() {
            return LocationProviders.locationsFor(current.location(), current.properties());
        }

        @Override
        public long newSnapshotId() {
            return snapshotId;
        }
    }
}
