package io.treecat.lakehouse.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.LakeObject;
import io.treecat.lakehouse.model.ObjectType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * One attempt of a lake operation's TreeCat transaction, as {@link TransactionRunner} hands it to the
 * operation's body. Every read goes through the transaction, so its scan set covers what the body
 * decided on and a concurrent change of it fails the commit's validation (OSPL) instead of being
 * lost. Writes are staged here and committed as one write set when the body returns; a body that
 * stages none commits nothing.
 */
public final class LakeTransaction {
    private final CatalogService service;
    private final Transaction transaction;
    private final List<WriteOp> writes = new ArrayList<>();
    private final List<Runnable> afterCommit = new ArrayList<>();
    private final List<Runnable> onAbandon = new ArrayList<>();

    LakeTransaction(CatalogService service, Transaction transaction) {
        this.service = requireNonNull(service, "service is null");
        this.transaction = requireNonNull(transaction, "transaction is null");
    }

    public TransactionId id() {
        return transaction.id();
    }

    /** The vid this transaction reads at. */
    public long readVid() {
        return transaction.readVid();
    }

    /** The service this transaction runs on, for the lakehouse's own index readers (file leaves). */
    public CatalogService service() {
        return service;
    }

    public Optional<CatalogObject> read(ObjectPath path) {
        return service.get(transaction.id(), path);
    }

    public QueryPage query(QueryRequest request) {
        return service.query(transaction.id(), request);
    }

    /** Every child of {@code parent} of the given type, in id order (all pages). */
    public List<CatalogObject> children(ObjectPath parent, ObjectType type) {
        String query = PathSteps.of(parent) + "/[" + LakeKeys.OBJ_TYPE + "='" + type.storedName() + "']";
        return queryAll(QueryRequest.of(query).withResults(ChildKinds.INNER).withLimit(QueryRequest.MAX_LIMIT));
    }

    /** Up to {@code limit} children of {@code parent} of any type and kind, in id order. */
    public List<CatalogObject> firstChildren(ObjectPath parent, int limit) {
        return query(QueryRequest.of(PathSteps.of(parent) + "/*").withLimit(limit))
                .rows();
    }

    /**
     * Reads every level below {@code path} (ids and types only), so the scan ranges of this transaction
     * cover the whole subtree: a concurrent add or drop anywhere below then conflicts with this
     * transaction (a rename that moves the subtree must not lose it).
     */
    public void scanSubtree(ObjectPath path) {
        StringBuilder query = new StringBuilder(PathSteps.of(path));
        boolean more = true;
        while (more) {
            query.append("/*");
            List<CatalogObject> level = queryAll(QueryRequest.of(query.toString())
                    .withResults(ChildKinds.BOTH)
                    .withProjection(List.of(LakeKeys.OBJ_TYPE))
                    .withLimit(QueryRequest.MAX_LIMIT));
            more = !level.isEmpty();
        }
    }

    /** Every row of {@code first} and its continuation pages, read in this transaction. */
    public List<CatalogObject> queryAll(QueryRequest first) {
        List<CatalogObject> rows = new ArrayList<>();
        QueryRequest request = first;
        while (true) {
            QueryPage page = query(request);
            rows.addAll(page.rows());
            if (page.continuation().isEmpty()) {
                return rows;
            }
            request = request.withPageToken(page.continuation().get());
        }
    }

    /** Stages a new object at {@code path}; the commit fails if something is there already. */
    public void add(ObjectPath path, LakeObject object) {
        write(new WriteOp.Add(path, ObjectKind.INNER, object.encode()));
    }

    /** Stages {@code object} as the value at {@code path}, made or replaced. */
    public void update(ObjectPath path, LakeObject object) {
        write(new WriteOp.Update(path, ObjectKind.INNER, object.encode()));
    }

    /** Stages the removal of {@code path} and everything below it. */
    public void remove(ObjectPath path) {
        write(new WriteOp.Remove(path));
    }

    /**
     * Stages a raw write: for the lakehouse's own index writers (the Iceberg file index), which write
     * leaves and index nodes in bulk. Adapters stage lake objects through {@link #add}, {@link #update}
     * and {@link #remove} only (TestLayering).
     */
    public void write(WriteOp write) {
        writes.add(requireNonNull(write, "write is null"));
    }

    public void writeAll(Collection<? extends WriteOp> more) {
        more.forEach(this::write);
    }

    /** Whether a write staged so far adds an object below {@code level} (a rename into the same level, say). */
    public boolean addsBelow(ObjectPath level) {
        int depth = level.ids().size();
        for (WriteOp write : writes) {
            if (write instanceof WriteOp.Add add
                    && add.path().ids().size() > depth
                    && add.path().ids().subList(0, depth).equals(level.ids())) {
                return true;
            }
        }
        return false;
    }

    /** The writes staged so far, in order. */
    public List<WriteOp> writes() {
        return List.copyOf(writes);
    }

    /**
     * Runs {@code action} once this attempt has committed (never if it did not): changes outside the
     * tree that must follow the commit and never precede it, such as deleting a dropped table's files.
     * A failure of the action is logged; the commit stands.
     */
    public void afterCommit(Runnable action) {
        afterCommit.add(requireNonNull(action, "action is null"));
    }

    /**
     * Runs {@code cleanup} if this attempt ends without committing and its outcome is known (a lost race,
     * a refused requirement, any error): undoes what the body did outside the tree, such as a metadata
     * file written for a commit that did not happen. Never run when the outcome is unknown, since the
     * commit may then have happened and refer to what the cleanup would remove.
     */
    public void onAbandon(Runnable cleanup) {
        onAbandon.add(requireNonNull(cleanup, "cleanup is null"));
    }

    List<Runnable> afterCommitActions() {
        return afterCommit;
    }

    List<Runnable> abandonActions() {
        return onAbandon;
    }
}
