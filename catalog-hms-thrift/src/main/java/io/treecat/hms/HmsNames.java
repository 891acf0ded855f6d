package io.treecat.hms;

import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;

/**
 * Hive's names: Hive 3/4 clients send the catalog inside the database name as {@code @cat#db}
 * ({@code @cat#} alone: no database, for patterns; {@code !} stands for the empty name). Hive's
 * catalog {@code hive} (its default) and the configured TreeCat catalog's own name are the one
 * catalog served; any other is not found. Database and table names are lower-cased, as Hive does.
 */
final class HmsNames {
    static final String HIVE_CATALOG = "hive";

    private final String catalog;

    HmsNames(String catalog) {
        this.catalog = catalog;
    }

    /** A database name in any client's form, without its catalog; null for "@cat#" (no database). */
    String database(String name) throws NoSuchObjectException {
        if (name == null) {
            return null;
        }
        if (name.startsWith("@")) {
            int separator = name.indexOf('#');
            String cat = separator < 0 ? name.substring(1) : name.substring(1, separator);
            checkCatalog(cat);
            String db = separator < 0 ? "" : name.substring(separator + 1);
            if (db.equals("!")) {
                return "";
            }
            return db.isEmpty() ? null : normalize(db);
        }
        return normalize(name);
    }

    /** Checks a catalog name a request carries (null: the default). */
    void checkCatalog(String cat) throws NoSuchObjectException {
        if (cat != null && !cat.isEmpty() && !cat.equalsIgnoreCase(HIVE_CATALOG) && !cat.equals(catalog)) {
            throw new NoSuchObjectException("Catalog " + cat + " does not exist; this metastore serves '" + HIVE_CATALOG
                    + "' (TreeCat catalog '" + catalog + "')");
        }
    }

    /** The longest name a tree id holds (UTF-8 bytes): a longer one names nothing that can exist. */
    static final int MAX_NAME_BYTES = 4096;

    /** Whether {@code name} can name a stored database or table (not longer than a tree id). */
    static boolean fits(String name) {
        return name.length() <= MAX_NAME_BYTES / 4
                || name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= MAX_NAME_BYTES;
    }

    static String normalize(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /**
     * Hive's name pattern: alternatives separated by {@code |}, {@code *} for any run of characters,
     * case-insensitive. Null, empty or {@code *} match everything.
     */
    static Pattern pattern(String pattern) {
        if (pattern == null || pattern.isEmpty() || pattern.equals("*")) {
            return Pattern.compile(".*", Pattern.DOTALL);
        }
        StringBuilder regex = new StringBuilder();
        for (String alternative : pattern.split("\\|")) {
            if (regex.length() > 0) {
                regex.append('|');
            }
            String[] parts = alternative.trim().split("\\*", -1);
            regex.append("(?:");
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) {
                    regex.append(".*");
                }
                regex.append(Pattern.quote(parts[i]));
            }
            regex.append(')');
        }
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    }
}
