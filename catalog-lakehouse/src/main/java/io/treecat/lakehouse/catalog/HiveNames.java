package io.treecat.lakehouse.catalog;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.model.LakeNames;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Hive's own rules for the names of a new database, table, column and partition key, on top of the lake's
 * ({@link LakeNames}, which every writer passes at commit), so that a Hive client never meets an object it could
 * not have made, and no name becomes a path segment or a partition name that reads back as something else. The
 * rules are Hive 4.0.1's metastore's ({@code HMSHandler.create_table_core}, {@code HiveAlterHandler.alterTable}),
 * plus what Hive's own DDL refuses and its metastore lets through to its store:
 * <ul>
 *   <li>a database: {@code MetaStoreUtils.validateName} without its special characters: one or more ASCII letters,
 *       digits and {@code _}. Hive 4.0.1's {@code create_database} passes its configuration, so under the default
 *       {@code metastore.support.special.characters.tablename=true} it also takes the table-name special characters
 *       ({@code diff db}, {@code a.b}, {@code x/y}); TreeCat does not: a {@code .} makes {@code db.table} ambiguous
 *       for engines, {@code @} and {@code #} clash with the {@code @cat#db} form, a {@code /} is a separator;</li>
 *   <li>a table: {@code validateName} with its special characters, as {@code create_table} calls it under Hive 4's
 *       default {@code metastore.support.special.characters.tablename=true}: ASCII letters, digits and
 *       {@value #TABLE_SPECIALS}; then the lake's rule, which also refuses a {@code .} or {@code ..} part between
 *       slashes (Hive takes {@code ..}, as its default location encodes every special character);</li>
 *   <li>columns: Hive's {@code validateColumnType} (the type's first word one of Hive's types); a column named twice
 *       (case-insensitively, as Hive lower-cases column names) or without a name;</li>
 *   <li>partition keys: the same, and a key that is also a column, or that holds a character a partition name
 *       escapes ({@link Partitions#escape}: {@code =}, {@code /}, {@code %}, {@code :}, control characters …). Hive's
 *       DDL refuses all of these; its metastore stores them, after which the key reads back escaped from every
 *       partition name and filters on it miss partitions.</li>
 * </ul>
 * A refusal is {@code INVALID_NAME} with Hive's message where Hive has one, its context the {@code kind} and the
 * {@code name}; an adapter answers it with the exception its call declares for it.
 */
public final class HiveNames {
    /** Kinds a refusal names (context key {@code kind}). */
    public static final String DATABASE = "database";

    public static final String COLUMN = "column";
    public static final String PARTITION_KEY = "partition key";

    /**
     * The context key {@code problem} of a column or partition key named twice is {@value #NAMED_TWICE}: Hive's
     * metastore answers it with another exception (its store's unique key fails: a MetaException) than the rest.
     */
    public static final String PROBLEM = "problem";

    public static final String NAMED_TWICE = "named twice";

    /** Hive 4.0.1's {@code MetaStoreUtils.SPECIAL_CHARACTERS_IN_TABLE_NAMES}, with {@code \w} what a table name may hold. */
    static final String TABLE_SPECIALS = " \"%&'()*+,-./:;<=>?[]_|{}$^!~#@`";

    /** Hive 4.0.1's {@code ColumnType.AllTypes}: what the first word of a column's type must be. */
    private static final Set<String> HIVE_TYPES = Set.of(
            "void",
            "boolean",
            "tinyint",
            "smallint",
            "int",
            "bigint",
            "float",
            "double",
            "string",
            "char",
            "varchar",
            "date",
            "datetime",
            "timestamp",
            "decimal",
            "binary",
            "interval_year_month",
            "interval_day_time",
            "timestamp with time zone",
            "array",
            "map",
            "struct",
            "uniontype",
            "columns",
            "columns.types",
            "column.name.delimiter");

    /** The type Hive's serdes report for a column whose schema the serde itself holds; Hive takes it as it is. */
    private static final String DERIVED_TYPE = "<derived from deserializer>";

    private HiveNames() {}

    /**
     * Checks a new Hive database name.
     *
     * @throws CatalogException {@code INVALID_NAME} with Hive's message ({@code <name> is not a valid database
     *     name}), its context the {@code kind} ({@code database}) and the {@code name}
     */
    public static void checkDatabase(String name) {
        if (!isHiveName(name, "")) {
            throw refused(DATABASE, name, " is not a valid database name");
        }
    }

    /**
     * Checks a new Hive table (or view) name, or the new name of a renamed one: Hive's rule, then the lake's.
     *
     * @throws CatalogException {@code INVALID_NAME}: Hive's message ({@code <name> is not a valid object name}) for a
     *     name Hive refuses, the lake's ({@link LakeNames#check}) for one only the lake refuses; its context the
     *     {@code kind} ({@code table}) and the {@code name}
     */
    public static void checkTable(String name) {
        if (!isHiveName(name, TABLE_SPECIALS)) {
            throw refused(LakeNames.TABLE, name, " is not a valid object name");
        }
        // The configured rule may be stricter (a shorter limit); it is checked again at commit.
        LakeNames.DEFAULT.check(LakeNames.TABLE, name);
    }

    /**
     * Checks a table's columns and partition keys, given as name and type in order; a null list is none.
     *
     * @throws CatalogException {@code INVALID_NAME}, the message starting as Hive's ({@code Invalid column …},
     *     {@code Invalid partition column …}), its context the {@code kind} ({@link #COLUMN} or {@link #PARTITION_KEY})
     *     and the {@code name}, and for a name given twice {@link #PROBLEM} = {@link #NAMED_TWICE}
     */
    public static void checkColumns(List<Column> columns, List<Column> partitionKeys) {
        Set<String> names = new HashSet<>();
        for (Column column : columns == null ? List.<Column>of() : columns) {
            checkColumn(COLUMN, "Invalid column ", column, names);
        }
        Set<String> keys = new HashSet<>();
        for (Column key : partitionKeys == null ? List.<Column>of() : partitionKeys) {
            String prefix = "Invalid partition column ";
            checkColumn(PARTITION_KEY, prefix, key, keys);
            if (names.contains(lower(key.name()))) {
                throw invalid(
                        PARTITION_KEY,
                        key.name(),
                        prefix + "name: " + shown(key.name()) + " is also a column of the table");
            }
            int escaped = firstEscaped(key.name());
            if (escaped >= 0) {
                throw invalid(
                        PARTITION_KEY,
                        key.name(),
                        prefix + "name: " + shown(key.name()) + " holds '"
                                + shown(String.valueOf(key.name().charAt(escaped)))
                                + "', which a partition name would have to escape");
            }
        }
    }

    /** One column or partition key as a table declares it: its name and its type. */
    public record Column(String name, String type) {}

    private static void checkColumn(String kind, String prefix, Column column, Set<String> seen) {
        if (column == null || column.name() == null || column.name().isEmpty()) {
            throw invalid(kind, "", prefix + "name: it is empty");
        }
        String typeError = typeError(column.type());
        if (typeError != null) {
            throw invalid(kind, column.name(), prefix + typeError);
        }
        if (!seen.add(lower(column.name()))) {
            throw invalid(kind, column.name(), prefix + "name: " + shown(column.name()) + " is named twice")
                    .with(PROBLEM, NAMED_TWICE);
        }
    }

    /**
     * Hive's {@code MetaStoreServerUtils.validateColumnType}: the type's first word (a run of letters, digits and
     * {@code _}, or of other characters) must be one of Hive's types; null when it is.
     */
    static String typeError(String type) {
        if (type == null || type.isEmpty()) {
            return "type: it is empty";
        }
        if (type.equals(DERIVED_TYPE)) {
            return null;
        }
        boolean word = isTypeCharacter(type.charAt(0));
        int end = 1;
        while (end < type.length() && isTypeCharacter(type.charAt(end)) == word) {
            end++;
        }
        return HIVE_TYPES.contains(type.substring(0, end)) ? null : "type: " + shown(type);
    }

    private static boolean isTypeCharacter(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /** The index of the first character of {@code name} that a partition name escapes, or -1. */
    private static int firstEscaped(String name) {
        for (int i = 0; i < name.length(); i++) {
            String c = String.valueOf(name.charAt(i));
            if (c.charAt(0) == 0 || !Partitions.escape(c).equals(c)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code name} is one or more of {@code [A-Za-z0-9_]} and {@code specials}: Hive's {@code [\w<specials>]+}. */
    static boolean isHiveName(String name, String specials) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            if (!word && specials.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static String shown(String name) {
        return LakeNames.printable(name);
    }

    /** A refusal of {@code name}, whose message is the name (printable) and then {@code problem}. */
    private static CatalogException refused(String kind, String name, String problem) {
        return invalid(kind, name, shown(name == null ? "" : name) + problem);
    }

    private static CatalogException invalid(String kind, String name, String message) {
        return new CatalogException(ErrorCode.INVALID_NAME, message)
                .with("kind", kind)
                .with("name", shown(name == null ? "" : name));
    }
}
