package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * A catalog: {@code /<catalog>}, the root of one Iceberg REST prefix and of the HMS catalog. It holds
 * its warehouse location, where namespaces' and tables' default locations go.
 *
 * @param location the warehouse location of this catalog, or null when it was made without one
 * @param others fields no interface declares (a native user's annotations), kept as they are
 */
public record CatalogEntry(String location, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.LOCATION);

    public CatalogEntry {
        others = requireNonNull(others, "others is null").clone();
    }

    public static CatalogEntry of(String location) {
        return new CatalogEntry(requireNonNull(location, "location is null"), new BsonDocument());
    }

    public static CatalogEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        Fields.requireType(value, ObjectType.CATALOG);
        return new CatalogEntry(
                Fields.string(value, LakeKeys.LOCATION, ObjectType.CATALOG), Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.CATALOG).string(LakeKeys.LOCATION, location).with(others);
    }
}
