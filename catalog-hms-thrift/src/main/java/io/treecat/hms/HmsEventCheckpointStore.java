package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveEventCheckpoints;
import io.treecat.lakehouse.model.HiveEventCheckpointEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.thrift.TException;

/**
 * Where {@link HmsEventLog} keeps the checkpoints of its id index: in the tree ({@link #inTree}, the server's), or in
 * memory ({@link #inMemory}, for a log that lives as long as a test).
 */
interface HmsEventCheckpointStore {
    /** The newest checkpoint saved, if any. */
    Optional<HiveEventCheckpointEntry> newest() throws TException;

    /** Every checkpoint kept, in vid order. */
    List<HiveEventCheckpointEntry> all() throws TException;

    /**
     * Saves {@code checkpoint} as the newest, and drops the kept ones with vids up to {@code obsoleteUpTo}, unless the
     * newest saved is already at or past it (another writer's: the counts are a function of the log, so it agrees).
     *
     * @return the newest checkpoint saved now
     */
    HiveEventCheckpointEntry save(HiveEventCheckpointEntry checkpoint, long obsoleteUpTo) throws TException;

    /**
     * In the tree, under Hive's default catalog ({@link HiveEventCheckpoints}): each save is one commit, read and
     * written in one transaction, so two savers conflict and the one run again finds the other's checkpoint.
     */
    static HmsEventCheckpointStore inTree(HmsCalls calls) {
        requireNonNull(calls, "calls is null");
        // The log's own bookkeeping, no client's: it runs whatever the grants say.
        HmsCalls hive = calls.asServer();
        return new HmsEventCheckpointStore() {
            @Override
            public Optional<HiveEventCheckpointEntry> newest() throws TException {
                return hive.read(
                        Action.LOAD_CATALOG,
                        HiveEventCheckpoints.root(hive.catalog()),
                        txn -> HiveEventCheckpoints.newest(txn, hive.catalog()));
            }

            @Override
            public List<HiveEventCheckpointEntry> all() throws TException {
                return hive.read(
                        Action.LOAD_CATALOG,
                        HiveEventCheckpoints.root(hive.catalog()),
                        txn -> HiveEventCheckpoints.all(txn, hive.catalog()));
            }

            @Override
            public HiveEventCheckpointEntry save(HiveEventCheckpointEntry checkpoint, long obsoleteUpTo)
                    throws TException {
                return hive.write(Action.UPDATE_CATALOG, HiveEventCheckpoints.root(hive.catalog()), txn -> {
                    Optional<HiveEventCheckpointEntry> newest = HiveEventCheckpoints.newest(txn, hive.catalog());
                    if (newest.isPresent() && newest.get().vid() >= checkpoint.vid()) {
                        return newest.get();
                    }
                    HiveEventCheckpoints.save(txn, hive.warehouse(), checkpoint, obsoleteUpTo);
                    return checkpoint;
                });
            }
        };
    }

    /** In memory: nothing survives the object. */
    static HmsEventCheckpointStore inMemory() {
        return new HmsEventCheckpointStore() {
            private final List<HiveEventCheckpointEntry> saved = new ArrayList<>();

            @Override
            public synchronized Optional<HiveEventCheckpointEntry> newest() {
                return saved.isEmpty() ? Optional.empty() : Optional.of(saved.get(saved.size() - 1));
            }

            @Override
            public synchronized List<HiveEventCheckpointEntry> all() {
                return List.copyOf(saved);
            }

            @Override
            public synchronized HiveEventCheckpointEntry save(HiveEventCheckpointEntry checkpoint, long obsoleteUpTo) {
                Optional<HiveEventCheckpointEntry> newest = newest();
                if (newest.isPresent() && newest.get().vid() >= checkpoint.vid()) {
                    return newest.get();
                }
                saved.removeIf(kept -> kept.vid() <= obsoleteUpTo);
                saved.add(checkpoint);
                return checkpoint;
            }
        };
    }
}
