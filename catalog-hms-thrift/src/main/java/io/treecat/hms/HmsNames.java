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

    static String normalize(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /**
     * Hive's name pattern: alternatives separated by {@code |}, {@code *} for any run of characters,
     * {@code .} for any one character (Hive hands the pattern to its store as a regular expression with
     * {@code *} made {@code .*}), case-insensitive. Null or {@code *} match everything; the empty pattern
     * matches nothing, as in Hive.
     */
    static Pattern pattern(String pattern) {
        if (pattern == null || pattern.equals("*")) {
            return Pattern.compile(".*", Pattern.DOTALL);
        }
        if (pattern.isEmpty()) {
            return Pattern.compile("(?!)");
        }
        StringBuilder regex = new StringBuilder();
        for (String alternative : pattern.split("\\|")) {
            if (regex.length() > 0) {
                regex.append('|');
            }
            regex.append("(?:");
            StringBuilder literal = new StringBuilder();
            for (char c : alternative.trim().toCharArray()) {
                if (c == '*' || c == '.') {
                    if (literal.length() > 0) {
                        regex.append(Pattern.quote(literal.toString()));
                        literal.setLength(0);
                    }
                    regex.append(c == '*' ? ".*" : ".");
                } else {
                    literal.append(c);
                }
            }
            if (literal.length() > 0) {
                regex.append(Pattern.quote(literal.toString()));
            }
            regex.append(')');
        }
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    }
}
