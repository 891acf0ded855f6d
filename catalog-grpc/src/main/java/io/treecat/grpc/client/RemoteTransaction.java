package io.treecat.grpc.client;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteSet;
import java.util.Optional;

/** A transaction session on the server, as {@link TreeCatClient#begin} opened it. */
public final class RemoteTransaction implements TransactionContext {
    private final TreeCatClient client;
    private final TransactionId id;
    private final TransactionMode mode;
    private final long readVid;

    RemoteTransaction(TreeCatClient client, TransactionId id, TransactionMode mode, long readVid) {
        this.client = requireNonNull(client, "client is null");
        this.id = requireNonNull(id, "id is null");
        this.mode = requireNonNull(mode, "mode is null");
        this.readVid = readVid;
    }

    @Override
    public TransactionId id() {
        return id;
    }

    public TransactionMode mode() {
        return mode;
    }

    @Override
    public long readVid() {
        return readVid;
    }

    @Override
    public QueryResults query(QuerySpec query) {
        return client.query(Optional.of(id), query);
    }

    @Override
    public QueryPage page(QuerySpec query) {
        return client.page(Optional.of(id), query);
    }

    @Override
    public Optional<CatalogObject> get(ObjectPath path) {
        return client.get(Optional.of(id), path, io.treecat.core.service.ReadPoint.LATEST);
    }

    /**
     * Validates and commits; the session ends either way.
     *
     * @param writes null to commit nothing (validating a read-write transaction's reads is then not needed)
     * @throws TreeCatClientException ABORTED if a concurrent commit changed what this transaction read
     */
    public CommitSummary commit(WriteSet writes) {
        return client.commit(id, writes);
    }

    public void abort() {
        client.abort(id);
    }

    @Override
    public String toString() {
        return "RemoteTransaction{" + id + ", " + mode + ", readVid=" + readVid + "}";
    }
}
