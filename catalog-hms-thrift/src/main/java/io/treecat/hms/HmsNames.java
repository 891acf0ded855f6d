package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;

/**
 * Hive's names: Hive 3/4 clients send the catalog inside the database name as {@code @cat#db}
 * ({@code @cat#} alone: no database, for patterns; {@code !} stands for the empty name) or in a request's
 * {@code catName}. An HMS catalog {@code c} is the TreeCat catalog {@code /c}, except Hive's default
 * catalog {@code hive}, which is the configured one ({@code hms.default-catalog}); that catalog's TreeCat
 * name means it too. Catalog, database and table names are lower-cased, as Hive does.
 *
 * <p>One instance names what one call acts in: the TreeCat catalog {@link #catalog()} (the dispatcher
 * picks it from the call's arguments, {@link HmsCallCatalog}).
 */
final class HmsNames {
    static final String HIVE_CATALOG = "hive";

    private final String defaultCatalog;
    private final String catalog;

    /** The names of the default catalog: the TreeCat catalog Hive's {@code hive} is. */
    HmsNames(String defaultCatalog) {
        this(defaultCatalog, defaultCatalog);
    }

    private HmsNames(String defaultCatalog, String catalog) {
        this.defaultCatalog = requireNonNull(defaultCatalog, "defaultCatalog is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    /** The names of another TreeCat catalog of the same server. */
    HmsNames in(String treecatCatalog) {
        return new HmsNames(defaultCatalog, treecatCatalog);
    }

    /** The TreeCat catalog these names are in. */
    String catalog() {
        return catalog;
    }

    /** Whether these names are in the catalog Hive calls {@code hive}. */
    boolean isDefaultCatalog() {
        return catalog.equals(defaultCatalog);
    }

    /** The catalog's name for Hive clients: {@code hive}, or the TreeCat name. */
    String hmsCatalog() {
        return hmsName(catalog);
    }

    String hmsName(String treecatCatalog) {
        return treecatCatalog.equals(defaultCatalog) ? HIVE_CATALOG : treecatCatalog;
    }

    /** The TreeCat catalog an HMS catalog name stands for; null for a name that names none (null or empty). */
    String treecatCatalog(String hmsName) {
        if (hmsName == null || hmsName.isEmpty()) {
            return null;
        }
        String lower = normalize(hmsName);
        return lower.equals(HIVE_CATALOG) || hmsName.equals(defaultCatalog) || lower.equals(defaultCatalog)
                ? defaultCatalog
                : lower;
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

    /** The catalog part of an {@code @cat#db} name; null for a name without one. */
    static String catalogOf(String name) {
        if (name == null || !name.startsWith("@")) {
            return null;
        }
        int separator = name.indexOf('#');
        return separator < 0 ? name.substring(1) : name.substring(1, separator);
    }

    /** Checks a catalog name a request carries (null or empty: the call's catalog). */
    void checkCatalog(String cat) throws NoSuchObjectException {
        String named = treecatCatalog(cat);
        if (named != null && !named.equals(catalog)) {
            throw new NoSuchObjectException(
                    "Catalog " + cat + " is not the catalog this call acts in (" + hmsCatalog() + ")");
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
