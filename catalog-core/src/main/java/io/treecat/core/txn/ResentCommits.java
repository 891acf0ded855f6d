package io.treecat.core.txn;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.PathChange;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.ObjectChange;
import io.treecat.core.version.VersionedTree;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recognises, on the leader, a forwarded commit that a replica sent again, so that it commits once.
 *
 * <p>A replica sends a commit again when the answer to its first send did not say whether the leader it
 * reached ran it: Ratis's client fails every request waiting on a connection with the "not leader" answer
 * one of them got, a leader that stops closes its streams, a connection breaks. Every send carries the same
 * request id ({@link ForwardedCommit#requestId}). The leader answers a send of an id it is still sequencing
 * or settled lately with that outcome ({@link #join}); a re-send it has not seen it looks up in the commit
 * log, whose records keep the id ({@link #find}).
 */
final class ResentCommits {
    /** How many settled forwarded commits a leader remembers, by request id. */
    static final int REMEMBERED = 4096;

    private final VersionedTree tree;
    private final Map<String, CompletableFuture<CommitResult>> inFlight = new ConcurrentHashMap<>();
    /**
     * The newest forwarded commits settled here that a send must not run again: the vid of one that committed,
     * or the failure of one whose outcome was unknown. Guarded by itself.
     */
    private final Map<String, Settled> settled = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Settled> eldest) {
            return size() > REMEMBERED;
        }
    };

    private record Settled(long vid, CatalogException unknown) {}

    ResentCommits(VersionedTree tree) {
        this.tree = tree;
    }

    /**
     * The answer to a send of a commit this node is sequencing or settled lately, or null if it has seen
     * none: then {@code done} is the commit's answer from now on, which every send of it gets, and the caller
     * sequences the commit and completes {@code done}.
     */
    CompletableFuture<CommitResult> join(ForwardedCommit commit, CompletableFuture<CommitResult> done) {
        String id = commit.requestId();
        CompletableFuture<CommitResult> running = inFlight.putIfAbsent(id, done);
        if (running != null) {
            return running;
        }
        Settled earlier;
        synchronized (settled) {
            earlier = settled.get(id);
        }
        if (earlier == null) {
            var unused = done.whenComplete((result, failure) -> settle(id, done, result, failure));
            return null;
        }
        // Answered through `done`, which a send that joined it meanwhile waits on too.
        if (earlier.unknown() != null) {
            done.completeExceptionally(earlier.unknown());
        } else {
            try {
                done.complete(answer(tree.log().find(earlier.vid()).orElseThrow()));
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }
        inFlight.remove(id, done);
        return done;
    }

    /**
     * Remembered before it leaves {@code inFlight}, so that a send arriving meanwhile finds it in one or the other.
     * {@code failure} is what the pipeline failed {@code done} with, unwrapped (a stage on {@code done} itself).
     */
    private void settle(String id, CompletableFuture<CommitResult> done, CommitResult result, Throwable failure) {
        Settled outcome = failure == null
                ? new Settled(result.vid(), null)
                : failure instanceof CatalogException unknown && unknown.code() == ErrorCode.COMMIT_STATE_UNKNOWN
                        ? new Settled(0, unknown)
                        : null; // refused: nothing committed, and a later send may run it
        if (outcome != null) {
            synchronized (settled) {
                settled.put(id, outcome);
            }
        }
        inFlight.remove(id, done);
    }

    /**
     * The commit that a re-sent commit's earlier send made, if the commit log has it (through {@code
     * throughVid}), as that send's caller would have been answered. Complete once this node leads: the
     * group's every entry from before its term is applied here, and an entry of an earlier leader that is not
     * can never be committed; an earlier send to this node in this term is in flight or settled ({@link #join}).
     *
     * @throws CatalogException {@code COMMIT_STATE_UNKNOWN} if it committed but its changes can no longer be
     *     told (a compact record, or a version the collector dropped): the caller hears where it is, not that
     *     nothing happened
     */
    Optional<CommitResult> find(ForwardedCommit commit, long throughVid) {
        String id = commit.requestId();
        for (long vid = commit.sentAfterVid() + 1; vid <= throughVid; vid++) {
            Optional<CommitRecord> record = tree.log().find(vid);
            if (record.isPresent() && id.equals(record.get().origin().requestId())) {
                return Optional.of(answer(record.get()));
            }
        }
        return Optional.empty();
    }

    /** The changes the record lists, with the objects before and after, as the commit builder reported them. */
    private CommitResult answer(CommitRecord record) {
        long vid = record.vid();
        if (record.compact()) {
            throw alreadyCommitted(vid, "its record lists no paths (more than 1,000 changes)", null);
        }
        List<ObjectChange> changes = new ArrayList<>(record.changes().size());
        try {
            for (PathChange change : record.changes()) {
                Optional<CatalogObject> before =
                        change.change() == ChangeKind.ADDED ? Optional.empty() : tree.read(change.path(), vid - 1);
                Optional<CatalogObject> after =
                        change.change() == ChangeKind.REMOVED ? Optional.empty() : tree.read(change.path(), vid);
                changes.add(new ObjectChange(
                        change.path(),
                        before.map(CatalogObject::kind).orElse(null),
                        before.map(CatalogObject::value).orElse(null),
                        after.map(CatalogObject::kind).orElse(null),
                        after.map(CatalogObject::value).orElse(null)));
            }
        } catch (CatalogException expired) {
            throw alreadyCommitted(vid, "the version before it is no longer readable", expired);
        }
        return new CommitResult(vid, changes);
    }

    private static CatalogException alreadyCommitted(long vid, String why, Throwable cause) {
        return new CatalogException(
                        ErrorCode.COMMIT_STATE_UNKNOWN,
                        "The commit was sent again after a leader change and had already committed at version " + vid
                                + ", but its changes cannot be listed: " + why,
                        cause)
                .with("vid", vid);
    }
}
