package io.treecat.lakehouse.catalog;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.lakehouse.model.HiveLockEntry;
import io.treecat.lakehouse.model.HiveLocksEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Hive's lock table in the tree (Hive keeps it in its database, {@code HIVE_LOCKS} and {@code NEXT_LOCK_ID}), so
 * that a lock outlives a restart of the server as it outlives one of Hive's metastore. The layout:
 *
 * <pre>
 * /&lt;catalog&gt;/.hive_locks          {@link HiveLocksEntry}: the next lock id
 * /&lt;catalog&gt;/.hive_locks/&lt;id&gt;     {@link HiveLockEntry} (inner: heartbeats and grants change it)
 * </pre>
 *
 * Ids are 20-digit zero-padded decimals (as {@link HiveTransactions}'), so that the children's order is id order,
 * the order the HMS interface judges conflicts in. The area lives under the HMS catalog beside its databases (a Hive
 * database name never starts with a dot). The counter moves in the commit that takes the lock, and every read goes
 * through the caller's transaction: two servers (or threads) taking locks at once both read the table, so the later
 * commit fails validation and the runner runs it again against what the first granted.
 */
public final class HiveLocks {
    private HiveLocks() {}

    /** A lock and its id. */
    public record Lock(long id, HiveLockEntry entry) {
        public Lock {
            requireNonNull(entry, "entry is null");
        }
    }

    public static ObjectPath root(String catalog) {
        return ObjectPath.of(catalog, LakeKeys.HIVE_LOCKS_ID);
    }

    private static ObjectPath lockPath(String catalog, long id) {
        return root(catalog).child(HiveTransactions.id(id));
    }

    /** The counter, if a lock was ever taken in {@code catalog}. */
    public static Optional<HiveLocksEntry> counter(LakeTransaction txn, String catalog) {
        Optional<CatalogObject> object = txn.read(root(catalog));
        return ObjectType.HIVE_LOCKS.isTypeOf(object)
                ? Optional.of(HiveLocksEntry.decode(object.get().value()))
                : Optional.empty();
    }

    /** Every lock, in id order. */
    public static List<Lock> all(LakeTransaction txn, String catalog) {
        List<Lock> locks = new ArrayList<>();
        for (CatalogObject row : txn.children(root(catalog), ObjectType.HIVE_LOCK)) {
            locks.add(new Lock(Long.parseLong(row.id()), HiveLockEntry.decode(row.value())));
        }
        return locks;
    }

    /**
     * The locks of Hive transaction {@code txnId}, in id order. Read by a predicate on the transaction id, so the
     * commit of one transaction does not conflict with locks other clients take meanwhile.
     */
    public static List<Lock> ofTransaction(LakeTransaction txn, String catalog, long txnId) {
        List<Lock> locks = new ArrayList<>();
        if (counter(txn, catalog).isEmpty()) {
            return locks;
        }
        String query = PathSteps.of(root(catalog)) + "/[" + LakeKeys.OBJ_TYPE + "='" + ObjectType.HIVE_LOCK.storedName()
                + "' and " + LakeKeys.TXN_ID + " = " + txnId + "]";
        for (CatalogObject row : txn.queryAll(QueryRequest.of(query).withLimit(QueryRequest.MAX_LIMIT))) {
            locks.add(new Lock(Long.parseLong(row.id()), HiveLockEntry.decode(row.value())));
        }
        return locks;
    }

    /** Stages a new lock like {@code entry}; answers its id, never handed out before. */
    public static long add(LakeTransaction txn, Warehouse warehouse, HiveLockEntry entry) {
        String catalog = warehouse.catalog();
        Optional<HiveLocksEntry> counter = counter(txn, catalog);
        HiveLocksEntry current = counter.orElse(HiveLocksEntry.initial());
        long id = current.nextLockId();
        if (counter.isEmpty()) {
            Catalogs.ensure(txn, warehouse);
            txn.add(root(catalog), current.withNextLockId(id + 1));
        } else {
            txn.update(root(catalog), current.withNextLockId(id + 1));
        }
        txn.add(lockPath(catalog, id), entry);
        return id;
    }

    /** Stages {@code entry} as lock {@code id}'s new state. */
    public static void update(LakeTransaction txn, String catalog, long id, HiveLockEntry entry) {
        txn.update(lockPath(catalog, id), entry);
    }

    /** Stages the release of lock {@code id}. */
    public static void remove(LakeTransaction txn, String catalog, long id) {
        txn.remove(lockPath(catalog, id));
    }
}
