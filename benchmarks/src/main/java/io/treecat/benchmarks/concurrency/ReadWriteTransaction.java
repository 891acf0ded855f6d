package io.treecat.benchmarks.concurrency;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.List;

/** One read-write transaction of a workload's client: its reads, then the writes it commits, or nothing. */
@FunctionalInterface
public interface ReadWriteTransaction {
    /** Reads in {@code txn} and answers the writes to commit; none ends the transaction without a commit. */
    List<WriteOp> run(TransactionId txn);

    /** Runs {@code body} in a new read-write transaction; a conflict ends it and is thrown to the caller. */
    static void run(CatalogService catalog, ReadWriteTransaction body) {
        Transaction txn = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
        boolean ended = false;
        try {
            List<WriteOp> writes = body.run(txn.id());
            if (writes.isEmpty()) {
                catalog.abort(txn.id());
            } else {
                catalog.commit(txn.id(), new WriteSet(writes));
            }
            ended = true;
        } finally {
            if (!ended) {
                try {
                    catalog.abort(txn.id());
                } catch (CatalogException ignored) {
                    // A failed commit has ended the transaction already.
                }
            }
        }
    }

    /** Every result of {@code query} in {@code txn}, recorded for the transaction's validation. */
    static List<CatalogObject> rows(CatalogService catalog, TransactionId txn, String query) {
        List<CatalogObject> rows = new ArrayList<>();
        try (QueryCursor cursor = catalog.openQuery(txn, QueryRequest.of(query))) {
            while (cursor.advance()) {
                rows.add(cursor.current());
            }
        }
        return rows;
    }
}
