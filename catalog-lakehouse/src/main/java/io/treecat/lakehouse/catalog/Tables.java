package io.treecat.lakehouse.catalog;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Table objects, as every interface reads and changes them. */
public final class Tables {
    private Tables() {}

    /** The table at {@code path}, read in {@code txn}; empty if there is none (or something else is there). */
    public static Optional<TableEntry> find(LakeTransaction txn, ObjectPath path) {
        Optional<CatalogObject> object = txn.read(path);
        return ObjectType.TABLE.isTypeOf(object)
                ? Optional.of(TableEntry.decode(object.get().value()))
                : Optional.empty();
    }

    /** Only the {@link TableEntry.HiveView} of the table at {@code path}, read in {@code txn}: what a Hive read needs. */
    public static Optional<TableEntry.HiveView> findHiveView(LakeTransaction txn, ObjectPath path) {
        return txn.read(path).flatMap(object -> TableEntry.hiveViewOf(object.value()));
    }

    /**
     * The Iceberg metadata-pointer swap, the one compare-and-set behind a REST commit and an HMS
     * {@code alter_table} of an Iceberg table alike: reads the table in {@code txn}, checks that its
     * {@code metadata_location} is {@code expected} (null: the table must have none), and stages the
     * table as {@code change} makes it. The read is part of the transaction, so a swap committed by
     * anyone between this read and the commit fails validation instead of being overwritten.
     *
     * @throws CatalogException {@code TABLE_NOT_FOUND}, or {@code METADATA_LOCATION_MISMATCH} with the actual pointer
     */
    public static TableEntry swapMetadataLocation(
            LakeTransaction txn, ObjectPath path, String expected, UnaryOperator<TableEntry> change) {
        TableEntry current = find(txn, path).orElseThrow(() -> notFound(path));
        if (!Objects.equals(current.metadataLocation(), expected)) {
            throw new CatalogException(ErrorCode.METADATA_LOCATION_MISMATCH, "The table's metadata location has moved")
                    .with("table", path)
                    .with("expected", expected)
                    .with("actual", current.metadataLocation());
        }
        TableEntry next = change.apply(current);
        txn.write(new WriteOp.Update(path, ObjectKind.INNER, next.encode()));
        return next;
    }

    /**
     * Moves a table (or view) with its whole subtree, in {@code txn}: partitions and file leaves are
     * shared, not rewritten. Unless {@code guardedBelow} (a node below that the caller read and
     * rewrites, such as the Iceberg file index), every level below is read first, so a partition added
     * or dropped concurrently conflicts with the move instead of being lost in it.
     */
    public static void move(LakeTransaction txn, ObjectPath from, ObjectPath to, boolean guardedBelow) {
        if (!guardedBelow) {
            txn.scanSubtree(from);
        }
        txn.write(new WriteOp.Clone(from, to, txn.readVid()));
        txn.write(new WriteOp.Remove(from));
    }

    static CatalogException notFound(ObjectPath path) {
        return new CatalogException(ErrorCode.TABLE_NOT_FOUND, "Table does not exist: " + path).with("table", path);
    }
}
