package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitEntry;
import io.treecat.core.history.CommitLog;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.CommitRecordCodec;
import io.treecat.core.history.PathChange;
import io.treecat.core.history.StoreCommitLog;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.replication.ReplicatedCommit;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvOp;
import io.treecat.core.storage.KvStore;
import io.treecat.core.storage.OpsBatch;
import io.treecat.core.storage.PathKeys;
import io.treecat.core.storage.StagedKvView;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;

/**
 * The catalog tree with every version of it: reads at any committed vid, atomic write sets at new
 * vids, named snapshots and clones (paper §4.3, §4.5).
 *
 * <p>Reads take no lock: a version, once written, never changes, and readers only read at vids that
 * are already committed. Writes are applied one write set at a time by {@link #commit}, or by a
 * transaction manager through {@link #prepare} and {@link #apply}, which lets it validate the next
 * transaction while the previous one is written.
 */
public final class VersionedTree implements AutoCloseable {
    static final int FORMAT_VERSION = 1;
    private static final byte[] FORMAT_KEY = "format".getBytes(StandardCharsets.UTF_8);
    private static final byte[] LAST_VID_KEY = "last_vid".getBytes(StandardCharsets.UTF_8);
    /** The persisted horizon: written (synced) before the collector deletes anything below it. */
    private static final byte[] HORIZON_KEY = "gc_horizon".getBytes(StandardCharsets.UTF_8);

    /**
     * In a replicated group, the horizon every node has agreed it may collect to ({@link
     * GroupOperation#agreeHorizon}); written with the log position of the entry that agreed it.
     */
    private static final byte[] AGREED_HORIZON_KEY = "gc_agreed_horizon".getBytes(StandardCharsets.UTF_8);

    private static final String SNAPSHOT_PREFIX = "snapshot/";
    private static final int MAX_SNAPSHOT_NAME = 256;

    private final KvStore store;
    /** The newest vid whose writes are durable and visible; reads at or below it are stable. */
    private final AtomicLong lastVid;
    /**
     * The newest vid whose batch is in the store, possibly not yet synced. Ahead of {@link #lastVid}
     * while a group commit waits for its WAL sync; the next commit is prepared against it.
     */
    private final AtomicLong appliedVid;

    private final Object writeLock = new Object();
    private final StoreCommitLog log;
    /**
     * Set once this tree is one node of a replicated group: commits are then prepared as data ({@link
     * OpsBatch}), shipped by the leader and installed on every node by {@link #applyReplicated}.
     */
    private volatile boolean replicated;

    private final PublishListeners publishListeners = new PublishListeners();
    private final VidWaiters vidWaiters;
    /** Active reads and the horizon below which versions may have been collected. */
    private final ReadPins pins;
    /** See {@link #AGREED_HORIZON_KEY}; 0 on a single node and until the group agrees on one. */
    private volatile long agreedHorizon;

    private VersionedTree(KvStore store, long lastVid, Clock clock) {
        this.store = store;
        this.lastVid = new AtomicLong(lastVid);
        this.appliedVid = new AtomicLong(lastVid);
        this.vidWaiters = new VidWaiters(this.lastVid::get);
        this.log = new StoreCommitLog(store, clock, this.lastVid::get);
        byte[] horizon = store.get(KeySpace.META, HORIZON_KEY);
        this.pins = new ReadPins(horizon == null ? 0 : PathKeys.readLong(horizon, 0));
        byte[] agreed = store.get(KeySpace.META, AGREED_HORIZON_KEY);
        this.agreedHorizon = agreed == null ? 0 : PathKeys.readLong(agreed, 0);
    }

    /** Opens the tree kept in {@code store}, initializing an empty one. Takes ownership of the store. */
    public static VersionedTree open(KvStore store) {
        return open(store, Clock.systemUTC());
    }

    /**
     * Opens the tree kept in {@code store}, stamping commit records with {@code clock} (tests pass a
     * fake one; production uses the system clock).
     */
    public static VersionedTree open(KvStore store, Clock clock) {
        requireNonNull(store, "store is null");
        requireNonNull(clock, "clock is null");
        byte[] format = store.get(KeySpace.META, FORMAT_KEY);
        if (format == null) {
            try (KvBatch batch = store.newBatch()) {
                batch.put(KeySpace.META, FORMAT_KEY, longBytes(FORMAT_VERSION));
                batch.put(KeySpace.META, LAST_VID_KEY, longBytes(0));
                store.write(batch, true);
            }
            return new VersionedTree(store, 0, clock);
        }
        long version = PathKeys.readLong(format, 0);
        if (version != FORMAT_VERSION) {
            store.close();
            throw new CatalogException(ErrorCode.UNSUPPORTED_STORAGE_FORMAT, "Unsupported storage format version")
                    .with("found", version)
                    .with("supported", FORMAT_VERSION);
        }
        return new VersionedTree(store, PathKeys.readLong(store.get(KeySpace.META, LAST_VID_KEY), 0), clock);
    }

    /** The durable log of commits: one record per vid, readable once the vid is published. */
    public CommitLog log() {
        return log;
    }

    public KvStore store() {
        return store;
    }

    /** The newest committed vid; 0 is the empty tree. */
    public long lastVid() {
        return lastVid.get();
    }

    /**
     * Checks that {@code vid} can be read: at least 0, already committed, and not below the horizon
     * ({@code VERSION_EXPIRED}).
     */
    public long checkReadable(long vid) {
        long last = lastVid.get();
        if (vid < 0 || vid > last) {
            throw new CatalogException(
                            ErrorCode.VID_NOT_FOUND,
                            "Version " + vid + " is not committed (the newest is " + last + ")")
                    .with("vid", vid)
                    .with("lastVid", last);
        }
        checkNotExpired(vid);
        return vid;
    }

    // ---------------------------------------------------------------------------------------------
    // Retention

    /** Active reads and the horizon; the garbage collector and long readers use it. */
    public ReadPins pins() {
        return pins;
    }

    /** The oldest vid that still reads correctly; older versions may have been collected. */
    public long horizon() {
        return pins.horizon();
    }

    /**
     * Registers a read at {@code vid} until the pin is closed, so the collector keeps what it sees.
     *
     * @throws CatalogException {@code VID_NOT_FOUND} if not committed, {@code VERSION_EXPIRED} if below
     *     the horizon
     */
    public ReadPins.Pin pin(long vid) {
        checkReadable(vid);
        ReadPins.Pin pin = pins.pin(vid);
        if (pin == null) {
            throw expired(vid);
        }
        return pin;
    }

    /**
     * Refuses a read at a vid the horizon has passed. Reads call it after they have read (or opened
     * their iterators): the collector moves the horizon before it deletes anything, so a read that
     * still finds its vid at or above the horizon afterwards saw nothing deleted that it needed.
     */
    public void checkNotExpired(long vid) {
        if (vid < pins.horizon()) {
            throw expired(vid);
        }
    }

    /** The {@code VERSION_EXPIRED} error for a read at {@code vid}, naming the oldest readable vid and its time. */
    public CatalogException expired(long vid) {
        long oldest = pins.horizon();
        Optional<CommitRecord> record = log.find(oldest);
        CatalogException error = new CatalogException(
                        ErrorCode.VERSION_EXPIRED,
                        "Version " + vid + " has expired: the oldest readable version is " + oldest
                                + record.map(r -> ", committed at " + r.commitTime())
                                        .orElse(""))
                .with("vid", vid)
                .with("oldestVid", oldest);
        record.ifPresent(r -> error.with("oldestTime", r.commitTime()));
        return error;
    }

    /**
     * Moves the horizon forward (never back) to the smaller of {@code candidate}, computed under the
     * pin registry's lock, and the oldest pinned read. The new horizon is durable before it takes
     * effect: nothing below it is deleted, and no read refused, unless a restart refuses it too.
     */
    long advanceHorizon(LongSupplier candidate) {
        return pins.advance(() -> Math.min(candidate.getAsLong(), lastVid.get()), this::persistHorizon);
    }

    private void persistHorizon(long horizon) {
        try (KvBatch batch = store.newBatch()) {
            batch.put(KeySpace.META, HORIZON_KEY, longBytes(horizon));
            store.write(batch, true);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Reads

    /** The object at {@code path} as of {@code vid}, if it existed then. The root always exists. */
    public Optional<CatalogObject> read(ObjectPath path, long vid) {
        checkReadable(vid);
        if (path.isRoot()) {
            return Optional.of(new CatalogObject(path, ObjectKind.INNER, new BsonDocument(), 0));
        }
        byte[] pathKey = PathKeys.pathKey(path);
        Optional<CatalogObject> inner = readInner(path, pathKey, vid);
        Optional<CatalogObject> found = inner.isPresent() ? inner : readLeaf(path, pathKey, vid);
        // The collector may have passed vid while we read: then what we found may be incomplete.
        checkNotExpired(vid);
        return found;
    }

    private Optional<CatalogObject> readInner(ObjectPath path, byte[] pathKey, long vid) {
        byte[] current = store.get(KeySpace.INNER_CURRENT, pathKey);
        if (current == null) {
            return Optional.empty();
        }
        long currentVid = Records.innerCurrentVid(current);
        if (currentVid <= vid) {
            return Records.innerCurrentRemoved(current)
                    ? Optional.empty()
                    : Optional.of(new CatalogObject(
                            path,
                            ObjectKind.INNER,
                            Records.document(current, Records.INNER_CURRENT_HEADER),
                            currentVid));
        }
        return readInnerHistory(path, pathKey, vid);
    }

    private Optional<CatalogObject> readInnerHistory(ObjectPath path, byte[] pathKey, long vid) {
        HistoryEntry entry = historyAt(pathKey, vid);
        return entry == null
                ? Optional.empty()
                : Optional.of(new CatalogObject(
                        path, ObjectKind.INNER, Records.document(entry.record(), Records.HEADER), entry.startVid()));
    }

    /** A past version of an inner object: its history record and the vid it started at. */
    record HistoryEntry(byte[] record, long startVid) {}

    /**
     * The version of an inner object that was current at {@code vid}, from its history: one seek, as
     * versions of a path sort newest first. Null if it did not exist then (or was removed).
     */
    HistoryEntry historyAt(byte[] pathKey, long vid) {
        return historyAt(store, pathKey, vid);
    }

    /** {@link #historyAt(byte[], long)}, read from {@code kv}. */
    HistoryEntry historyAt(KvStore kv, byte[] pathKey, long vid) {
        try (KvIterator history = kv.iterator(KeySpace.INNER_HISTORY, null, PathKeys.prefixEnd(pathKey))) {
            history.seek(PathKeys.versionedKey(pathKey, vid));
            if (!history.isValid()) {
                return null;
            }
            byte[] key = history.key();
            if (!PathKeys.isVersionOf(key, pathKey)) {
                return null;
            }
            byte[] record = history.value();
            if (Records.historyRemoved(record) || Records.historyEndVid(record) <= vid) {
                return null;
            }
            return new HistoryEntry(record, PathKeys.vidOfVersionedKey(key));
        }
    }

    private Optional<CatalogObject> readLeaf(ObjectPath path, byte[] pathKey, long vid) {
        LeafEntry entry = findLeaf(pathKey, vid);
        if (entry == null) {
            return Optional.empty();
        }
        return Optional.of(new CatalogObject(
                path, ObjectKind.LEAF, Records.document(resolveLeaf(entry.record), Records.HEADER), entry.createVid));
    }

    /** The leaf entry of a path visible at {@code vid}, or null. */
    private LeafEntry findLeaf(byte[] pathKey, long vid) {
        try (KvIterator leaves = store.iterator(KeySpace.LEAF, null, PathKeys.prefixEnd(pathKey))) {
            leaves.seek(PathKeys.versionedKey(pathKey, vid));
            if (!leaves.isValid()) {
                return null;
            }
            byte[] key = leaves.key();
            if (!PathKeys.isVersionOf(key, pathKey)) {
                return null;
            }
            byte[] record = leaves.value();
            return Records.leafTombstoneVid(record) > vid
                    ? new LeafEntry(key, record, PathKeys.vidOfVersionedKey(key))
                    : null;
        }
    }

    /** The record holding a leaf's value: itself, or the primary copy a shared leaf refers to. */
    byte[] resolveLeaf(byte[] record) {
        return resolveLeaf(store, record);
    }

    /** {@link #resolveLeaf(byte[])}, read from {@code kv}. */
    byte[] resolveLeaf(KvStore kv, byte[] record) {
        if (!Records.leafIsReference(record)) {
            return record;
        }
        byte[] primaryKey = Records.leafReference(record);
        byte[] primary = kv.get(KeySpace.LEAF, primaryKey);
        if (primary == null) {
            throw new CatalogException(ErrorCode.STORAGE_CORRUPTION, "A shared leaf refers to a missing primary copy")
                    .with("primary", PathKeys.decodePath(primaryKey, primaryKey.length - PathKeys.VID_BYTES));
        }
        return primary;
    }

    record LeafEntry(byte[] key, byte[] record, long createVid) {}

    /**
     * Opens a cursor over the children of {@code parent} visible at {@code vid}.
     *
     * @param idRanges ranges over {@link io.treecat.core.model.IdOrder} encodings of the child ids,
     *     each a pair {lowerInclusive, upperExclusive} with null for unbounded, sorted and disjoint;
     *     an empty list means no child can match
     */
    public ChildCursor children(ObjectPath parent, long vid, List<byte[][]> idRanges, ChildKinds kinds) {
        checkReadable(vid);
        return new TreeChildCursor(this, store, parent, vid, idRanges, kinds);
    }

    /**
     * All children at an applied vid that may not be published yet, read from {@code kv} (the store, or a
     * view with a group commit's earlier commits staged): for preparing the next commit.
     */
    TreeChildCursor appliedChildren(KvStore kv, ObjectPath parent, long vid) {
        return new TreeChildCursor(
                this, kv, parent, vid, List.<byte[][]>of(new byte[][] {null, null}), ChildKinds.BOTH);
    }

    /**
     * A scan of the children of one parent after another, sharing its store iterators among them: for a query step,
     * which visits many parents with few children each.
     */
    public ChildScan childScan(ChildKinds kinds) {
        return new SharedIteratorScan(this, store, kinds);
    }

    /** All the children of {@code parent} at {@code vid}. */
    public ChildCursor children(ObjectPath parent, long vid) {
        return children(parent, vid, List.<byte[][]>of(new byte[][] {null, null}), ChildKinds.BOTH);
    }

    // ---------------------------------------------------------------------------------------------
    // Writes

    /**
     * Applies a write set atomically at the next vid and syncs it to disk before returning.
     *
     * @throws CatalogException if a precondition fails; then nothing was written
     */
    public CommitResult commit(WriteSet writes) {
        synchronized (writeLock) {
            try (PreparedCommit prepared = prepare(writes)) {
                apply(prepared, true);
                publish(prepared.vid());
                return prepared.result();
            }
        }
    }

    /**
     * Checks the preconditions of {@code writes} against the newest applied state and builds the
     * storage batch that installs them at the next vid. Nothing changes until {@link #apply}. Callers
     * must serialize prepare-and-apply pairs: a transaction manager's commit sequencer, or {@link
     * #commit}.
     */
    public PreparedCommit prepare(WriteSet writes) {
        requireNonNull(writes, "writes is null");
        long applied = appliedVid.get();
        return new CommitBuilder(this, store, applied, applied + 1).build(writes);
    }

    /**
     * Makes this tree one node of a replicated group: from now on {@link #prepare} builds commits as
     * data for {@link #stage}, and the store changes only through {@link #applyReplicated}. One way:
     * a node leaves a group only by restarting.
     */
    public void startReplicating() {
        replicated = true;
    }

    public boolean replicated() {
        return replicated;
    }

    /** The batch a commit is prepared into: the store's own, or plain data for a replicated commit. */
    KvBatch newCommitBatch() {
        return replicated ? new OpsBatch() : store.newBatch();
    }

    /**
     * The leader's half of a replicated commit: starts a group commit, the commits of one entry of the
     * group's log, each prepared over the ones before it ({@link GroupCommit#prepare}, {@link
     * GroupCommit#stage}). Nothing is written here: the store changes when the group has agreed on the
     * entry and {@link #applyReplicated} installs it, on this node as on every other. Until then no
     * commit outside it may be prepared, since it would not see it.
     */
    public GroupCommit startGroupCommit() {
        if (!replicated) {
            throw new IllegalStateException("a group commit needs startReplicating()");
        }
        return new GroupCommit(appliedVid.get());
    }

    /**
     * Commits staged for one entry of the group's log, in vid order from the node's applied vid on. Each
     * is prepared through a view of the store with the earlier ones' writes staged over it, so it sees
     * them as a single node's commit sees the ones written before it. For the one thread that sequences.
     */
    public final class GroupCommit {
        private final StagedKvView view = new StagedKvView(store);
        private final List<ReplicatedCommit> commits = new ArrayList<>();
        private final long baseVid;
        private long lastVid;
        private long bytes;

        private GroupCommit(long appliedVid) {
            this.baseVid = appliedVid;
            this.lastVid = appliedVid;
        }

        /** The applied vid the group commit builds on: its first commit takes the next one. */
        public long baseVid() {
            return baseVid;
        }

        /** Prepares a commit at the vid after the last one staged, as {@link VersionedTree#prepare} would. */
        public PreparedCommit prepare(WriteSet writes) {
            requireNonNull(writes, "writes is null");
            return new CommitBuilder(VersionedTree.this, view, lastVid, lastVid + 1).build(writes);
        }

        /**
         * Completes a commit prepared by {@link #prepare} exactly as {@link VersionedTree#apply} would (the vid
         * counter and the commit record, stamped with this node's clock) and adds it to the entry.
         */
        public ReplicatedCommit stage(PreparedCommit prepared) {
            if (!(prepared.batch() instanceof OpsBatch ops)) {
                throw new IllegalStateException("stage() needs a commit prepared after startReplicating()");
            }
            if (prepared.vid() != lastVid + 1) {
                throw new IllegalStateException(
                        "commit of vid " + prepared.vid() + " out of order; expected " + (lastVid + 1));
            }
            ops.put(KeySpace.META, LAST_VID_KEY, longBytes(prepared.vid()));
            log.append(entry(prepared), ops);
            ReplicatedCommit commit = new ReplicatedCommit(prepared.vid(), ops.ops());
            view.stage(commit.ops());
            commits.add(commit);
            lastVid = prepared.vid();
            bytes += ops.sizeInBytes();
            return commit;
        }

        /** The staged commits, in vid order. */
        public List<ReplicatedCommit> commits() {
            return List.copyOf(commits);
        }

        /** The size of the staged writes, keys and values. */
        public long bytes() {
            return bytes;
        }
    }

    /**
     * Installs the commits of one entry of the group's log at the next vids, on every node of the group
     * (the leader included), in vid order, as one atomic write: the same writes the leader prepared, so
     * every node holds the same bytes at every vid. Not yet readable: {@link #publish} makes them so. The
     * write is not synced: the group's log is what makes it durable, and a node replays the log past what
     * its store holds after a crash.
     *
     * @param extra writes of the replication layer that must be atomic with the commits (the entry's
     *     position in the group's log)
     * @throws CatalogException {@code STORAGE_FAILURE} if the store's write failed: the node must stop
     *     applying, since whether the batch is in the store is known only after a restart
     */
    public void applyReplicated(List<ReplicatedCommit> commits, Consumer<KvBatch> extra) {
        long expected = appliedVid.get() + 1;
        for (ReplicatedCommit commit : commits) {
            if (commit.vid() != expected++) {
                throw new IllegalStateException(
                        "replicated commit of vid " + commit.vid() + " out of order; expected " + (expected - 1));
            }
        }
        List<CommitRecord> records = new ArrayList<>(commits.size());
        try (KvBatch batch = store.newBatch()) {
            for (ReplicatedCommit commit : commits) {
                for (KvOp op : commit.ops()) {
                    op.addTo(batch);
                    if (op.space() == KeySpace.COMMIT_LOG && op.kind() == KvOp.Kind.PUT) {
                        records.add(CommitRecordCodec.decode(op.value()));
                    }
                }
            }
            extra.accept(batch);
            store.write(batch, false);
        } catch (CatalogException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CatalogException(
                    ErrorCode.STORAGE_FAILURE,
                    "The store failed while installing the replicated commits of versions "
                            + commits.get(0).vid() + " to "
                            + commits.get(commits.size() - 1).vid(),
                    e);
        }
        appliedVid.set(commits.get(commits.size() - 1).vid());
        records.forEach(log::observed);
    }

    /**
     * Brings a node of a replicated group up to a checkpoint of another node's store ({@link
     * KvStore#checkpoint}), for a node that starts empty or fell behind what the group's log still
     * holds: afterwards this store holds what the checkpoint holds, at its vid, and the node goes on
     * installing the log entries after it.
     *
     * <p>The store stays open and readable meanwhile, at the vids it had published: the rows are written
     * in an order that never hides a version from such a read. Past versions and leaves go first, then
     * the current versions of inner objects (a read at an older vid finds the version it needs among the
     * past ones by then). Then the horizon rises to the checkpoint's, since the other node may have
     * collected versions below it; only then are the rows the checkpoint no longer has deleted (a
     * read that needed one is refused as expired, not answered without it). The checkpoint's vid, and
     * {@code extra}, are written last, synced: after a crash half-way the node still is at its old vid,
     * and installs again.
     *
     * @param extra writes of the replication layer that must be durable with the new vid (the log position
     *     the checkpoint holds)
     * @return the vid the tree is at now: the checkpoint's
     * @throws IllegalStateException if the tree is not replicated or the checkpoint is older than the tree
     * @throws CatalogException {@code UNSUPPORTED_STORAGE_FORMAT} for a checkpoint of another format
     */
    public long installCheckpoint(KvStore checkpoint, Consumer<KvBatch> extra) {
        if (!replicated) {
            throw new IllegalStateException("only a node of a replicated group installs a checkpoint");
        }
        byte[] format = checkpoint.get(KeySpace.META, FORMAT_KEY);
        long version = format == null ? -1 : PathKeys.readLong(format, 0);
        if (version != FORMAT_VERSION) {
            throw new CatalogException(ErrorCode.UNSUPPORTED_STORAGE_FORMAT, "Unsupported storage format version")
                    .with("found", version)
                    .with("supported", FORMAT_VERSION);
        }
        long vid = PathKeys.readLong(checkpoint.get(KeySpace.META, LAST_VID_KEY), 0);
        if (vid < appliedVid.get()) {
            throw new IllegalStateException(
                    "the checkpoint is at vid " + vid + ", older than this node's " + appliedVid.get());
        }
        for (KeySpace space :
                List.of(KeySpace.INNER_HISTORY, KeySpace.LEAF, KeySpace.COMMIT_LOG, KeySpace.INNER_CURRENT)) {
            copyKeySpace(checkpoint, space, true);
        }
        byte[] horizon = checkpoint.get(KeySpace.META, HORIZON_KEY);
        if (horizon != null) {
            pins.raiseTo(PathKeys.readLong(horizon, 0), this::persistHorizon);
        }
        // Commit-log records the checkpoint lacks are older than its retention kept; this node's own
        // retention drops them in time, and its feed subscribers may still read them until then.
        for (KeySpace space : List.of(KeySpace.INNER_HISTORY, KeySpace.LEAF, KeySpace.INNER_CURRENT)) {
            copyKeySpace(checkpoint, space, false);
        }
        // The group's named snapshots and agreed horizon are the checkpoint's from here on, like its tree.
        byte[] agreed = checkpoint.get(KeySpace.META, AGREED_HORIZON_KEY);
        long newAgreed = agreed == null ? 0 : PathKeys.readLong(agreed, 0);
        synchronized (writeLock) {
            try (KvBatch batch = store.newBatch()) {
                byte[] prefix = SNAPSHOT_PREFIX.getBytes(StandardCharsets.UTF_8);
                try (KvIterator mine = store.iterator(KeySpace.META, prefix, PathKeys.prefixEnd(prefix))) {
                    for (mine.seek(prefix); mine.isValid(); mine.next()) {
                        batch.delete(KeySpace.META, mine.key());
                    }
                }
                try (KvIterator theirs = checkpoint.iterator(KeySpace.META, prefix, PathKeys.prefixEnd(prefix))) {
                    for (theirs.seek(prefix); theirs.isValid(); theirs.next()) {
                        batch.put(KeySpace.META, theirs.key(), theirs.value());
                    }
                }
                batch.put(KeySpace.META, AGREED_HORIZON_KEY, longBytes(newAgreed));
                batch.put(KeySpace.META, LAST_VID_KEY, longBytes(vid));
                extra.accept(batch);
                store.write(batch, true);
            }
            agreedHorizon = newAgreed;
        }
        appliedVid.set(vid);
        byte[] newest = checkpoint.get(KeySpace.COMMIT_LOG, CommitRecordCodec.key(vid));
        if (newest != null) {
            log.observed(CommitRecordCodec.decode(newest));
        }
        publish(vid);
        return vid;
    }

    /**
     * Makes one key space of this store match the checkpoint's, walking both in key order: with {@code
     * puts}, adds and replaces the rows that differ; without, deletes the rows the checkpoint lacks.
     */
    private void copyKeySpace(KvStore checkpoint, KeySpace space, boolean puts) {
        KvBatch batch = store.newBatch();
        try (KvIterator theirs = checkpoint.iterator(space, null, null);
                KvIterator ours = store.iterator(space, null, null)) {
            theirs.seek(new byte[0]);
            ours.seek(new byte[0]);
            while (theirs.isValid() || ours.isValid()) {
                int order =
                        !theirs.isValid() ? 1 : !ours.isValid() ? -1 : Arrays.compareUnsigned(theirs.key(), ours.key());
                if (order < 0) {
                    if (puts) {
                        batch.put(space, theirs.key(), theirs.value());
                    }
                    theirs.next();
                } else if (order > 0) {
                    if (!puts) {
                        batch.delete(space, ours.key());
                    }
                    ours.next();
                } else {
                    if (puts) {
                        byte[] value = theirs.value();
                        if (!Arrays.equals(value, ours.value())) {
                            batch.put(space, theirs.key(), value);
                        }
                    }
                    theirs.next();
                    ours.next();
                }
                if (batch.count() >= 10_000 || batch.sizeInBytes() >= 8 << 20) {
                    store.write(batch, false);
                    batch.close();
                    batch = store.newBatch();
                }
            }
            store.write(batch, false);
        } finally {
            batch.close();
        }
    }

    /**
     * Writes a prepared commit as one atomic batch. The commit is not yet readable: {@link #publish}
     * makes it so, once it is durable.
     *
     * @param sync sync the write-ahead log before returning; a group commit passes false and calls
     *     {@link #syncWal} once for the whole group before publishing
     * @throws CatalogException {@code COMMIT_STATE_UNKNOWN} if the store's write failed: the batch may
     *     or may not be in it, and no further commit may be applied before the store is reopened
     */
    public void apply(PreparedCommit prepared, boolean sync) {
        if (replicated) {
            throw new IllegalStateException("a replicated tree changes only through applyReplicated()");
        }
        long expected = appliedVid.get() + 1;
        if (prepared.vid() != expected) {
            throw new IllegalStateException("commit of vid " + prepared.vid() + " out of order; expected " + expected);
        }
        prepared.batch().put(KeySpace.META, LAST_VID_KEY, longBytes(prepared.vid()));
        // The log record goes in the commit's own batch: the record and the state it describes are
        // durable together or not at all, and no reader sees the state before its record exists.
        log.append(entry(prepared), prepared.batch());
        try {
            store.write(prepared.batch(), sync);
        } catch (Throwable e) {
            // RocksDB may have logged the batch before failing (a WAL write that reached the file, an
            // fsync that did not): whether it is in the store is known only once the store is reopened.
            throw new CatalogException(
                    ErrorCode.COMMIT_STATE_UNKNOWN,
                    "The store failed while writing the commit of version " + prepared.vid()
                            + "; it may or may not be durable",
                    e);
        }
        appliedVid.set(prepared.vid());
    }

    private static CommitEntry entry(PreparedCommit prepared) {
        List<PathChange> changes = new ArrayList<>(prepared.result().changes().size());
        for (ObjectChange change : prepared.result().changes()) {
            // A null kind is an absent object on that side (CommitBuilder never reports both absent).
            ChangeKind kind = change.beforeKind() == null
                    ? ChangeKind.ADDED
                    : change.afterKind() == null ? ChangeKind.REMOVED : ChangeKind.UPDATED;
            ObjectKind objectKind = change.afterKind() != null ? change.afterKind() : change.beforeKind();
            changes.add(new PathChange(change.path(), kind, objectKind));
        }
        return new CommitEntry(prepared.vid(), prepared.origin(), changes);
    }

    /** Makes every applied commit up to {@code vid} readable. Vids only move forward. */
    public void publish(long vid) {
        if (vid > appliedVid.get()) {
            throw new IllegalStateException(
                    "cannot publish vid " + vid + " before it is applied (applied: " + appliedVid.get() + ")");
        }
        long before = lastVid.getAndAccumulate(vid, Math::max);
        if (vid > before) {
            publishListeners.published(vid);
            vidWaiters.published(vid);
        }
    }

    /**
     * Completes once {@code vid} is published on this node (at once if it is): a replica waits here for
     * the commits it forwarded and for reads at a {@code min_vid}. The caller bounds the wait.
     */
    public CompletableFuture<Void> awaitPublished(long vid) {
        return vidWaiters.await(vid);
    }

    /** Who is told when a vid is published (the change feed); see {@link PublishListeners}. */
    public PublishListeners publishListeners() {
        return publishListeners;
    }

    /** The newest vid written to the store, durable or not. */
    public long appliedVid() {
        return appliedVid.get();
    }

    public void syncWal() {
        store.syncWal();
    }

    // ---------------------------------------------------------------------------------------------
    // Snapshots

    /**
     * Names {@code vid}; the name must be new. Durable when this returns. A node of a replicated group
     * names a vid through the group instead ({@link GroupOperation#createSnapshot}, {@link #applyOperation}).
     */
    public NamedSnapshot createSnapshot(String name, long vid) {
        checkNotReplicated("named snapshots");
        checkSnapshotName(name);
        // Pinned until the snapshot is written: the collector lists snapshots under the pin lock, so it
        // sees either this pin or the snapshot, and never passes the vid in between.
        synchronized (writeLock) {
            try (ReadPins.Pin pinned = pin(vid);
                    KvBatch batch = store.newBatch()) {
                byte[] key = snapshotKey(name);
                if (store.get(KeySpace.META, key) != null) {
                    throw new CatalogException(ErrorCode.SNAPSHOT_ALREADY_EXISTS, "Snapshot already exists: " + name)
                            .with("snapshot", name);
                }
                batch.put(KeySpace.META, key, longBytes(vid));
                store.write(batch, true);
            }
            return new NamedSnapshot(name, vid);
        }
    }

    /**
     * In a replicated group, how far every node may collect: a collector goes no further than this,
     * whatever its own retention allows, so that a named snapshot every node checks against it when its
     * entry's turn comes ({@link #applyOperation}) finds its vid on every node or on none.
     */
    public long agreedHorizon() {
        return agreedHorizon;
    }

    /**
     * Applies an operation of the group's log ({@link GroupOperation}) on this node, with {@code extra}
     * (the entry's log position) in the same write, whether the operation is accepted or refused: the
     * checks read only what every node holds alike at this point of the log, so every node decides alike,
     * and a replay after a restart is recognised by the position and not decided again.
     *
     * @return null if applied, or the refusal (every node refuses alike): {@code SNAPSHOT_ALREADY_EXISTS},
     *     {@code SNAPSHOT_NOT_FOUND}, {@code INVALID_SNAPSHOT_NAME}, {@code VID_NOT_FOUND} for a vid not
     *     yet installed, {@code VERSION_EXPIRED} for one below the agreed horizon
     * @throws CatalogException {@code STORAGE_FAILURE} if the store's write failed (the node must stop)
     */
    public CatalogException applyOperation(GroupOperation operation, Consumer<KvBatch> extra) {
        if (!replicated) {
            throw new IllegalStateException("only a node of a replicated group applies group operations");
        }
        synchronized (writeLock) {
            CatalogException refusal = null;
            try (KvBatch batch = store.newBatch()) {
                switch (operation.kind()) {
                    case CREATE_SNAPSHOT -> refusal = createSnapshotIn(batch, operation.name(), operation.vid());
                    case DROP_SNAPSHOT -> refusal = dropSnapshotIn(batch, operation.name());
                    case AGREE_HORIZON -> {
                        if (operation.vid() > agreedHorizon) {
                            batch.put(KeySpace.META, AGREED_HORIZON_KEY, longBytes(operation.vid()));
                        }
                    }
                }
                extra.accept(batch);
                store.write(batch, false);
            } catch (CatalogException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new CatalogException(
                        ErrorCode.STORAGE_FAILURE,
                        "The store failed while applying the group's " + operation.kind(),
                        e);
            }
            if (operation.kind() == GroupOperation.Kind.AGREE_HORIZON) {
                agreedHorizon = Math.max(agreedHorizon, operation.vid());
            }
            return refusal;
        }
    }

    private CatalogException createSnapshotIn(KvBatch batch, String name, long vid) {
        try {
            checkSnapshotName(name);
        } catch (CatalogException refused) {
            return refused;
        }
        byte[] key = snapshotKey(name);
        if (store.get(KeySpace.META, key) != null) {
            return new CatalogException(ErrorCode.SNAPSHOT_ALREADY_EXISTS, "Snapshot already exists: " + name)
                    .with("snapshot", name);
        }
        if (vid < 0 || vid > appliedVid.get()) {
            return new CatalogException(ErrorCode.VID_NOT_FOUND, "Version " + vid + " is not committed")
                    .with("vid", vid);
        }
        if (vid < agreedHorizon) {
            // This node may still hold it, another may not: every node refuses it alike.
            return new CatalogException(
                            ErrorCode.VERSION_EXPIRED,
                            "Version " + vid + " has expired: the group may collect every version below "
                                    + agreedHorizon)
                    .with("vid", vid)
                    .with("oldestVid", agreedHorizon);
        }
        batch.put(KeySpace.META, key, longBytes(vid));
        return null;
    }

    private CatalogException dropSnapshotIn(KvBatch batch, String name) {
        try {
            checkSnapshotName(name);
        } catch (CatalogException refused) {
            return refused;
        }
        byte[] key = snapshotKey(name);
        if (store.get(KeySpace.META, key) == null) {
            return new CatalogException(ErrorCode.SNAPSHOT_NOT_FOUND, "No snapshot named " + name)
                    .with("snapshot", name);
        }
        batch.delete(KeySpace.META, key);
        return null;
    }

    public Optional<NamedSnapshot> findSnapshot(String name) {
        checkSnapshotName(name);
        byte[] value = store.get(KeySpace.META, snapshotKey(name));
        return value == null ? Optional.empty() : Optional.of(new NamedSnapshot(name, PathKeys.readLong(value, 0)));
    }

    /** The vid a snapshot names; fails with {@code SNAPSHOT_NOT_FOUND} if there is no such snapshot. */
    public long snapshotVid(String name) {
        return findSnapshot(name)
                .orElseThrow(() -> new CatalogException(ErrorCode.SNAPSHOT_NOT_FOUND, "No snapshot named " + name)
                        .with("snapshot", name))
                .vid();
    }

    /** Every named snapshot, by name. */
    public List<NamedSnapshot> listSnapshots() {
        byte[] prefix = SNAPSHOT_PREFIX.getBytes(StandardCharsets.UTF_8);
        ImmutableList.Builder<NamedSnapshot> snapshots = ImmutableList.builder();
        try (KvIterator iterator = store.iterator(KeySpace.META, prefix, PathKeys.prefixEnd(prefix))) {
            for (iterator.seek(prefix); iterator.isValid(); iterator.next()) {
                byte[] key = iterator.key();
                String name = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
                snapshots.add(new NamedSnapshot(name, PathKeys.readLong(iterator.value(), 0)));
            }
        }
        return snapshots.build();
    }

    public void dropSnapshot(String name) {
        checkNotReplicated("named snapshots");
        checkSnapshotName(name);
        synchronized (writeLock) {
            byte[] key = snapshotKey(name);
            if (store.get(KeySpace.META, key) == null) {
                throw new CatalogException(ErrorCode.SNAPSHOT_NOT_FOUND, "No snapshot named " + name)
                        .with("snapshot", name);
            }
            try (KvBatch batch = store.newBatch()) {
                batch.delete(KeySpace.META, key);
                store.write(batch, true);
            }
        }
    }

    private void checkNotReplicated(String operation) {
        if (replicated) {
            throw new CatalogException(
                            ErrorCode.NOT_REPLICATED, "A replicated catalog does not support " + operation + " yet")
                    .with("operation", operation);
        }
    }

    /** Refuses a name no snapshot may have: {@code INVALID_SNAPSHOT_NAME}. */
    public static void checkSnapshotName(String name) {
        requireNonNull(name, "snapshot name is null");
        if (name.isEmpty() || name.length() > MAX_SNAPSHOT_NAME || name.chars().anyMatch(Character::isISOControl)) {
            throw new CatalogException(
                            ErrorCode.INVALID_SNAPSHOT_NAME,
                            "A snapshot name is 1 to " + MAX_SNAPSHOT_NAME + " characters without control characters")
                    .with("snapshot", name);
        }
    }

    private static byte[] snapshotKey(String name) {
        return (SNAPSHOT_PREFIX + name).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] longBytes(long value) {
        byte[] bytes = new byte[8];
        PathKeys.writeLong(bytes, 0, value);
        return bytes;
    }

    @Override
    public void close() {
        store.close();
    }

    /** Direct store access for the cursor and commit builder in this package. */
    KvStore kv() {
        return store;
    }

    /** Entries visible at {@code vid} as a stand-alone list; used for small subtrees. */
    List<CatalogObject> childList(ObjectPath parent, long vid) {
        List<CatalogObject> children = new ArrayList<>();
        try (ChildCursor cursor = children(parent, vid)) {
            while (cursor.advance()) {
                children.add(
                        new CatalogObject(parent.child(cursor.id()), cursor.kind(), cursor.value(), cursor.version()));
            }
        }
        return children;
    }
}
