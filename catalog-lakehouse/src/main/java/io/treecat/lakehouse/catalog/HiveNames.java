package io.treecat.lakehouse.catalog;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.model.LakeNames;

/**
 * Hive's own rule for a new database name, on top of the lake's ({@link LakeNames}, which every
 * writer passes at commit): Hive's metastore refuses a database whose name is not made of ASCII
 * letters, digits and {@code _} ({@code MetaStoreUtils.validateName} without its special characters,
 * as {@code create_database} calls it), so a Hive client never meets a database it could not have
 * made, and a database name never holds a path separator.
 */
public final class HiveNames {
    private HiveNames() {}

    /**
     * Checks a new Hive database name.
     *
     * @throws CatalogException {@code INVALID_NAME} with Hive's message ({@code <name> is not a valid
     *     database name}), its context the {@code kind} ({@code database}) and the {@code name}
     */
    public static void checkDatabase(String name) {
        if (!isHiveName(name)) {
            String shown = LakeNames.printable(name == null ? "" : name);
            throw new CatalogException(ErrorCode.INVALID_NAME, shown + " is not a valid database name")
                    .with("kind", "database")
                    .with("name", shown);
        }
    }

    /** Whether {@code name} is one or more of {@code [A-Za-z0-9_]}: Hive's {@code [\w_]+}. */
    static boolean isHiveName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            if (!word) {
                return false;
            }
        }
        return true;
    }
}
