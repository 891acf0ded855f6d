package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the appends queued on one table as one chain (docs/iceberg-rest.md, "Chained appends"):
 * the appends waiting in the table's queue ({@link TableCommitLocks}) when the commit ahead of them
 * ends are taken together, in the order they arrived, each applied on top of the one before (rebased
 * by {@link CommitRebaser} where its requirements no longer hold), and the whole chain is committed
 * with ONE metadata file and ONE TreeCat transaction. On an object store a metadata write costs tens
 * of milliseconds; paid once per chain instead of once per append, one table's commit rate grows
 * with its load instead of stopping at one metadata write per commit.
 *
 * <p>The chain keeps each member's own outcome: a member whose requirements fail on top of the
 * members before it (and that the rebase does not take) or whose updates Iceberg refuses gets its
 * own failure, as it would have one commit later without chaining, while the others commit. Every
 * member that commits is answered the table's metadata after the whole chain: it holds the member's
 * snapshot (Iceberg's client finds its own by id, as after a rebase) and is what a load returns next.
 * A failure of the chain itself (the metadata write, a store error, a transaction that lost every
 * retry) is every member's failure, as each would have met it alone; nothing is left in the tree
 * and the files the attempt wrote are deleted ({@code onAbandon}). A transaction that loses a race
 * is run again whole ({@link io.treecat.lakehouse.txn.TransactionRunner}): every member is checked
 * again against the table as it is then.
 *
 * <p>Every change to one existing table is chained, not only appends: a schema change, a property update, a
 * compaction's replace or a row-level delete waiting behind appends would otherwise take the table's lock in turn,
 * one metadata file each, while the appends queued behind it wait again. In a chain each is checked against the
 * table as the members before it left it, exactly as if it had committed right after them; a create and a
 * multi-table commit run alone.
 *
 * <p>Combining, not batching by time: a commit never waits for others to arrive. A drainer per
 * stripe of tables takes the table's lock and commits every append queued on the table at that
 * moment; the appends that arrive meanwhile are its next chain. With no contention a chain is one
 * commit.
 */
final class ChainedCommits {
    private static final Logger LOG = LoggerFactory.getLogger(ChainedCommits.class);

    /** The most appends one chain takes; the rest wait for the next one. */
    static final int MAX_CHAIN = 256;

    /** Writes a table's new metadata file and stages its swap ({@code TableCommits.writeAndSwap}). */
    interface Swap {
        List<TableMetadata> writeAndSwap(
                LakeTransaction txn, Warehouse warehouse, Supplier<FileIO> reads, List<TableCommits.Staged> staged);
    }

    private final Lakehouse lake;
    private final MetadataFileCache metadataFiles;
    private final CommitRebaser rebaser;
    private final TableCommitLocks locks;
    private final Swap swap;
    /** As {@link TableCommitLocks}' stripes: one drainer per stripe. */
    private static final int STRIPES = 64;

    /**
     * The partition specs of each table's last chain base, with the table's UUID, for its members' read-ahead:
     * without them Iceberg parses each manifest's spec from its file, and logs a deprecation warning per manifest
     * read. Bounded: a table that fell out is read with its manifests' own specs.
     */
    private final Cache<ObjectPath, TableSpecs> specs =
            CacheBuilder.newBuilder().maximumSize(4096).build();

    /** Appends waiting for their chain, of every table, in arrival order. */
    private final ConcurrentLinkedQueue<Member> waiting = new ConcurrentLinkedQueue<>();
    /** Whether a stripe's drainer is running. */
    private final AtomicBoolean[] draining = new AtomicBoolean[STRIPES];
    /** Runs the drainers: threads that mostly wait for the store and the table's lock. */
    private final ExecutorService drainers = Executors.newCachedThreadPool(new ThreadFactoryBuilder()
            .setNameFormat("treecat-chain-drainer-%d")
            .setDaemon(true)
            .build());
    /** Writes a chain's manifest lists in parallel: store writes, so threads that mostly wait. */
    private final ExecutorService writers = Executors.newCachedThreadPool(new ThreadFactoryBuilder()
            .setNameFormat("treecat-chain-writer-%d")
            .setDaemon(true)
            .build());

    ChainedCommits(
            Lakehouse lake, MetadataFileCache metadataFiles, CommitRebaser rebaser, TableCommitLocks locks, Swap swap) {
        this.lake = requireNonNull(lake, "lake is null");
        this.metadataFiles = requireNonNull(metadataFiles, "metadataFiles is null");
        this.rebaser = requireNonNull(rebaser, "rebaser is null");
        this.locks = requireNonNull(locks, "locks is null");
        this.swap = requireNonNull(swap, "swap is null");
        for (int i = 0; i < STRIPES; i++) {
            draining[i] = new AtomicBoolean();
        }
    }

    /** The appends waiting for their table's lock now (for tests). */
    int waiting() {
        return waiting.size();
    }

    /**
     * Whether a change is chained: every change to one existing table is. A create is not (it has no table to queue
     * on), and neither is a multi-table commit (its tables commit atomically, under all their locks).
     */
    static boolean chainable(TableChange change) {
        return change.requirements().stream().noneMatch(UpdateRequirement.AssertTableDoesNotExist.class::isInstance);
    }

    /** One queued append, and its answer once its chain has run. */
    private static final class Member {
        private final ObjectPath path;
        private final Access access;
        private final Warehouse warehouse;
        private final TableChange change;
        /**
         * What the caller's request carries into the commit that takes its change (an idempotency key's record): the
         * chain's transaction runs on another thread, which does not see it.
         */
        private final Optional<TransactionRunner.Attached> attachment;

        /** Completed by the caller's thread once it has read the member's manifests, while the chain runs. */
        private final CompletableFuture<ReadAhead> readAhead = new CompletableFuture<>();

        private final AtomicBoolean claimed = new AtomicBoolean();
        private final CompletableFuture<TableMetadata> answer = new CompletableFuture<>();

        Member(
                ObjectPath path,
                Access access,
                Warehouse warehouse,
                TableChange change,
                Optional<TransactionRunner.Attached> attachment) {
            this.path = path;
            this.access = access;
            this.warehouse = warehouse;
            this.change = change;
            this.attachment = attachment;
        }

        /** The member's manifests, once its caller has read them. */
        ReadAhead readAhead() {
            return readAhead.join();
        }

        /** Takes this member into a chain; false if another chain took it. */
        boolean claim() {
            return claimed.compareAndSet(false, true);
        }
    }

    /**
     * Commits an append to the table at {@code path}, alone or in a chain with the appends queued
     * with it. Answers the table's metadata after its chain; throws the member's own failure (a
     * requirement, 409) or the chain's.
     *
     * <p>The caller's thread only waits: the chains of a stripe of tables ({@link TableCommitLocks}'
     * striping) are run one after the other by one drainer, which takes the table's lock for each
     * chain and, when it ends, takes every append queued meanwhile as the next chain. No waiting
     * caller has to take the lock in turn just to find its answer ready (on a loaded machine those
     * hand-offs, one per member, cost more than the chain).
     */
    TableMetadata commit(Principal who, Warehouse warehouse, ObjectPath path, TableChange change) {
        Access access = Access.of(who, Action.COMMIT_TABLE, path);
        // Each member's own access, before it queues: a chain commits for callers each allowed to commit.
        lake.authorizer().check(access);
        Member member =
                new Member(path, access, warehouse, change, lake.runner().attachment());
        waiting.add(member);
        drain(stripe(path));
        // The chain needs the member's manifests only for its file index and a rebase, after it has applied the
        // members and written the metadata file: read them now, on this thread, while the drainer does that.
        try {
            member.readAhead.complete(ReadAhead.of(warehouse.io(), change, knownSpecs(path, change)));
        } catch (RuntimeException e) {
            // The member is queued: its answer is its chain's. The chain reads what it needs from the store instead.
            LOG.debug("Manifests of a commit to {} not read ahead", path, e);
        } finally {
            // Never leave the chain waiting for a read that will not come.
            member.readAhead.complete(ReadAhead.NONE);
        }
        return await(member);
    }

    /** A table's partition specs as of a base, and the UUID of the table they belong to. */
    private record TableSpecs(String uuid, Map<Integer, PartitionSpec> specsById) {}

    /**
     * The specs known for the table a change is to, if the change asserts that very table's UUID (as Iceberg's
     * clients do): a table dropped and created again under the same name numbers its specs from 0 again.
     */
    private Map<Integer, PartitionSpec> knownSpecs(ObjectPath path, TableChange change) {
        TableSpecs known = specs.getIfPresent(path);
        if (known == null) {
            return null;
        }
        for (UpdateRequirement requirement : change.requirements()) {
            if (requirement instanceof UpdateRequirement.AssertTableUUID assertion
                    && known.uuid().equals(assertion.uuid())) {
                return known.specsById();
            }
        }
        return null;
    }

    private static int stripe(ObjectPath path) {
        return Math.floorMod(path.hashCode(), STRIPES);
    }

    /** Starts the stripe's drainer unless it is running: a running one takes what was queued. */
    private void drain(int stripe) {
        if (draining[stripe].compareAndSet(false, true)) {
            drainers.execute(() -> drainLoop(stripe));
        }
    }

    private void drainLoop(int stripe) {
        while (true) {
            List<Member> chain = claimChain(stripe);
            if (chain.isEmpty()) {
                draining[stripe].set(false);
                // A member queued after the claim found the drainer running and left its chain to it.
                if (hasWaiting(stripe) && draining[stripe].compareAndSet(false, true)) {
                    continue;
                }
                return;
            }
            Member first = chain.get(0);
            try (TableCommitLocks.Held ignored = locks.lock(List.of(first.path))) {
                run(first.access, first.warehouse, first.path, chain);
            } catch (RuntimeException | Error e) {
                // run answers every member; this is only the lock's own failure.
                chain.forEach(member -> member.answer.completeExceptionally(e));
            }
        }
    }

    private boolean hasWaiting(int stripe) {
        for (Member queued : waiting) {
            if (stripe(queued.path) == stripe) {
                return true;
            }
        }
        return false;
    }

    /**
     * The appends queued now to the table of the oldest one waiting in {@code stripe}, oldest first,
     * each claimed for this chain.
     */
    private List<Member> claimChain(int stripe) {
        List<Member> chain = new ArrayList<>();
        ObjectPath path = null;
        for (Iterator<Member> it = waiting.iterator(); it.hasNext() && chain.size() < MAX_CHAIN; ) {
            Member queued = it.next();
            if (stripe(queued.path) != stripe || (path != null && !queued.path.equals(path))) {
                continue;
            }
            if (queued.claim()) {
                it.remove();
                path = queued.path;
                chain.add(queued);
            }
        }
        return chain;
    }

    private static TableMetadata await(Member member) {
        try {
            return member.answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** What one member's attempt came to: the chain's metadata, or its own failure. */
    private record Outcome(TableMetadata committed, RuntimeException failure) {}

    private void run(Access access, Warehouse warehouse, ObjectPath path, List<Member> chain) {
        try {
            List<Outcome> outcomes =
                    lake.runner().write(access, RetryPolicy.DEFAULT, txn -> attempt(txn, warehouse, path, chain));
            for (int i = 0; i < chain.size(); i++) {
                Outcome outcome = outcomes.get(i);
                if (outcome.failure() == null) {
                    chain.get(i).attachment.ifPresent(TransactionRunner.Attached::carried);
                }
                if (outcome.failure() != null) {
                    chain.get(i).answer.completeExceptionally(outcome.failure());
                } else {
                    chain.get(i).answer.complete(outcome.committed());
                }
            }
            if (chain.size() > 1) {
                LOG.debug("Committed a chain of {} appends to {}", chain.size(), path);
            }
        } catch (RuntimeException | Error e) {
            chain.forEach(member -> member.answer.completeExceptionally(e));
        }
    }

    /**
     * One attempt of a chain, in {@code txn}: the table read once, each member applied on top of the
     * previous (its failure kept as its own), and, if any member changed the table, one metadata
     * file and one pointer swap with the file index, while the rebased manifest lists are written in
     * parallel. The transaction commits only after every list is written.
     */
    private List<Outcome> attempt(LakeTransaction txn, Warehouse warehouse, ObjectPath path, List<Member> chain) {
        TableChange first = chain.get(0).change;
        Optional<CatalogObject> object = txn.read(path);
        if (!ObjectType.TABLE.isTypeOf(object)) {
            // Dropped or replaced by a view meanwhile: every member meets this alone too.
            throw object.isPresent()
                    ? IcebergNames.nameTaken(
                            IcebergNames.TABLE, first.identifier().toString(), object)
                    : IcebergNames.noSuchTable(first.identifier());
        }
        String basePointer =
                IcebergTables.pointer(TableEntry.decode(object.get().value()), first.identifier());
        TableMetadata base = metadataFiles.readTrusted(warehouse.io(), basePointer);
        List<Snapshot> uncachedHeads = ManifestCaches.uncachedHeads(base);
        specs.put(path, new TableSpecs(base.uuid(), base.specsById()));
        StagingFileIO io = new StagingFileIO(warehouse.io());
        Set<Member> staged = new HashSet<>();
        Consumer<Member> stage = member -> {
            if (staged.add(member)) {
                io.readAhead(member.readAhead());
            }
        };

        TableMetadata current = base;
        RuntimeException[] failures = new RuntimeException[chain.size()];
        for (int i = 0; i < chain.size(); i++) {
            try {
                TableMetadata applied = apply(txn, io, current, chain.get(i), stage);
                // Each member's changes end with it: Iceberg's builder carries a base's changes on, and would then take
                // the members before the last for intermediate snapshots of one commit and leave them out of the
                // snapshot log. Each member is a commit of its own, in the history too.
                current = i == chain.size() - 1
                        ? applied
                        : TableMetadata.buildFrom(applied).discardChanges().build();
            } catch (CatalogException e) {
                // The tree's or the store's: every member's, as each would have met it alone.
                throw e;
            } catch (RuntimeException e) {
                // The member's own failure, as it would meet it committing right after the members before it: a
                // requirement (409), updates Iceberg refuses (400), or whatever else its own change provoked, which
                // must not fail the members around it now that any change to the table may be in a chain.
                failures[i] = e;
            }
        }
        TableMetadata committed = base;
        if (current != base) {
            CompletableFuture<Void> lists = io.flush(writers);
            try {
                Supplier<FileIO> reads = () -> {
                    chain.forEach(stage);
                    return io;
                };
                committed = swap.writeAndSwap(
                                txn,
                                warehouse,
                                reads,
                                List.of(new TableCommits.Staged(path, base, basePointer, current, uncachedHeads)))
                        .get(0);
            } finally {
                // Never leave the attempt (and its onAbandon deletes) while a list is still being written.
                lists.handle((ignored, failure) -> null).join();
            }
            await(lists);
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            outcomes.add(new Outcome(failures[i] == null ? committed : null, failures[i]));
            if (failures[i] == null) {
                // In the write set of the commit that takes the member's change, as its own commit would have it
                // (what a single-table commit returns).
                List<TableMetadata> result = List.of(committed);
                chain.get(i).attachment.ifPresent(attachment -> attachment.stageIn(txn, result));
            }
        }
        return outcomes;
    }

    private static void await(CompletableFuture<Void> future) {
        try {
            future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
    }

    /**
     * One member on top of {@code current}: its requirements checked and its updates applied, or,
     * when a requirement fails, rebased ({@link CommitRebaser}); else its requirement's failure.
     */
    private TableMetadata apply(
            LakeTransaction txn, StagingFileIO io, TableMetadata current, Member member, Consumer<Member> stage) {
        TableChange change = member.change;
        try {
            change.requirements().forEach(requirement -> requirement.validate(current));
        } catch (CommitFailedException e) {
            // A rebase reads the member's manifest list (and, for format 1, its manifests).
            stage.accept(member);
            Optional<CommitRebaser.Rebased> rebased = rebaser.rebase(io, current, change);
            if (rebased.isEmpty()) {
                throw e;
            }
            txn.onAbandon(() -> rebaser.discard(io, rebased.get()));
            txn.afterCommit(() -> rebaser.committed(rebased.get()));
            return rebased.get().metadata();
        }
        return TableUpdates.apply(TableMetadata.buildFrom(current), change.updates());
    }
}
