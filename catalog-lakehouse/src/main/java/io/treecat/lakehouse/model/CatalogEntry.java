package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.storage.StorageSettings;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * A catalog: {@code /<catalog>}, the root of one Iceberg REST prefix and of one HMS catalog. It holds
 * its warehouse location, where namespaces' and tables' default locations go.
 *
 * @param location the warehouse location of this catalog, or null when it was made without one
 * @param description what the catalog is for (Hive's {@code Catalog.description}); null when none was given
 * @param hmsMetastoreUuid the Hive Metastore's database id ({@code get_metastore_db_uuid}), made once by the
 *     HMS interface on the catalog it serves as Hive's {@code hive}; null on every other catalog (HMS-owned)
 * @param storage the catalog's own warehouse ({@code location} is then its warehouse location) and its store's
 *     settings, for a catalog added at run time with them (docs/object-storage.md); null for every other catalog,
 *     whose warehouse is configured or {@code <root>/<catalog>}
 * @param others fields no interface declares (a native user's annotations), kept as they are
 */
public record CatalogEntry(
        String location, String description, String hmsMetastoreUuid, StorageSettings storage, BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE, LakeKeys.LOCATION, LakeKeys.DESCRIPTION, LakeKeys.HMS_METASTORE_UUID, LakeKeys.STORAGE);

    public CatalogEntry {
        others = requireNonNull(others, "others is null").clone();
    }

    public CatalogEntry(String location, String description, String hmsMetastoreUuid, BsonDocument others) {
        this(location, description, hmsMetastoreUuid, null, others);
    }

    /** A catalog with its own warehouse: {@code storage}'s location. */
    public static CatalogEntry withStorage(StorageSettings storage, String description) {
        return new CatalogEntry(storage.location(), description, null, storage, new BsonDocument());
    }

    public static CatalogEntry of(String location) {
        return of(location, null);
    }

    public static CatalogEntry of(String location, String description) {
        return new CatalogEntry(requireNonNull(location, "location is null"), description, null, new BsonDocument());
    }

    public static CatalogEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.CATALOG;
        Fields.requireType(value, type);
        return new CatalogEntry(
                Fields.string(value, LakeKeys.LOCATION, type),
                Fields.string(value, LakeKeys.DESCRIPTION, type),
                Fields.string(value, LakeKeys.HMS_METASTORE_UUID, type),
                storage(value, type),
                Fields.others(value, DECLARED));
    }

    private static StorageSettings storage(BsonDocument value, ObjectType type) {
        BsonDocument stored = Fields.document(value, LakeKeys.STORAGE, type);
        return stored == null ? null : StorageSettings.decode(Fields.string(value, LakeKeys.LOCATION, type), stored);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.CATALOG)
                .string(LakeKeys.LOCATION, location)
                .string(LakeKeys.DESCRIPTION, description)
                .string(LakeKeys.HMS_METASTORE_UUID, hmsMetastoreUuid)
                .value(LakeKeys.STORAGE, storage == null ? null : storage.encode())
                .with(others);
    }

    /** This catalog with another location and description, its other fields kept. */
    public CatalogEntry withLocationAndDescription(String newLocation, String newDescription) {
        // A catalog with its own warehouse keeps its warehouse: the new location is only Hive's catalog location.
        return new CatalogEntry(
                storage == null ? newLocation : location, newDescription, hmsMetastoreUuid, storage, others);
    }

    /** This catalog carrying the Hive Metastore's database id. */
    public CatalogEntry withHmsMetastoreUuid(String uuid) {
        return new CatalogEntry(location, description, requireNonNull(uuid, "uuid is null"), storage, others);
    }
}
