package io.treecat.lakehouse.catalog;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PurgeEntry;
import io.treecat.lakehouse.model.PurgeQueueEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The tables whose files are still to be deleted after a drop with purge: a queue per catalog,
 *
 * <pre>
 * /&lt;catalog&gt;/.purges                 {@link PurgeQueueEntry}
 * /&lt;catalog&gt;/.purges/&lt;id&gt;            {@link PurgeEntry} (inner: a failed attempt updates it)
 * </pre>
 *
 * The id is the time asked for (13 digits of ms) and a random part, so the queue lists in request order and two
 * drops at once never take the same id. The drop stages its purge in its own transaction, so the purge exists
 * exactly when the drop committed; {@code io.treecat.lakehouse.maintenance.TablePurger} works through the queues.
 */
public final class TablePurges {
    private TablePurges() {}

    /** A queued purge and where it is. */
    public record Purge(String catalog, ObjectPath path, PurgeEntry entry) {}

    public static ObjectPath queue(String catalog) {
        return ObjectPath.of(catalog, LakeKeys.PURGE_QUEUE_ID);
    }

    /** Stages a purge in {@code catalog}'s queue, made if it is the first. */
    public static ObjectPath request(LakeTransaction txn, String catalog, PurgeEntry purge) {
        requireNonNull(purge, "purge is null");
        ObjectPath queue = queue(catalog);
        if (!ObjectType.PURGE_QUEUE.isTypeOf(txn.read(queue))) {
            txn.add(queue, new PurgeQueueEntry());
        }
        ObjectPath path = queue.child(String.format("%013d-%s", purge.requested(), UUID.randomUUID()));
        txn.add(path, purge);
        return path;
    }

    /** Every purge queued in {@code catalog}, oldest first. */
    public static List<Purge> queued(LakeTransaction txn, String catalog) {
        List<Purge> purges = new ArrayList<>();
        for (CatalogObject row : txn.children(queue(catalog), ObjectType.TABLE_PURGE)) {
            purges.add(new Purge(catalog, queue(catalog).child(row.id()), PurgeEntry.decode(row.value())));
        }
        return purges;
    }

    /** Stages the end of a purge whose files are gone. */
    public static void finish(LakeTransaction txn, Purge purge) {
        txn.remove(purge.path());
    }

    /** Stages a purge's state after a failed or deferred attempt. */
    public static void update(LakeTransaction txn, Purge purge, PurgeEntry updated) {
        txn.update(purge.path(), updated);
    }
}
