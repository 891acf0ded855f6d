package io.treecat.lakehouse.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.TreeCatIcebergAccess.EntryStatus;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PartitionSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebases a row-level delta, a copy-on-write change or a compaction that lost a race to appends, by
 * listing the client's manifests together with the manifests the appends added (docs/iceberg-rest.md,
 * "Row-level deltas, copy-on-write changes and compactions over appends"). {@link CommitRebaser} has
 * checked the rest (the requirements, the branch, the schema) and that rebase is on for the table.
 *
 * <p>Three kinds of snapshot, each only when every snapshot committed on the branch since the client's
 * base is an {@code append} that only added data files (its own manifests hold added data files only,
 * and its list is those plus its parent's list, unchanged):
 * <ul>
 *   <li>a <b>row-level delta</b> ({@code overwrite} or {@code delete}: a merge-on-read {@code RowDelta})
 *       that adds delete files and maybe data files and removes nothing, when every file the appends
 *       added is in the spec of the delta's delete files and in none of their partitions. Its delete
 *       files get the rebased (higher) sequence number: an equality delete would then apply to rows
 *       appended meanwhile in its partition, which it never saw; position deletes name files, which
 *       appends do not remove. Unpartitioned deletes therefore never qualify;</li>
 *   <li>a <b>copy-on-write change</b> ({@code overwrite} or {@code delete}: Spark's copy-on-write
 *       DELETE, UPDATE and MERGE, an {@code OverwriteFiles}, a {@code ReplacePartitions}, a
 *       {@code DeleteFiles}) that adds or removes data files and no delete file, when every file the
 *       appends added is in the one spec of the files it removed and added and in none of their
 *       partitions. That is where its conflict filter, which the server cannot see, would have found
 *       the appends' rows; elsewhere "the change, then the appends" is a serial order with the result
 *       the rebase gives. Before it, other changes of data files alone (copy-on-write changes,
 *       compactions, merging appends) count as appends too, when every file they added or removed is
 *       outside its partitions, the table has no delete files, and no manifest of the base was replaced
 *       both by them and by the client: the rebased list is then the head's, less what the client
 *       replaced, plus the client's own;</li>
 *   <li>a <b>compaction's {@code replace}</b> (a {@code RewriteFiles}): the appends added nothing it
 *       rewrote (its files existed at its base) and no delete file against what it removed, which is
 *       all Iceberg's client validates when it retries one ({@code BaseRewriteFiles.validate}:
 *       no new deletes for the replaced data files; {@code MergingSnapshotProducer}: the files it
 *       deletes still exist).</li>
 * </ul>
 *
 * <p>The rebased manifest list is what the client's retry would write ({@code MergingSnapshotProducer.apply}
 * on the new head): the client's own manifests (new, and the ones it rewrote to mark removals), the
 * manifests the appends added, then the rest of the client's list, its delete manifests last. The
 * client's own manifests are listed as written, so that their entries that inherit take the new
 * sequence number while explicit ones (a compaction's {@code use-starting-sequence-number}, existing
 * and deleted entries) keep theirs; the appends' manifests keep the numbers their lists gave them.
 * Iceberg's retry would also drop the same old delete files: it drops those older than the smaller of
 * the table's last sequence number and the oldest live data sequence number of the parent's data
 * manifests, the same on the new head as long as a data file of the base stays live (appends add only
 * newer ones); when none does and a delete file of the base's last sequence number remains, the client
 * is left to retry ({@link #dropsOtherDeletes}). Nothing is read but manifest lists
 * and, for a delta, the partitions of its delete files and of the appended files; one file is written,
 * the list. Format 2 only: format 1 has no delete files or sequence numbers, and format 3's row
 * lineage assigns first row ids this does not recompute.
 */
final class ManifestListRebase {
    private static final Logger LOG = LoggerFactory.getLogger(ManifestListRebase.class);

    /** The most snapshots since the client's base that a rebase looks through: past it, the client's retry does. */
    static final int MAX_CONCURRENT_SNAPSHOTS = 100;

    /** The totals of a snapshot summary, each with the client's keys that change it (SnapshotProducer's). */
    private static final List<List<String>> TOTALS = List.of(
            List.of(
                    SnapshotSummary.TOTAL_RECORDS_PROP,
                    SnapshotSummary.ADDED_RECORDS_PROP,
                    SnapshotSummary.DELETED_RECORDS_PROP),
            List.of(
                    SnapshotSummary.TOTAL_FILE_SIZE_PROP,
                    SnapshotSummary.ADDED_FILE_SIZE_PROP,
                    SnapshotSummary.REMOVED_FILE_SIZE_PROP),
            List.of(
                    SnapshotSummary.TOTAL_DATA_FILES_PROP,
                    SnapshotSummary.ADDED_FILES_PROP,
                    SnapshotSummary.DELETED_FILES_PROP),
            List.of(
                    SnapshotSummary.TOTAL_DELETE_FILES_PROP,
                    SnapshotSummary.ADDED_DELETE_FILES_PROP,
                    SnapshotSummary.REMOVED_DELETE_FILES_PROP),
            List.of(
                    SnapshotSummary.TOTAL_POS_DELETES_PROP,
                    SnapshotSummary.ADDED_POS_DELETES_PROP,
                    SnapshotSummary.REMOVED_POS_DELETES_PROP),
            List.of(
                    SnapshotSummary.TOTAL_EQ_DELETES_PROP,
                    SnapshotSummary.ADDED_EQ_DELETES_PROP,
                    SnapshotSummary.REMOVED_EQ_DELETES_PROP));

    private ManifestListRebase() {}

    /** Whether a snapshot is of a kind this rebases: a row-level delta or a replace. */
    static boolean rebases(Snapshot snapshot) {
        String operation = snapshot.operation();
        return isDelta(operation) || DataOperations.REPLACE.equals(operation);
    }

    private static boolean isDelta(String operation) {
        return DataOperations.OVERWRITE.equals(operation) || DataOperations.DELETE.equals(operation);
    }

    /**
     * The rebased snapshot, its list written through {@code io}, or empty when the change does not
     * clearly commute with what was committed since its base (the caller answers the original 409).
     *
     * @param head the branch's head, which descends from the client's base ({@code incoming}'s parent)
     * @param listLocation where to write the manifest list of a given file name
     * @param timestampMillis the rebased snapshot's time, as Iceberg's retry would take it (now)
     */
    static Optional<Rebased> rebase(
            FileIO io,
            TableMetadata current,
            Snapshot incoming,
            Snapshot head,
            Function<String, String> listLocation,
            long timestampMillis) {
        if (current.formatVersion() != 2) {
            return refuse(incoming, "only format 2 tables are rebased this way");
        }
        if (incoming.parentId() == null) {
            return refuse(incoming, "it has no base snapshot");
        }
        List<Snapshot> concurrent = new ArrayList<>();
        for (Snapshot s = head; s.snapshotId() != incoming.parentId(); s = current.snapshot(s.parentId())) {
            if (concurrent.size() >= MAX_CONCURRENT_SNAPSHOTS) {
                return refuse(incoming, "too many snapshots since its base");
            }
            if (s.parentId() == null || current.snapshot(s.parentId()) == null) {
                return refuse(incoming, "its base is not an ancestor of the branch head");
            }
            concurrent.add(s);
        }
        Snapshot base = current.snapshot(incoming.parentId());
        List<ManifestFile> clientList = incoming.allManifests(io);
        Set<String> baseList = paths(base.allManifests(io));
        List<ManifestFile> own = new ArrayList<>();
        Set<String> ownPaths = new HashSet<>();
        Set<String> replacedByClient = new HashSet<>(baseList);
        for (ManifestFile manifest : clientList) {
            if (Objects.equals(manifest.snapshotId(), incoming.snapshotId())) {
                own.add(manifest);
                ownPaths.add(manifest.path());
            } else if (!baseList.contains(manifest.path())) {
                return refuse(incoming, "its list holds a manifest that is neither its own nor its base's");
            } else {
                replacedByClient.remove(manifest.path());
            }
        }
        boolean copyOnWrite = isDelta(incoming.operation())
                && own.stream().noneMatch(manifest -> manifest.content() == ManifestContent.DELETES);

        // What was committed since the base, newest first: the manifests each append added, as their lists give
        // them; and, before a copy-on-write change only, the manifests of other changes of data files alone
        // (rewrites: copy-on-write changes, compactions, merging appends) and those of their parents' they replaced.
        List<ManifestFile> appended = new ArrayList<>();
        List<ManifestFile> rewrites = new ArrayList<>();
        Set<String> replacedSince = new HashSet<>();
        for (Snapshot since : concurrent) {
            Optional<List<ManifestFile>> added = addedDataOnly(io, current, since);
            if (added.isPresent()) {
                appended.addAll(added.get());
                continue;
            }
            Optional<DataRewrite> rewrite = copyOnWrite ? dataRewrite(io, current, since) : Optional.empty();
            if (rewrite.isEmpty()) {
                return refuse(
                        incoming,
                        "snapshot " + since.snapshotId() + " since its base is not a blind append"
                                + (copyOnWrite ? " nor a change of data files alone" : ""));
            }
            rewrites.addAll(rewrite.get().own());
            replacedSince.addAll(rewrite.get().replaced());
        }
        if (!rewrites.isEmpty()) {
            // Both lists are then built from the base's by replacing manifests: the rebased list takes the head's
            // and replaces the client's, which only works when no manifest was replaced by both.
            if (replacedSince.stream().anyMatch(replacedByClient::contains)) {
                return refuse(incoming, "a change since its base rewrote a manifest it rewrote too");
            }
            if (clientList.stream().anyMatch(manifest -> manifest.content() == ManifestContent.DELETES)) {
                return refuse(incoming, "changes since its base rewrote data files of a table with delete files");
            }
        }

        Optional<String> dropped = dropsOtherDeletes(io, current, incoming, clientList, ownPaths);
        if (dropped.isPresent()) {
            return refuse(incoming, dropped.get());
        }
        if (isDelta(incoming.operation())) {
            List<ManifestFile> since = new ArrayList<>(appended);
            since.addAll(rewrites);
            Optional<String> reason = copyOnWrite
                    ? copyOnWriteCommutes(io, current, own, since)
                    : deltaCommutes(io, current, own, appended);
            if (reason.isPresent()) {
                return refuse(incoming, reason.get());
            }
        } else if (!DataOperations.REPLACE.equals(incoming.operation())) {
            return refuse(incoming, "its operation is " + incoming.operation());
        }

        // As MergingSnapshotProducer lists a retry: its own data manifests, then the parent's (the appends'
        // first), then the delete manifests.
        List<ManifestFile> list = new ArrayList<>();
        long clientSequence = incoming.sequenceNumber();
        for (ManifestFile manifest : clientList) {
            if (manifest.content() == ManifestContent.DATA && ownPaths.contains(manifest.path())) {
                list.add(TreeCatIcebergAccess.asWritten(manifest, clientSequence));
            }
        }
        if (rewrites.isEmpty()) {
            list.addAll(appended);
            for (ManifestFile manifest : clientList) {
                if (manifest.content() == ManifestContent.DATA && !ownPaths.contains(manifest.path())) {
                    list.add(manifest);
                }
            }
            for (ManifestFile manifest : clientList) {
                if (manifest.content() == ManifestContent.DELETES) {
                    list.add(
                            ownPaths.contains(manifest.path())
                                    ? TreeCatIcebergAccess.asWritten(manifest, clientSequence)
                                    : manifest);
                }
            }
        } else {
            // The head's list (every change since, and what is left of the base's) less what the client replaced;
            // no delete manifests on either side.
            for (ManifestFile manifest : head.allManifests(io)) {
                if (!replacedByClient.contains(manifest.path())) {
                    list.add(manifest);
                }
            }
        }
        // Both lists hold every manifest of the client's own: the rest were kept.
        Map<String, String> summary = summary(incoming, base, head, list.size() - clientList.size());
        String location =
                listLocation.apply("snap-" + incoming.snapshotId() + "-rebased-" + UUID.randomUUID() + ".avro");
        Snapshot snapshot = TreeCatIcebergAccess.writeSnapshot(
                io.newOutputFile(location),
                current.nextSequenceNumber(),
                incoming.snapshotId(),
                head.snapshotId(),
                timestampMillis,
                incoming.operation(),
                summary,
                incoming.schemaId(),
                list);
        return Optional.of(new Rebased(snapshot, Set.copyOf(ownPaths)));
    }

    /**
     * Why Iceberg's retry on the new head could drop other delete files than the client's attempt did, or
     * empty when it drops the same. {@code MergingSnapshotProducer.apply} drops the delete files whose data
     * sequence number is below min(the table's last sequence number, the smallest minimum sequence number
     * of the parent's data manifests that keep live files after the commit's removals). While a data file
     * of the base stays live (a manifest of the base carried as it was, or one the client rewrote or merged
     * that keeps existing entries), that minimum is at most the base's last sequence number, and the
     * appends, all newer, leave it as it was. When none stays, the client's minimum was the base's last
     * sequence number and a retry's is higher (the oldest append's): the delete files of exactly the base's
     * last sequence number would go too, so a rebase that keeps one is refused.
     */
    private static Optional<String> dropsOtherDeletes(
            FileIO io, TableMetadata current, Snapshot incoming, List<ManifestFile> clientList, Set<String> ownPaths) {
        for (ManifestFile manifest : clientList) {
            if (manifest.content() == ManifestContent.DATA
                    && (manifest.hasExistingFiles()
                            || (!ownPaths.contains(manifest.path()) && manifest.hasAddedFiles()))) {
                return Optional.empty();
            }
        }
        // The client's own new delete files have the client's sequence number, above this.
        long baseLast = incoming.sequenceNumber() - 1;
        boolean[] differs = {false};
        for (ManifestFile manifest : clientList) {
            if (manifest.content() != ManifestContent.DELETES
                    || !(manifest.hasAddedFiles() || manifest.hasExistingFiles())) {
                continue;
            }
            TreeCatIcebergAccess.readEntries(manifest, io, current.specsById(), true, (status, file, snapshotId) -> {
                if (Objects.equals(file.dataSequenceNumber(), baseLast)) {
                    differs[0] = true;
                }
            });
            if (differs[0]) {
                return Optional.of("no data file of its base stays live, and Iceberg's retry would drop a delete file "
                        + "its first attempt kept");
            }
        }
        return Optional.empty();
    }

    /** A rebased snapshot and the paths of the client's manifests it lists (never deleted by the server). */
    record Rebased(Snapshot snapshot, Set<String> clientManifests) {}

    /** A change of data files alone: its own manifests, and the paths of its parent's it replaced. */
    private record DataRewrite(List<ManifestFile> own, Set<String> replaced) {}

    /**
     * What {@code snapshot} changed, if it changed data files alone: an {@code overwrite}, {@code delete},
     * {@code replace} or merging {@code append} whose own manifests are all of data files and whose list
     * is those plus manifests of its parent's list.
     */
    private static Optional<DataRewrite> dataRewrite(FileIO io, TableMetadata current, Snapshot snapshot) {
        String operation = snapshot.operation();
        if (!(isDelta(operation) || DataOperations.REPLACE.equals(operation) || DataOperations.APPEND.equals(operation))
                || snapshot.parentId() == null
                || current.snapshot(snapshot.parentId()) == null) {
            return Optional.empty();
        }
        Set<String> replaced = paths(current.snapshot(snapshot.parentId()).allManifests(io));
        List<ManifestFile> own = new ArrayList<>();
        for (ManifestFile manifest : snapshot.allManifests(io)) {
            if (Objects.equals(manifest.snapshotId(), snapshot.snapshotId())) {
                if (manifest.content() != ManifestContent.DATA) {
                    return Optional.empty();
                }
                own.add(manifest);
            } else if (!replaced.remove(manifest.path())) {
                return Optional.empty();
            }
        }
        return Optional.of(new DataRewrite(own, replaced));
    }

    /**
     * The manifests {@code snapshot} added, if it is an {@code append} whose own manifests hold only
     * added data files and whose list is those plus its parent's list, unchanged (a merging append that
     * rewrote older manifests is not one).
     */
    private static Optional<List<ManifestFile>> addedDataOnly(FileIO io, TableMetadata current, Snapshot snapshot) {
        if (!DataOperations.APPEND.equals(snapshot.operation()) || snapshot.parentId() == null) {
            return Optional.empty();
        }
        List<ManifestFile> added = new ArrayList<>();
        Set<String> carried = new HashSet<>();
        for (ManifestFile manifest : snapshot.allManifests(io)) {
            if (Objects.equals(manifest.snapshotId(), snapshot.snapshotId())) {
                if (manifest.content() != ManifestContent.DATA
                        || manifest.hasDeletedFiles()
                        || manifest.hasExistingFiles()) {
                    return Optional.empty();
                }
                added.add(manifest);
            } else {
                carried.add(manifest.path());
            }
        }
        Snapshot parent = current.snapshot(snapshot.parentId());
        if (parent == null || !carried.equals(paths(parent.allManifests(io)))) {
            return Optional.empty();
        }
        return Optional.of(added);
    }

    /**
     * Why a delta does not commute with the appended manifests, or empty when it does: it removes
     * nothing, adds delete files, and every appended data file is in the one spec of those delete files
     * and in none of their partitions.
     */
    private static Optional<String> deltaCommutes(
            FileIO io, TableMetadata current, List<ManifestFile> own, List<ManifestFile> appended) {
        List<ManifestFile> deleteManifests = new ArrayList<>();
        for (ManifestFile manifest : own) {
            if (manifest.hasDeletedFiles()) {
                return Optional.of("it adds delete files and removes files");
            }
            if (manifest.content() == ManifestContent.DELETES) {
                deleteManifests.add(manifest);
            }
        }
        return changesOutside(
                io,
                current,
                deleteManifests,
                status -> status == EntryStatus.ADDED,
                appended,
                "the delete files it adds");
    }

    /**
     * Why a copy-on-write change does not commute with the appended manifests, or empty when it does: it
     * adds or removes data files and no delete file (none of its manifests is one of delete files), and
     * every appended data file is in the one spec of the files it removed and added, and in none of their
     * partitions. Its added files get the rebased sequence number, which only delete files compare
     * against, and it adds none; what the client validated and the server cannot re-run is its condition,
     * for which the partitions it rewrote or wrote stand in (docs/iceberg-rest.md).
     */
    private static Optional<String> copyOnWriteCommutes(
            FileIO io, TableMetadata current, List<ManifestFile> own, List<ManifestFile> since) {
        return changesOutside(
                io, current, own, status -> status != EntryStatus.EXISTING, since, "the files it removes or adds");
    }

    /**
     * Why the manifests committed {@code since} the base do not all stay outside the partitions of the
     * entries of {@code manifests} whose status {@code counts} ({@code what}), or empty when they do: there
     * are such entries, all in one partitioned spec, every manifest since is in that spec, and none of their
     * added or removed files is in one of those partitions.
     */
    private static Optional<String> changesOutside(
            FileIO io,
            TableMetadata current,
            List<ManifestFile> manifests,
            Predicate<EntryStatus> counts,
            List<ManifestFile> since,
            String what) {
        Map<Integer, PartitionSpec> specs = current.specsById();
        PartitionSet partitions = PartitionSet.create(specs);
        Set<Integer> specIds = new HashSet<>();
        for (ManifestFile manifest : manifests) {
            TreeCatIcebergAccess.readEntries(manifest, io, specs, false, (status, file, snapshotId) -> {
                if (counts.test(status)) {
                    partitions.add(file.specId(), file.partition());
                    specIds.add(file.specId());
                }
            });
        }
        if (specIds.isEmpty()) {
            return Optional.of("there are no " + what);
        }
        if (specIds.size() > 1) {
            return Optional.of(what + " are in more than one partition spec");
        }
        int spec = specIds.iterator().next();
        if (specs.get(spec) == null || specs.get(spec).isUnpartitioned()) {
            return Optional.of(what + " are unpartitioned");
        }
        for (ManifestFile manifest : since) {
            if (manifest.partitionSpecId() != spec) {
                return Optional.of("a change since its base is in another partition spec");
            }
        }
        boolean[] overlaps = {false};
        for (ManifestFile manifest : since) {
            TreeCatIcebergAccess.readEntries(manifest, io, specs, false, (status, file, snapshotId) -> {
                if (status != EntryStatus.EXISTING && partitions.contains(file.specId(), file.partition())) {
                    overlaps[0] = true;
                }
            });
            if (overlaps[0]) {
                return Optional.of("a change since its base added or removed files in a partition of " + what);
            }
        }
        return Optional.empty();
    }

    /**
     * The client's summary with the totals Iceberg's retry would compute (the new parent's, plus what
     * the client added and removed: {@code SnapshotProducer.updateTotal}), the kept-manifest count grown
     * by what the rebased list holds beyond the client's, and the parent the client saw.
     */
    private static Map<String, String> summary(Snapshot incoming, Snapshot base, Snapshot head, int keptBeyondClient) {
        Map<String, String> summary = new HashMap<>(incoming.summary());
        Map<String, String> previous = head.summary() == null ? Map.of() : head.summary();
        for (List<String> total : TOTALS) {
            summary.remove(total.get(0));
            String totalValue = previous.get(total.get(0));
            if (totalValue == null) {
                continue;
            }
            try {
                long value = Long.parseLong(totalValue)
                        + parse(summary.get(total.get(1)))
                        - parse(summary.get(total.get(2)));
                if (value >= 0) {
                    summary.put(total.get(0), String.valueOf(value));
                }
            } catch (NumberFormatException e) {
                // As Iceberg: a total that cannot be computed is left out.
            }
        }
        String kept = summary.get(SnapshotSummary.KEPT_MANIFESTS_COUNT);
        if (kept != null) {
            try {
                summary.put(
                        SnapshotSummary.KEPT_MANIFESTS_COUNT, String.valueOf(Long.parseLong(kept) + keptBeyondClient));
            } catch (NumberFormatException e) {
                summary.remove(SnapshotSummary.KEPT_MANIFESTS_COUNT);
            }
        }
        summary.put(CommitRebaser.REBASED_FROM, String.valueOf(base.snapshotId()));
        return Map.copyOf(summary);
    }

    private static long parse(String value) {
        return value == null ? 0 : Long.parseLong(value);
    }

    private static Set<String> paths(List<ManifestFile> manifests) {
        Set<String> paths = new HashSet<>();
        manifests.forEach(manifest -> paths.add(manifest.path()));
        return paths;
    }

    private static Optional<Rebased> refuse(Snapshot incoming, String reason) {
        LOG.debug("Not rebasing snapshot {}: {}", incoming.snapshotId(), reason);
        return Optional.empty();
    }
}
