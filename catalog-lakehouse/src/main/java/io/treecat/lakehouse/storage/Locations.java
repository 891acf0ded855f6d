package io.treecat.lakehouse.storage;

/** Location strings as Iceberg and Hive write them. */
public final class Locations {
    private Locations() {}

    /** {@code location} without trailing slashes (a lone "/" stays). */
    public static String stripSlash(String location) {
        String result = location;
        while (result.endsWith("/") && result.length() > 1) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }
}
