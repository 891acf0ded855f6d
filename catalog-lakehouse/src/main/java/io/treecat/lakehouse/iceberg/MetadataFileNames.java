package io.treecat.lakehouse.iceberg;

import java.util.UUID;

/**
 * Names of table and view metadata files as Iceberg's own catalogs name them
 * ({@code BaseMetastoreTableOperations}, {@code BaseViewOperations}):
 * {@code <directory>/<version>-<uuid>.metadata.json}, the version the previous file's plus one,
 * zero-padded to five digits and growing past them. Tools that take the newest file by its number
 * (and Iceberg's own {@code parseVersion}) rely on it counting on for ever; the table's metadata log
 * ({@code previous-files}) is capped, so it cannot be the count.
 */
final class MetadataFileNames {
    private MetadataFileNames() {}

    /**
     * The location of the file that follows {@code previousLocation} (null for the first one) in
     * {@code directory} (without a trailing slash).
     */
    static String next(String directory, String previousLocation) {
        int version = previousLocation == null ? 0 : version(previousLocation) + 1;
        return String.format("%s/%05d-%s.metadata.json", directory, version, UUID.randomUUID());
    }

    /**
     * The version a metadata file's name starts with: the digits before the first '-' of the last
     * path segment; -1 for a file named otherwise (a registered table's {@code v3.metadata.json}), so
     * that the next file is version 0, as with Iceberg.
     */
    static int version(String metadataLocation) {
        String name = metadataLocation.substring(metadataLocation.lastIndexOf('/') + 1);
        int dash = name.indexOf('-');
        if (dash <= 0) {
            return -1;
        }
        try {
            int version = Integer.parseInt(name.substring(0, dash));
            return version < 0 ? -1 : version;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
