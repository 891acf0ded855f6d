package io.treecat.hms;

import io.treecat.lakehouse.model.NamespaceEntry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DatabaseType;
import org.apache.hadoop.hive.metastore.api.PrincipalType;

/**
 * The translation between a Hive {@link Database} and the lake's {@link NamespaceEntry}: a database's
 * description, location and owner are the namespace properties {@link NamespaceEntry#COMMENT},
 * {@link NamespaceEntry#LOCATION}, {@link NamespaceEntry#OWNER_NAME} and {@link NamespaceEntry#OWNER_TYPE}
 * (Iceberg's HiveCatalog keys), its parameters the other properties, so the Iceberg REST side reads
 * the same namespace.
 */
final class HmsDatabases {
    private HmsDatabases() {}

    /** The Hive database a namespace stands for; {@code defaultLocation} when it keeps none. */
    static Database database(String db, NamespaceEntry entry, String defaultLocation) {
        Map<String, String> parameters = new LinkedHashMap<>(entry.properties());
        Database database = new Database();
        database.setName(db);
        database.setCatalogName(HmsNames.HIVE_CATALOG);
        database.setType(DatabaseType.NATIVE);
        database.setDescription(parameters.remove(NamespaceEntry.COMMENT));
        String location = parameters.remove(NamespaceEntry.LOCATION);
        database.setLocationUri(location != null ? location : defaultLocation);
        String owner = parameters.remove(NamespaceEntry.OWNER_NAME);
        if (owner != null) {
            database.setOwnerName(owner);
        }
        String ownerType = parameters.remove(NamespaceEntry.OWNER_TYPE);
        if (ownerType != null) { // valueOf throws on an unknown type, as before
            database.setOwnerType(PrincipalType.valueOf(ownerType));
        }
        database.setParameters(parameters);
        return database;
    }

    /** The namespace properties of {@code database}, placed at {@code location}. */
    static Map<String, String> properties(Database database, String location) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (database.getParameters() != null) {
            properties.putAll(database.getParameters());
        }
        if (database.getDescription() != null) {
            properties.put(NamespaceEntry.COMMENT, database.getDescription());
        }
        properties.put(NamespaceEntry.LOCATION, location);
        if (database.getOwnerName() != null) {
            properties.put(NamespaceEntry.OWNER_NAME, database.getOwnerName());
        }
        if (database.getOwnerType() != null) {
            properties.put(NamespaceEntry.OWNER_TYPE, database.getOwnerType().name());
        }
        return properties;
    }
}
