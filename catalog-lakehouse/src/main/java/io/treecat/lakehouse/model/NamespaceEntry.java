package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * A namespace: {@code /<catalog>/<ns>[/<ns>…]}. An Iceberg namespace's properties; for a Hive
 * database (a first-level namespace) the same map holds its {@code comment}, {@code location}, owner
 * and parameters ({@link #COMMENT}, {@link #OWNER_NAME}, {@link #OWNER_TYPE}), as Iceberg's own
 * HiveCatalog maps a database to namespace properties.
 *
 * @param properties string properties, in insertion order
 * @param others fields no interface declares, kept as they are
 */
public record NamespaceEntry(Map<String, String> properties, BsonDocument others) implements LakeObject {
    /** The property a Hive database's description is kept in (Iceberg's HiveCatalog uses the same). */
    public static final String COMMENT = "comment";
    /** The property holding a namespace's location, when one was given. */
    public static final String LOCATION = LakeKeys.LOCATION;

    public static final String OWNER_NAME = "hive.metastore.database.owner";
    public static final String OWNER_TYPE = "hive.metastore.database.owner-type";

    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.PROPERTIES);

    public NamespaceEntry {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(properties, "properties is null")));
        others = requireNonNull(others, "others is null").clone();
    }

    public static NamespaceEntry of(Map<String, String> properties) {
        return new NamespaceEntry(properties, new BsonDocument());
    }

    public static NamespaceEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        Fields.requireType(value, ObjectType.NAMESPACE);
        return new NamespaceEntry(
                Fields.stringMap(value, LakeKeys.PROPERTIES, ObjectType.NAMESPACE), Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.NAMESPACE)
                .stringMap(LakeKeys.PROPERTIES, properties)
                .with(others);
    }

    /** This namespace with other properties, its other fields kept. */
    public NamespaceEntry withProperties(Map<String, String> replaced) {
        return new NamespaceEntry(replaced, others);
    }
}
