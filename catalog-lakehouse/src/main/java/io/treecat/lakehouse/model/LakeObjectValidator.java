package io.treecat.lakehouse.model;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.WriteValidator;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.bson.BsonDocument;

/**
 * Keeps every commit, whichever interface sends it, from leaving a lake object that Iceberg REST or the
 * Hive Metastore cannot read. The native API may still write any path, as the paper's model allows;
 * but an object under a catalog ({@code /<catalog>/…}, where {@code /<catalog>} has
 * {@code obj_type=catalog}) that declares a lake {@link ObjectType} must pass that type's codec, and a
 * catalog, namespace, table or view keeps its type:
 * <ul>
 *   <li>a value of a lake type decodes with its record's codec (fields of the right BSON types);</li>
 *   <li>a table has {@code metadata_location} or {@code hms_table}: one of the interfaces can load it;</li>
 *   <li>an update of a catalog, namespace, table or view keeps its {@code obj_type};</li>
 *   <li>catalogs, namespaces, tables and views are inner objects, never leaves.</li>
 * </ul>
 * A refusal is {@code INVALID_VALUE} naming the path and the field.
 */
public final class LakeObjectValidator implements WriteValidator {
    /** The types whose identity REST and HMS rely on: changing one's type would strand what is below. */
    private static final Set<ObjectType> ANCHORS =
            EnumSet.of(ObjectType.CATALOG, ObjectType.NAMESPACE, ObjectType.TABLE, ObjectType.VIEW);

    @Override
    public void validate(WriteSet writes, Function<ObjectPath, Optional<CatalogObject>> current) {
        Map<String, Boolean> catalogs = new HashMap<>();
        for (WriteOp write : writes.ops()) {
            if (write instanceof WriteOp.Add add) {
                check(add.path(), add.kind(), add.value(), false, writes, current, catalogs);
            } else if (write instanceof WriteOp.Update update) {
                check(update.path(), update.kind(), update.value(), true, writes, current, catalogs);
            }
        }
    }

    private static void check(
            ObjectPath path,
            ObjectKind kind,
            BsonDocument value,
            boolean mayExist,
            WriteSet writes,
            Function<ObjectPath, Optional<CatalogObject>> current,
            Map<String, Boolean> catalogs) {
        if (path.ids().isEmpty()) {
            return;
        }
        Optional<ObjectType> type = ObjectType.of(value);
        boolean underCatalog = path.ids().size() == 1
                ? type.orElse(null) == ObjectType.CATALOG
                : catalogs.computeIfAbsent(path.ids().get(0), id -> isCatalog(ObjectPath.of(id), writes, current));
        if (!underCatalog) {
            return;
        }
        try {
            if (type.isPresent()) {
                if (kind == ObjectKind.LEAF && ANCHORS.contains(type.get())) {
                    throw new CatalogException(
                                    ErrorCode.INVALID_VALUE,
                                    "A " + type.get().storedName() + " must be an inner object, not a leaf")
                            .with("field", LakeKeys.OBJ_TYPE);
                }
                decode(type.get(), value);
            }
            if (mayExist && kind == ObjectKind.INNER && !isIndexType(type)) {
                Optional<ObjectType> before = current.apply(path).flatMap(object -> ObjectType.of(object.value()));
                if (before.isPresent() && ANCHORS.contains(before.get()) && !before.equals(type)) {
                    throw new CatalogException(
                                    ErrorCode.INVALID_VALUE,
                                    "A " + before.get().storedName() + " cannot change its " + LakeKeys.OBJ_TYPE
                                            + " (to "
                                            + type.map(ObjectType::storedName).orElse("none") + "); drop it first")
                            .with("field", LakeKeys.OBJ_TYPE);
                }
            }
        } catch (CatalogException e) {
            throw e.code() == ErrorCode.INVALID_VALUE ? withPath(e, path) : e;
        }
    }

    /** Partitions, files and index nodes are written by the hundred per commit and never change type: no read for them. */
    private static boolean isIndexType(Optional<ObjectType> type) {
        return type.isPresent() && !ANCHORS.contains(type.get());
    }

    private static void decode(ObjectType type, BsonDocument value) {
        switch (type) {
            case CATALOG -> CatalogEntry.decode(value);
            case NAMESPACE -> NamespaceEntry.decode(value);
            case TABLE -> {
                TableEntry table = TableEntry.decode(value);
                if (table.metadataLocation() == null && table.hiveTable() == null) {
                    throw Fields.missing(
                            type,
                            LakeKeys.METADATA_LOCATION,
                            "(or " + LakeKeys.HMS_TABLE + "): without either no interface can load the table");
                }
            }
            case VIEW -> ViewEntry.decode(value);
            case PARTITION -> PartitionEntry.check(value);
            case PARTITION_EVENTS -> PartitionEventsEntry.decode(value);
            case HIVE_TRANSACTIONS -> HiveTransactionsEntry.decode(value);
            case HIVE_TRANSACTION -> HiveTransactionEntry.decode(value);
            case HIVE_COMPACTION -> HiveCompactionEntry.decode(value);
            case HIVE_WRITE_IDS -> HiveWriteIdsEntry.decode(value);
            case HIVE_WRITE_ID -> HiveWriteIdEntry.decode(value);
            case FILE, FILE_INDEX, FUNCTIONS, FUNCTION, HIVE_TRANSACTION_LIST -> {
                // Written by one interface only, which owns their layout.
            }
        }
    }

    private static boolean isCatalog(
            ObjectPath root, WriteSet writes, Function<ObjectPath, Optional<CatalogObject>> current) {
        for (WriteOp write : writes.ops()) {
            if (write instanceof WriteOp.Add add && add.path().equals(root)) {
                return ObjectType.of(add.value()).orElse(null) == ObjectType.CATALOG;
            }
            if (write instanceof WriteOp.Update update && update.path().equals(root)) {
                return ObjectType.of(update.value()).orElse(null) == ObjectType.CATALOG;
            }
        }
        return ObjectType.CATALOG.isTypeOf(current.apply(root));
    }

    private static CatalogException withPath(CatalogException e, ObjectPath path) {
        CatalogException located = new CatalogException(e.code(), e.getMessage() + " at " + path, e);
        e.context().forEach(located::with);
        return located.with("path", path);
    }
}
