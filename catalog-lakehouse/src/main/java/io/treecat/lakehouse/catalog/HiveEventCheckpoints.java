package io.treecat.lakehouse.catalog;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.version.ChildKinds;
import io.treecat.lakehouse.model.HiveEventCheckpointEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Hive notification log's durable id index in the tree: checkpoints of how many Hive events the commits before
 * a vid made ({@link HiveEventCheckpointEntry}). The layout:
 *
 * <pre>
 * /&lt;catalog&gt;/.hive_events          the newest checkpoint
 * /&lt;catalog&gt;/.hive_events/&lt;vid&gt;    every checkpoint still useful, by vid (20 digits, so id order is vid order)
 * </pre>
 *
 * In the tree, beside the HMS catalog's databases (as its Hive transactions are, {@link HiveTransactions}), so it is
 * written in the same atomic commits as everything else, read at any vid, and replicated with the tree. Saving
 * reads the newest checkpoint through the caller's transaction: two writers saving at once conflict, and the one
 * that runs again finds the other's checkpoint.
 */
public final class HiveEventCheckpoints {
    /** The most obsolete checkpoints one save removes; the next save removes more. */
    public static final int MAX_REMOVED = 256;

    private HiveEventCheckpoints() {}

    public static ObjectPath root(String catalog) {
        return ObjectPath.of(catalog, LakeKeys.HIVE_EVENTS_ID);
    }

    /** The newest checkpoint of {@code catalog}, if one was ever saved. */
    public static Optional<HiveEventCheckpointEntry> newest(LakeTransaction txn, String catalog) {
        Optional<CatalogObject> object = txn.read(root(catalog));
        return ObjectType.HIVE_EVENT_CHECKPOINT.isTypeOf(object)
                ? Optional.of(HiveEventCheckpointEntry.decode(object.get().value()))
                : Optional.empty();
    }

    /** Every checkpoint kept, in vid order. */
    public static List<HiveEventCheckpointEntry> all(LakeTransaction txn, String catalog) {
        List<HiveEventCheckpointEntry> found = new ArrayList<>();
        for (CatalogObject row : txn.children(root(catalog), ObjectType.HIVE_EVENT_CHECKPOINT)) {
            found.add(HiveEventCheckpointEntry.decode(row.value()));
        }
        return found;
    }

    /**
     * Stages {@code checkpoint} as the newest (which the caller found older or absent through {@code txn}) and as a
     * child, and removes up to {@link #MAX_REMOVED} children with vids up to {@code obsoleteUpTo}: checkpoints whose
     * commits retention has made unreadable.
     */
    public static void save(
            LakeTransaction txn, Warehouse warehouse, HiveEventCheckpointEntry checkpoint, long obsoleteUpTo) {
        requireNonNull(checkpoint, "checkpoint is null");
        String catalog = warehouse.catalog();
        if (newest(txn, catalog).isEmpty()) {
            Catalogs.ensure(txn, warehouse);
            txn.add(root(catalog), checkpoint);
        } else {
            txn.update(root(catalog), checkpoint);
        }
        long upTo = Math.min(obsoleteUpTo, checkpoint.vid() - 1);
        if (upTo >= 1) {
            String query = PathSteps.of(root(catalog)) + "/[obj_id <= " + PathSteps.literal(HiveTransactions.id(upTo))
                    + " and " + LakeKeys.OBJ_TYPE + "='" + ObjectType.HIVE_EVENT_CHECKPOINT.storedName() + "']";
            for (CatalogObject row : txn.query(QueryRequest.of(query)
                            .withResults(ChildKinds.INNER)
                            .withProjection(List.of(LakeKeys.OBJ_TYPE))
                            .withLimit(MAX_REMOVED))
                    .rows()) {
                txn.remove(row.path());
            }
        }
        txn.add(root(catalog).child(HiveTransactions.id(checkpoint.vid())), checkpoint);
    }
}
