package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.WriteValidator;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.storage.Warehouses;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonValue;

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
 *
 * <p>It also holds the lake's rules on names and locations for every writer, so an adapter that stages
 * lake objects itself (the HMS, the native API) cannot bypass what the lake operations check before
 * their transactions:
 * <ul>
 *   <li>a new catalog, namespace, table or view has a name {@link LakeNames} accepts
 *       ({@code INVALID_NAME});</li>
 *   <li>a location such an object declares when it is made, or that an update changes (a catalog's,
 *       a namespace's {@code location} property, a table's or view's {@code location} and
 *       {@code metadata_location}), passes its catalog's {@link io.treecat.lakehouse.storage.Warehouse#check}: no {@code .} or
 *       {@code ..} segment, and inside the warehouse unless external locations are allowed
 *       ({@code INVALID_LOCATION}).</li>
 * </ul>
 * Objects that exist keep their names and locations: only what a commit makes or changes is checked.
 */
public final class LakeObjectValidator implements WriteValidator {
    /** The types whose identity REST and HMS rely on: changing one's type would strand what is below. */
    private static final Set<ObjectType> ANCHORS =
            EnumSet.of(ObjectType.CATALOG, ObjectType.NAMESPACE, ObjectType.TABLE, ObjectType.VIEW);

    private final LakeNames names;
    /** Each catalog's warehouse, for the location rule; null: only what no warehouse can hold is refused. */
    private final Warehouses warehouses;

    /** The default name rule; locations checked for what no warehouse can hold (a dot segment). */
    public LakeObjectValidator() {
        this(LakeNames.DEFAULT, null);
    }

    public LakeObjectValidator(LakeNames names, Warehouses warehouses) {
        this.names = requireNonNull(names, "names is null");
        this.warehouses = warehouses;
    }

    /**
     * The areas beside the catalogs that only TreeCat's own operations write: built-in principals and their secrets'
     * hashes ({@code /.system}), and the idempotency records a repeated REST request is answered from.
     */
    public static final Set<String> PROTECTED_AREAS = Set.of(LakeKeys.SYSTEM_ID, LakeKeys.IDEMPOTENCY_KEYS_ID);

    /**
     * The commit origins of the native API (its commits, transactions, clones and bulk loads, over HTTP and gRPC):
     * no native client names its own origin, so these are exactly the writes a caller composed path by path.
     */
    private static final Set<String> NATIVE_INTERFACES =
            Set.of(CommitOrigin.NATIVE.interfaceName(), CommitOrigin.LOAD_CHUNK.interfaceName());

    @Override
    public void validate(WriteSet writes, Function<ObjectPath, Optional<CatalogObject>> current) {
        if (NATIVE_INTERFACES.contains(writes.origin().interfaceName())) {
            refuseProtectedAreas(writes);
        }
        Map<String, Boolean> catalogs = new HashMap<>();
        for (WriteOp write : writes.ops()) {
            if (write instanceof WriteOp.Add add) {
                check(add.path(), add.kind(), add.value(), false, writes, current, catalogs);
            } else if (write instanceof WriteOp.Update update) {
                check(update.path(), update.kind(), update.value(), true, writes, current, catalogs);
            }
        }
    }

    /**
     * Refuses a native write set that would write, remove, clone into or copy out of a protected area: a forged
     * principal or idempotency record would let a caller in as someone else or answer another client's request, and a
     * clone of {@code /.system} would copy the secrets' hashes where anyone may read them.
     */
    private static void refuseProtectedAreas(WriteSet writes) {
        for (WriteOp write : writes.ops()) {
            ObjectPath target = write.path();
            if (isProtected(target)) {
                throw protectedArea(target);
            }
            if (write instanceof WriteOp.Clone clone && isProtected(clone.source())) {
                throw protectedArea(clone.source());
            }
        }
    }

    private static boolean isProtected(ObjectPath path) {
        return !path.ids().isEmpty() && PROTECTED_AREAS.contains(path.ids().get(0));
    }

    private static CatalogException protectedArea(ObjectPath path) {
        return new CatalogException(
                        ErrorCode.INVALID_PATH,
                        "The path is in an area only TreeCat itself writes; use its own API (principals: "
                                + "/treecat/v1/principals)")
                .with("path", path.toString())
                .with("area", "/" + path.ids().get(0));
    }

    private void check(
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
            Optional<CatalogObject> existing = Optional.empty();
            if (mayExist && kind == ObjectKind.INNER && !isIndexType(type)) {
                existing = current.apply(path);
                Optional<ObjectType> before = existing.flatMap(object -> ObjectType.of(object.value()));
                if (before.isPresent() && ANCHORS.contains(before.get()) && !before.equals(type)) {
                    throw new CatalogException(
                                    ErrorCode.INVALID_VALUE,
                                    "A " + before.get().storedName() + " cannot change its " + LakeKeys.OBJ_TYPE
                                            + " (to "
                                            + type.map(ObjectType::storedName).orElse("none") + "); drop it first")
                            .with("field", LakeKeys.OBJ_TYPE);
                }
            }
            if (type.isPresent() && ANCHORS.contains(type.get())) {
                if (existing.isEmpty()) {
                    names.check(kind(type.get()), path.id());
                }
                checkLocations(path, type.get(), value, existing);
            }
        } catch (CatalogException e) {
            throw withPath(e, path);
        }
    }

    /** Partitions, files and index nodes are written by the hundred per commit and never change type: no read for them. */
    private static boolean isIndexType(Optional<ObjectType> type) {
        return type.isPresent() && !ANCHORS.contains(type.get());
    }

    private static void decode(ObjectType type, BsonDocument value) {
        switch (type) {
            case CATALOG -> {
                CatalogEntry catalog = CatalogEntry.decode(value);
                if (catalog.storage() != null) {
                    // Whatever can be checked without the server's environment: the scheme, no inline secret.
                    catalog.storage().checkStored();
                }
            }
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
            case TABLE_PURGE -> PurgeEntry.decode(value);
            case HIVE_EVENT_CHECKPOINT -> HiveEventCheckpointEntry.decode(value);
            case HIVE_LOCKS -> HiveLocksEntry.decode(value);
            case HIVE_LOCK -> HiveLockEntry.decode(value);
            case IDEMPOTENCY_KEY -> IdempotencyKeyEntry.decode(value);
            case PRINCIPAL -> PrincipalEntry.decode(value);
            case GRANTS_AREA -> GrantsAreaEntry.decode(value);
            case ROLE -> RoleEntry.decode(value);
            case ROLE_MEMBER -> RoleMemberEntry.decode(value);
            case GRANT -> GrantEntry.decode(value);
            case FILE,
                    FILE_INDEX,
                    FUNCTIONS,
                    FUNCTION,
                    HIVE_TRANSACTION_LIST,
                    PURGE_QUEUE,
                    IDEMPOTENCY_KEYS,
                    SYSTEM_AREA -> {
                // Written by one interface only, which owns their layout.
            }
        }
    }

    /**
     * Checks each location an anchor's value declares (a catalog's {@code location}, a namespace's
     * {@code location} property, a table's or view's {@code location} and {@code metadata_location}) that
     * is new or differs from the one {@code existing} holds. Read from the stored fields directly (the
     * value passed its codec already), so an update does not decode the object it replaces.
     */
    private void checkLocations(
            ObjectPath path, ObjectType type, BsonDocument value, Optional<CatalogObject> existing) {
        BsonDocument before =
                existing.filter(type::isTypeOf).map(CatalogObject::value).orElse(null);
        List<String> fields = type == ObjectType.TABLE || type == ObjectType.VIEW
                ? List.of(LakeKeys.LOCATION, LakeKeys.METADATA_LOCATION)
                : List.of(LakeKeys.LOCATION);
        for (String field : fields) {
            String location = location(type, value, field);
            if (location == null || (before != null && location.equals(location(type, before, field)))) {
                continue;
            }
            if (warehouses == null || (type == ObjectType.CATALOG && value.containsKey(LakeKeys.STORAGE))) {
                // A catalog with its own warehouse: its location is that warehouse, inside no other.
                Locations.checkPlaceable(location, field);
            } else {
                warehouses.forCatalog(path.ids().get(0)).check(location, field);
            }
        }
    }

    /** A location field of a stored value (a namespace keeps its location among its properties); null when absent. */
    private static String location(ObjectType type, BsonDocument value, String field) {
        BsonDocument holder = value;
        if (type == ObjectType.NAMESPACE) {
            BsonValue properties = value.get(LakeKeys.PROPERTIES);
            if (properties == null || !properties.isDocument()) {
                return null;
            }
            holder = properties.asDocument();
        }
        BsonValue location = holder.get(field);
        return location != null && location.isString() ? location.asString().getValue() : null;
    }

    private static String kind(ObjectType type) {
        return switch (type) {
            case CATALOG -> LakeNames.CATALOG;
            case NAMESPACE -> LakeNames.NAMESPACE;
            case TABLE -> LakeNames.TABLE;
            default -> LakeNames.VIEW;
        };
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
        if (e.code() != ErrorCode.INVALID_VALUE) {
            // A name or location refusal names the object by kind and field, never the path (it holds the name).
            return e;
        }
        CatalogException located = new CatalogException(e.code(), e.getMessage() + " at " + path, e);
        e.context().forEach(located::with);
        return located.with("path", path);
    }
}
