package io.treecat.lakehouse.catalog;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.model.HiveCompactionEntry;
import io.treecat.lakehouse.model.HiveTransactionEntry;
import io.treecat.lakehouse.model.HiveTransactionListEntry;
import io.treecat.lakehouse.model.HiveTransactionsEntry;
import io.treecat.lakehouse.model.HiveWriteIdEntry;
import io.treecat.lakehouse.model.HiveWriteIdsEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Hive ACID state in the tree: transactions, compaction requests and each table's write ids. The layout:
 *
 * <pre>
 * /&lt;catalog&gt;/.hive_txns                      {@link HiveTransactionsEntry}: next transaction id, next compaction id
 * /&lt;catalog&gt;/.hive_txns/txns/&lt;id&gt;           {@link HiveTransactionEntry}, open or aborted (inner: heartbeats change it)
 * /&lt;catalog&gt;/.hive_txns/committed/&lt;id&gt;      {@link HiveTransactionEntry}, committed (a leaf: it never changes again)
 * /&lt;catalog&gt;/.hive_txns/compactions/&lt;id&gt;    {@link HiveCompactionEntry} (a leaf)
 * /&lt;catalog&gt;/&lt;db&gt;/&lt;table&gt;/.hive_write_ids      {@link HiveWriteIdsEntry}: the table's next write id
 * /&lt;catalog&gt;/&lt;db&gt;/&lt;table&gt;/.hive_write_ids/&lt;w&gt;  {@link HiveWriteIdEntry} (a leaf): write id w's transaction
 * </pre>
 *
 * Ids are 20-digit zero-padded decimals, so that id order is numeric order. The transaction area lives under the
 * HMS catalog, beside its databases (a Hive database name never starts with a dot); the write ids live under their
 * table, so dropping the table removes them and renaming it moves them. Committed transactions move to their own
 * list, so that what every snapshot needs (the open and aborted ones) is read without the whole history.
 *
 * <p>Every counter moves in the commit that hands out its ids, and every read goes through the caller's
 * transaction: two callers drawing ids at once both read the counter, so the later commit fails validation and the
 * runner runs it again, with the next id.
 */
public final class HiveTransactions {
    private HiveTransactions() {}

    /** A transaction and its id. */
    public record Transaction(long id, HiveTransactionEntry entry) {}

    /** A compaction request and its id. */
    public record Compaction(long id, HiveCompactionEntry entry) {}

    /** A write id handed out, and to which transaction. */
    public record WriteId(long writeId, long txnId) {}

    public static ObjectPath root(String catalog) {
        return ObjectPath.of(catalog, LakeKeys.HIVE_TRANSACTIONS_ID);
    }

    private static ObjectPath openList(String catalog) {
        return root(catalog).child(LakeKeys.HIVE_OPEN_TRANSACTIONS_ID);
    }

    private static ObjectPath committedList(String catalog) {
        return root(catalog).child(LakeKeys.HIVE_COMMITTED_TRANSACTIONS_ID);
    }

    private static ObjectPath compactionList(String catalog) {
        return root(catalog).child(LakeKeys.HIVE_COMPACTIONS_ID);
    }

    /** The write-id area of the table at {@code table}. */
    public static ObjectPath writeIds(ObjectPath table) {
        return table.child(LakeKeys.HIVE_WRITE_IDS_ID);
    }

    /** An id as a path id: 20 digits, so that id order is numeric order. */
    static String id(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("Negative id: " + id);
        }
        return String.format("%020d", id);
    }

    // ---- transactions

    /** The counters, if a transaction or compaction was ever made in {@code catalog}. */
    public static Optional<HiveTransactionsEntry> counters(LakeTransaction txn, String catalog) {
        Optional<CatalogObject> object = txn.read(root(catalog));
        return ObjectType.HIVE_TRANSACTIONS.isTypeOf(object)
                ? Optional.of(HiveTransactionsEntry.decode(object.get().value()))
                : Optional.empty();
    }

    /** The counters, made (with the catalog and the lists) if there are none yet. */
    private static HiveTransactionsEntry ensure(LakeTransaction txn, Warehouse warehouse) {
        String catalog = warehouse.catalog();
        Optional<HiveTransactionsEntry> counters = counters(txn, catalog);
        if (counters.isPresent()) {
            return counters.get();
        }
        Catalogs.ensure(txn, warehouse);
        HiveTransactionsEntry initial = HiveTransactionsEntry.initial();
        txn.add(root(catalog), initial);
        txn.add(openList(catalog), new HiveTransactionListEntry());
        txn.add(committedList(catalog), new HiveTransactionListEntry());
        txn.add(compactionList(catalog), new HiveTransactionListEntry());
        return initial;
    }

    /** Stages {@code count} new transactions like {@code opened}; answers their ids, consecutive and new. */
    public static List<Long> open(LakeTransaction txn, Warehouse warehouse, int count, HiveTransactionEntry opened) {
        requireNonNull(opened, "opened is null");
        if (count < 1) {
            throw new IllegalArgumentException("Opens at least one transaction: " + count);
        }
        HiveTransactionsEntry counters = ensure(txn, warehouse);
        long first = counters.nextTxnId();
        List<Long> ids = new ArrayList<>(count);
        for (long id = first; id < first + count; id++) {
            txn.add(openList(warehouse.catalog()).child(id(id)), opened);
            ids.add(id);
        }
        updateCounters(txn, warehouse.catalog(), counters.withNextTxnId(first + count));
        return ids;
    }

    private static void updateCounters(LakeTransaction txn, String catalog, HiveTransactionsEntry counters) {
        txn.update(root(catalog), counters);
    }

    /** Transaction {@code id}, open, aborted or committed; empty if it was never opened here. */
    public static Optional<HiveTransactionEntry> find(LakeTransaction txn, String catalog, long id) {
        if (id < 1) {
            return Optional.empty();
        }
        Optional<CatalogObject> object = txn.read(openList(catalog).child(id(id)));
        if (object.isEmpty()) {
            object = txn.read(committedList(catalog).child(id(id)));
        }
        return object.filter(ObjectType.HIVE_TRANSACTION::isTypeOf)
                .map(found -> HiveTransactionEntry.decode(found.value()));
    }

    /** Every open and aborted transaction, in id order. */
    public static List<Transaction> openOrAborted(LakeTransaction txn, String catalog) {
        List<Transaction> transactions = new ArrayList<>();
        for (CatalogObject row : txn.children(openList(catalog), ObjectType.HIVE_TRANSACTION)) {
            transactions.add(new Transaction(Long.parseLong(row.id()), HiveTransactionEntry.decode(row.value())));
        }
        return transactions;
    }

    /** Stages {@code entry} as open or aborted transaction {@code id}, which {@link #find} found open. */
    public static void update(LakeTransaction txn, String catalog, long id, HiveTransactionEntry entry) {
        if (entry.state() == HiveTransactionEntry.State.COMMITTED) {
            throw new IllegalArgumentException("A committed transaction moves: commit it");
        }
        txn.update(openList(catalog).child(id(id)), entry);
    }

    /** Stages the commit of open transaction {@code id}: it leaves the open list for the committed one. */
    public static void commit(LakeTransaction txn, String catalog, long id, HiveTransactionEntry open) {
        txn.remove(openList(catalog).child(id(id)));
        txn.write(new WriteOp.Add(
                committedList(catalog).child(id(id)),
                ObjectKind.LEAF,
                open.withState(HiveTransactionEntry.State.COMMITTED).encode()));
    }

    // ---- write ids

    /** The write-id counter of the table at {@code table}, if it was ever given a write id. */
    public static Optional<HiveWriteIdsEntry> writeIdCounter(LakeTransaction txn, ObjectPath table) {
        Optional<CatalogObject> object = txn.read(writeIds(table));
        return ObjectType.HIVE_WRITE_IDS.isTypeOf(object)
                ? Optional.of(HiveWriteIdsEntry.decode(object.get().value()))
                : Optional.empty();
    }

    /**
     * Stages one new write id of the table at {@code table} (which the caller found) per transaction of
     * {@code txnIds}, in that order; answers the first (the others follow it).
     */
    public static long allocateWriteIds(LakeTransaction txn, ObjectPath table, List<Long> txnIds) {
        Optional<HiveWriteIdsEntry> counter = writeIdCounter(txn, table);
        HiveWriteIdsEntry current = counter.orElse(HiveWriteIdsEntry.initial());
        long first = current.nextWriteId();
        HiveWriteIdsEntry moved = current.withNextWriteId(first + txnIds.size());
        // The counter first: a write set is applied in order, and the write ids are leaves below it.
        if (counter.isEmpty()) {
            txn.add(writeIds(table), moved);
        } else {
            txn.update(writeIds(table), moved);
        }
        long next = first;
        for (long txnId : txnIds) {
            txn.write(new WriteOp.Add(
                    writeIds(table).child(id(next)), ObjectKind.LEAF, new HiveWriteIdEntry(txnId).encode()));
            next++;
        }
        return first;
    }

    /** The transaction write id {@code writeId} of the table at {@code table} was handed to, if it was. */
    public static Optional<Long> transactionOf(LakeTransaction txn, ObjectPath table, long writeId) {
        if (writeId < 1) {
            return Optional.empty();
        }
        return txn.read(writeIds(table).child(id(writeId)))
                .filter(ObjectType.HIVE_WRITE_ID::isTypeOf)
                .map(object -> HiveWriteIdEntry.decode(object.value()).txnId());
    }

    /** Every write id of the table at {@code table} up to {@code max}, in order. */
    public static List<WriteId> writeIdsUpTo(LakeTransaction txn, ObjectPath table, long max) {
        List<WriteId> found = new ArrayList<>();
        if (max < 1) {
            return found;
        }
        String query = PathSteps.of(writeIds(table)) + "/[obj_id <= " + PathSteps.literal(id(max)) + " and "
                + LakeKeys.OBJ_TYPE + "='" + ObjectType.HIVE_WRITE_ID.storedName() + "']";
        for (CatalogObject row : txn.queryAll(
                QueryRequest.of(query).withResults(ChildKinds.LEAVES).withLimit(QueryRequest.MAX_LIMIT))) {
            found.add(new WriteId(
                    Long.parseLong(row.id()),
                    HiveWriteIdEntry.decode(row.value()).txnId()));
        }
        return found;
    }

    // ---- compaction requests

    /** Stages a compaction request; answers its id. */
    public static long addCompaction(LakeTransaction txn, Warehouse warehouse, HiveCompactionEntry compaction) {
        HiveTransactionsEntry counters = ensure(txn, warehouse);
        long id = counters.nextCompactionId();
        txn.write(new WriteOp.Add(
                compactionList(warehouse.catalog()).child(id(id)), ObjectKind.LEAF, compaction.encode()));
        updateCounters(txn, warehouse.catalog(), counters.withNextCompactionId(id + 1));
        return id;
    }

    /** Every compaction request, in id order. */
    public static List<Compaction> compactions(LakeTransaction txn, String catalog) {
        String query = PathSteps.of(compactionList(catalog)) + "/[" + LakeKeys.OBJ_TYPE + "='"
                + ObjectType.HIVE_COMPACTION.storedName() + "']";
        List<Compaction> found = new ArrayList<>();
        for (CatalogObject row : txn.queryAll(
                QueryRequest.of(query).withResults(ChildKinds.LEAVES).withLimit(QueryRequest.MAX_LIMIT))) {
            found.add(new Compaction(Long.parseLong(row.id()), HiveCompactionEntry.decode(row.value())));
        }
        return found;
    }
}
