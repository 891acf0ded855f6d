package io.treecat.grpc.client;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.txn.TransactionId;
import java.util.Optional;

/**
 * Reads inside one transaction: every read sees the transaction's read vid, and in a read-write
 * transaction the server records it, so a concurrent change that would alter it aborts the commit.
 */
public interface TransactionContext {
    TransactionId id();

    long readVid();

    /** Streams the query's results; close what is returned. */
    QueryResults query(QuerySpec query);

    default QueryResults query(String query) {
        return query(QuerySpec.of(query));
    }

    /** One page; its continuation is present only if more objects follow. */
    QueryPage page(QuerySpec query);

    Optional<CatalogObject> get(ObjectPath path);
}
