package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

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
 * @param others fields no interface declares (a native user's annotations), kept as they are
 */
public record CatalogEntry(String location, String description, String hmsMetastoreUuid, BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED =
            Set.of(LakeKeys.OBJ_TYPE, LakeKeys.LOCATION, LakeKeys.DESCRIPTION, LakeKeys.HMS_METASTORE_UUID);

    public CatalogEntry {
        others = requireNonNull(others, "others is null").clone();
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
                Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.CATALOG)
                .string(LakeKeys.LOCATION, location)
                .string(LakeKeys.DESCRIPTION, description)
                .string(LakeKeys.HMS_METASTORE_UUID, hmsMetastoreUuid)
                .with(others);
    }

    /** This catalog with another location and description, its other fields kept. */
    public CatalogEntry withLocationAndDescription(String newLocation, String newDescription) {
        return new CatalogEntry(newLocation, newDescription, hmsMetastoreUuid, others);
    }

    /** This catalog carrying the Hive Metastore's database id. */
    public CatalogEntry withHmsMetastoreUuid(String uuid) {
        return new CatalogEntry(location, description, requireNonNull(uuid, "uuid is null"), others);
    }
}
