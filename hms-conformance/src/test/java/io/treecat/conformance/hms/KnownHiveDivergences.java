package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where TreeCat deliberately answers differently from Hive 4.0.1, and how the suite still asks Hive for the reference
 * answer: by sending Hive an equivalent filter that its bug does not touch.
 *
 * <p><b>{@code <>} and {@code !=} with {@code _} or {@code %} in the value, on the first partition key.</b> Hive's direct
 * SQL adds to {@code region <> 'us_east'} the condition {@code PART_NAME not like 'region=us_east/%'} without escaping
 * the value's {@code _} and {@code %}, so it also drops {@code region=usXeast}. ({@code not in} is an {@code and} of
 * {@code !=}, so it has the bug too; on later keys the pattern starts with {@code %/}, and the suite's values of those
 * keys hold no wildcard.) TreeCat does not copy the bug. For such a filter the reference is Hive's answer to the filter
 * with each affected inequality {@code k <> v} written {@code (k < v or k > v)}, the same condition over a string key.
 *
 * <p><b>Text after a complete filter.</b> Hive's grammar ({@code PartitionFilter.g4}) has no end-of-input rule, so
 * Hive reads {@code yr > 2024-01} as {@code yr > 2024} and {@code yr = 9 dt} as {@code yr = 9}, silently. TreeCat
 * refuses such a filter with a MetaException, the type Hive uses for filters it cannot parse: a filter read other
 * than written selects other data. {@link FilterGenerator#trailingText()} lists the cases the suite checks.
 */
final class KnownHiveDivergences {
    /** The first partition key of {@link PartitionedTable}, the one whose partition-name condition Hive gets wrong. */
    private static final String KEY = PartitionedTable.KEYS.get(0);

    private static final String LITERAL = "('[^']*'|\"[^\"]*\")";
    private static final Pattern NOT_EQUALS = Pattern.compile("\\b" + KEY + "\\s*(<>|!=)\\s*" + LITERAL);
    private static final Pattern NOT_EQUALS_MIRRORED = Pattern.compile(LITERAL + "\\s*(<>|!=)\\s*" + KEY + "\\b");
    private static final Pattern NOT_IN =
            Pattern.compile("\\(\\s*" + KEY + "\\s*\\)\\s+not\\s+in\\s*\\(([^)]*)\\)", Pattern.CASE_INSENSITIVE);

    private KnownHiveDivergences() {}

    /** Why a comparison is allowed to differ. */
    enum Kind {
        /** Hive 4.0.1 answers wrongly (a crash, a store limit of its Derby); TreeCat answers as Hive means to. */
        HIVE_BUG,
        /** TreeCat answers differently on purpose; the reason says why. */
        DECIDED,
        /** A TreeCat gap, not fixed yet: the reason names what is missing. Remove the entry once it is fixed. */
        OPEN
    }

    /** One comparison (by its description, {@code call: description}) allowed to differ, and why. */
    record Divergence(String description, Kind kind, String reason) {}

    /** The divergence listed for {@code description}, if any. */
    static Optional<Divergence> of(String description) {
        return Optional.ofNullable(DIVERGENCES.get(description));
    }

    /** Every listed divergence, in the order listed. */
    static Collection<Divergence> all() {
        return DIVERGENCES.values();
    }

    private static Map<String, Divergence> divergences() {
        Map<String, Divergence> all = new LinkedHashMap<>();
        for (Object[] entry : DIVERGENCE_TABLE) {
            Kind kind = (Kind) entry[0];
            String reason = (String) entry[1];
            for (int i = 2; i < entry.length; i++) {
                String description = (String) entry[i];
                if (all.put(description, new Divergence(description, kind, reason)) != null) {
                    throw new IllegalStateException("Listed twice: " + description);
                }
            }
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * Fields Hive 4.0.1 fills into every struct it stores and TreeCat does not yet (OPEN): {@link HmsValues} leaves
     * them out of every comparison, so that the rest of each struct is still compared strictly. Hive's defaults:
     * {@code Database.createTime}; {@code Table.rewriteEnabled=false}, {@code Table.writeId=0},
     * {@code Partition.writeId=-1}; an empty {@code StorageDescriptor.skewedInfo}.
     */
    static boolean openField(String struct, String field, Object value) {
        return switch (struct + "." + field) {
            case "Database.createTime" -> true;
            case "Table.rewriteEnabled" -> Boolean.FALSE.equals(value);
            case "Table.writeId" -> Long.valueOf(0).equals(value);
            case "Partition.writeId" -> Long.valueOf(-1).equals(value);
            case "StorageDescriptor.skewedInfo" ->
                value instanceof Map<?, ?> skewed
                        && skewed.values().stream()
                                .allMatch(part -> part instanceof Collection<?> c
                                        ? c.isEmpty()
                                        : part instanceof Map<?, ?> m && m.isEmpty());
            default -> false;
        };
    }

    /**
     * Table and partition parameters Hive 4.0.1 maintains itself and TreeCat does not yet (OPEN), left out of every
     * comparison: {@code transient_lastDdlTime} (the time of the last DDL), {@code COLUMN_STATS_ACCURATE} (which
     * columns' statistics are current), and the basic statistics Hive computes by listing the files of a table or
     * partition on create and alter ({@code numFiles}, {@code numFilesErasureCoded}, {@code totalSize}) when it found
     * none, {@code 0}. A value a client set is compared.
     */
    static boolean openParameter(String key, Object value) {
        return switch (key) {
            case "transient_lastDdlTime", "COLUMN_STATS_ACCURATE" -> true;
            case "numFiles", "numFilesErasureCoded", "totalSize" -> "0".equals(value);
            default -> false;
        };
    }

    /** Kind, reason, then the descriptions of the comparisons it covers. */
    private static final Object[][] DIVERGENCE_TABLE = {
        {
            Kind.DECIDED,
            "Hive stores a grant on a table that does not exist, under any privilege name and on a column; TreeCat's "
                    + "grants are on objects that exist, under the privileges it can enforce, and it has no column "
                    + "privileges: MetaException naming what (docs/security.md, \"Hive's privilege and role calls\")",
            "grant_privileges: missing table",
            "grant_privileges: unknown privilege",
            "grant_privileges: a column"
        },
        {
            Kind.DECIDED,
            "Hive stores a group as a role's member; TreeCat has no groups: MetaException",
            "grant_role: to a group"
        },
        {
            Kind.DECIDED,
            "Hive answers true for revoking a role a principal does not hold and for dropping a role that does not "
                    + "exist; TreeCat refuses both (MetaException), so a typo does not pass for a done revoke",
            "revoke_role: not held",
            "drop_role: unknown role"
        },
        {
            Kind.DECIDED,
            "Hive grants a lock in a committed transaction, which nothing then ever releases; TreeCat refuses it with "
                    + "Hive's message for a committed transaction (NoSuchTxnException)",
            "lock: in a committed txn"
        },
        {
            Kind.DECIDED,
            "Hive hands out write ids for a table that does not exist; TreeCat keeps a table's write ids below the "
                    + "table and refuses (MetaException)",
            "allocate_table_write_ids: missing table"
        },
        {
            Kind.HIVE_BUG,
            "Hive answers a null result, which Thrift cannot carry (TApplicationException \"unknown result\"); "
                    + "TreeCat answers NoSuchObjectException (getOption: the empty string)",
            "get_table_column_statistics: flat.missing",
            "get_partition_column_statistics: ds=z id",
            "getOption: an option nobody set"
        },
        {
            Kind.HIVE_BUG,
            "Hive 4.0.1 fails with a NullPointerException on a request without a catalog name (its own client always "
                    + "sends one); TreeCat takes the default catalog",
            "get_database_req: diffdb_req"
        },
        {
            Kind.HIVE_BUG,
            "Hive 4.0.1's server does not read the request's ignoreUnknownDb (its client catches the exception "
                    + "itself); TreeCat honours it",
            "drop_database_req: missing, ignoreUnknownDb"
        },
        {
            Kind.HIVE_BUG,
            "Hive fails with a NullPointerException (as a MetaException) on a null pattern; TreeCat lists every "
                    + "database, as for the pattern *",
            "get_databases: null"
        },
        {
            Kind.HIVE_BUG,
            "Hive fails with an internal error (TApplicationException) on a null database; TreeCat answers a "
                    + "MetaException",
            "alter_database: null database"
        },
        {
            Kind.HIVE_BUG,
            "Hive sets the owner of a database to the null of a struct that leaves it unset, and then fails every later "
                    + "alter of that database with an internal error; TreeCat keeps the owner (as Hive's merge keeps "
                    + "an unset description and location)",
            "get_database: diffdb_partial after the partial alter"
        },
        {
            Kind.HIVE_BUG,
            "Hive on Derby cannot compare table parameter values (a CLOB: ERROR 42818), so filters on parameters and "
                    + "the expected-parameter swap fail there; they work on Hive's other databases, and in TreeCat",
            "get_table_names_by_filter: hive_filter_field_params__table_type = \"HIVE\"",
            "get_table_names_by_filter: hive_filter_field_params__missing <> \"x\"",
            "get_table_names_by_filter: hive_filter_field_owner__ like \"diff.*\" and "
                    + "hive_filter_field_params__table_type = \"ICEBERG\"",
            "alter_table_with_environment_context: expected parameter matches",
            "get_table_req: swapped"
        },
        {
            Kind.HIVE_BUG,
            "Hive drops the connection on set_ugi with no groups; TreeCat answers the empty list",
            "set_ugi: no groups"
        },
        {
            Kind.HIVE_BUG,
            "Hive fails with a NullPointerException on a partition without a storage descriptor; TreeCat gives it a copy "
                    + "of the table's (docs/hms-thrift.md), so the table then has one partition more",
            "add_partition: no storage descriptor",
            "get_partitions: p after the adds"
        },
        {
            Kind.DECIDED,
            "TreeCat accepts a table without a storage descriptor (the Iceberg REST side makes such tables); Hive fails "
                    + "with a NullPointerException",
            "create_table: no storage descriptor"
        },
        {
            Kind.DECIDED,
            "a database cannot be renamed: Hive ignores the new name and answers success, TreeCat refuses the alter "
                    + "(MetaException) so that the client is not misled",
            "alter_database: a new name"
        },
        {
            Kind.DECIDED,
            "TreeCat reads the @cat#db form in every database name; Hive 4.0.1 only where a call has no catalog field",
            "get_table_req: @hive#db"
        },
        {
            Kind.DECIDED,
            "TreeCat has no 128-character limit on names; Hive's is the width of its backing database's columns",
            "create_database: bad name 'dddddddd...(129 characters)'"
        },
        {
            Kind.DECIDED,
            "TreeCat keeps a location as the client wrote it; Hive rewrites it through Hadoop's Path (file:///x becomes "
                    + "file:/x). Both name the same directory",
            "get_database: diffdb_slashes"
        },
        {
            Kind.DECIDED,
            "TreeCat refuses statistics of a column the table lacks for a partition as for the table (Hive refuses "
                    + "them for the table only)",
            "update_partition_column_statistics: a column the table lacks"
        },
        {
            Kind.DECIDED,
            "the default database of catalog hive is at <catalog location>/default in TreeCat, at the warehouse root "
                    + "in Hive (docs/hms-thrift.md, \"Catalogs and the default database\")",
            "get_database: default"
        },
        {
            Kind.DECIDED,
            "a database created without an owner: Hive makes the calling user its owner (here the server process's, "
                    + "as no set_ugi was sent); TreeCat leaves it without one (CatalogAndConfigDifferentialIT leaves "
                    + "that owner out likewise)",
            "get_database: diffdb_bare"
        },
        {
            Kind.DECIDED,
            "Hive 4's metastore stores a partition key that is also a column, has no name, or holds a character a "
                    + "partition name escapes (=, /, %, :); its DDL refuses them, and such a key reads back escaped "
                    + "from every partition name, so filters miss partitions: TreeCat refuses them "
                    + "(InvalidObjectException, docs/hms-thrift.md \"Names and locations\")",
            "create_table: a partition key that is also a column",
            "get_all_tables: difftbl_main at the end",
            "create_table: a partition key without a name",
            "create_table: a partition key 'a=b'",
            "create_table: a partition key 'a/b'",
            "create_table: a partition key 'a%b'",
            "create_table: a partition key 'a:b'"
        },
        {
            Kind.DECIDED,
            "Hive 4.0.1's create_database checks a name with its table-name special characters "
                    + "(metastore.support.special.characters.tablename, default true), so it takes 'diff db', 'a.b' or "
                    + "'x/y'; TreeCat keeps database names to [A-Za-z0-9_]+ (InvalidObjectException): a '.' makes "
                    + "db.table ambiguous for engines, '@' and '#' clash with @cat#db, '/' would be a path separator",
            "create_database: bad name 'diff db'",
            "create_database: bad name 'diff-db'",
            "create_database: bad name 'diff.db'",
            "create_database_req: bad name"
        },
        {
            Kind.DECIDED,
            "Hive 4's metastore stores a column without a name; TreeCat refuses it (InvalidObjectException)",
            "create_table: a column without a name"
        },
        {
            Kind.DECIDED,
            "Hive takes '..' (and '../x') as a table name, its default location encoding the dots (-46--46-); the "
                    + "lake keeps '.' and '..' parts out of every name, for every interface (InvalidObjectException "
                    + "on create, InvalidOperationException on rename)",
            "create_table: table name '..'",
            "alter_table_with_environment_context: rename to '../dotted'"
        },
        {
            Kind.OPEN,
            "basic statistics from the files: on alter Hive lists a table's or partition's files and sets numFiles and "
                    + "totalSize from them, over what the client sent (unless it passes DO_NOT_UPDATE_STATS, as Trino "
                    + "does); TreeCat keeps what the client sent",
            "get_partitions: after the alters"
        },
        {
            Kind.OPEN,
            "renaming a partition of an external table: Hive keeps its location, TreeCat moves a partition at its "
                    + "default location to the new default location",
            "get_partition: renamed"
        },
        {
            Kind.OPEN,
            "malformed partition names: Hive answers NoSuchObjectException (get, drop) or InvalidObjectException "
                    + "(append) \"incomplete partition name\", and leaves a malformed name out of "
                    + "get_partitions_by_names; TreeCat answers a MetaException",
            "drop_partition_by_name: malformed",
            "get_partition_by_name: malformed",
            "append_partition_by_name: malformed name",
            "get_partitions_by_names: a malformed name"
        },
        {
            Kind.OPEN,
            "partition calls on a missing table: Hive lists nothing, and append refuses with InvalidObjectException; "
                    + "TreeCat answers NoSuchObjectException (append: MetaException)",
            "append_partition: missing table",
            "get_partitions: missing table",
            "get_partition_names: missing table"
        },
    };

    /**
     * The comparisons of the call ITs that differ, and why ({@link Differential#assertAgreed(String)} lets exactly
     * these differ, and fails when one of them agrees, so that the list stays true).
     */
    private static final Map<String, Divergence> DIVERGENCES = divergences();

    /**
     * The filter to send Hive for the reference answer to {@code filter}: the filter itself, or, if Hive's {@code <>} bug
     * would touch it, the equivalent filter without the affected inequalities.
     */
    static String hiveEquivalent(String filter) {
        String rewritten = replace(
                NOT_EQUALS, filter, matcher -> affected(matcher.group(2)) ? inequality(matcher.group(2)) : null);
        rewritten = replace(
                NOT_EQUALS_MIRRORED,
                rewritten,
                matcher -> affected(matcher.group(1)) ? inequality(matcher.group(1)) : null);
        return replace(NOT_IN, rewritten, matcher -> {
            List<String> kept = new ArrayList<>();
            List<String> conditions = new ArrayList<>();
            for (String value : matcher.group(1).split(",")) {
                String literal = value.trim();
                if (affected(literal)) {
                    conditions.add(inequality(literal));
                } else {
                    kept.add(literal);
                }
            }
            if (conditions.isEmpty()) {
                return null;
            }
            if (!kept.isEmpty()) {
                conditions.add(0, "(" + KEY + ") not in (" + String.join(", ", kept) + ")");
            }
            return "(" + String.join(" and ", conditions) + ")";
        });
    }

    /** Whether {@code literal} (quoted) holds a LIKE wildcard, which Hive's partition-name condition does not escape. */
    private static boolean affected(String literal) {
        return (literal.startsWith("'") || literal.startsWith("\""))
                && (literal.contains("_") || literal.contains("%"));
    }

    private static String inequality(String literal) {
        return "(" + KEY + " < " + literal + " or " + KEY + " > " + literal + ")";
    }

    private interface Replacement {
        /** The text for the match, or null to keep it. */
        String apply(Matcher matcher);
    }

    private static String replace(Pattern pattern, String text, Replacement replacement) {
        Matcher matcher = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String with = replacement.apply(matcher);
            matcher.appendReplacement(out, Matcher.quoteReplacement(with == null ? matcher.group() : with));
        }
        matcher.appendTail(out);
        return out.toString();
    }
}
