package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive's refusal of column type changes that would leave existing data files unreadable
 * ({@code metastore.disallow.incompatible.col.type.changes}, true by default in Hive 4, as here; HIVE-4409):
 * an {@code alter_table} that gives a column, by position, a type its old values cannot be read as is
 * {@code InvalidOperationException} "The following columns have types incompatible with the existing columns in
 * their respective positions :\n" and the new columns' names. Text formats read anything as a string, binary
 * formats do not: so a change within the strings, a numeric widening, and a number or date to a string are
 * allowed, the rest refused.
 *
 * <p>As in Hive's {@code DefaultIncompatibleTableChangeHandler}: views are never checked (their columns derive from
 * their query), nor tables whose serde reads any type change (Kudu's, Iceberg's storage handler), and a connection
 * may turn the check off for itself with {@code setMetaConf}. Unlike Hive, Iceberg tables are never checked
 * ({@link #isIceberg}).
 */
final class HmsColumnTypeChanges {
    private static final String VIRTUAL_VIEW = "VIRTUAL_VIEW";
    /** Iceberg's table parameter naming its tables ({@code BaseMetastoreTableOperations.TABLE_TYPE_PROP}). */
    private static final String TABLE_TYPE = "table_type";

    private static final String ICEBERG = "ICEBERG";
    /** Hive 4's {@code metastore.allow.incompatible.col.type.changes.serdes}. */
    private static final Set<String> SERDES_ALLOWING_ANY_CHANGE =
            Set.of("org.apache.hadoop.hive.kudu.KuduSerDe", "org.apache.iceberg.mr.hive.HiveIcebergSerDe");

    private static final Set<String> STRINGS = Set.of("string", "varchar", "char");
    /** Hive's widening order of the numeric types: a change may only go up. */
    private static final Map<String, Integer> NUMERIC_ORDER =
            Map.of("tinyint", 1, "smallint", 2, "int", 3, "bigint", 4, "decimal", 5, "float", 6, "double", 7);

    private static final Set<String> DATES = Set.of("date", "datetime", "timestamp", "timestamp with time zone");
    private static final Set<String> PRIMITIVES = Set.of(
            "void",
            "boolean",
            "tinyint",
            "smallint",
            "int",
            "bigint",
            "float",
            "double",
            "string",
            "varchar",
            "char",
            "date",
            "datetime",
            "timestamp",
            "interval_year_month",
            "interval_day_time",
            "decimal",
            "binary",
            "timestamp with time zone");

    private final HmsSessions sessions;

    HmsColumnTypeChanges(HmsSessions sessions) {
        this.sessions = requireNonNull(sessions, "sessions is null");
    }

    /** Refuses the change from {@code old} to {@code altered} if this connection checks and a column is incompatible. */
    void check(Table old, Table altered) throws InvalidOperationException {
        if (!checked() || VIRTUAL_VIEW.equals(old.getTableType()) || isIceberg(old)) {
            return;
        }
        List<String> incompatible = incompatibleColumns(columns(old), columns(altered));
        String serde = old.getSd() == null || old.getSd().getSerdeInfo() == null
                ? null
                : old.getSd().getSerdeInfo().getSerializationLib();
        if (!incompatible.isEmpty() && !SERDES_ALLOWING_ANY_CHANGE.contains(serde)) {
            throw new InvalidOperationException(
                    "The following columns have types incompatible with the existing columns in their respective"
                            + " positions :\n" + String.join(",", incompatible));
        }
    }

    /**
     * An Iceberg table's data files are read by field id, never by position, so no change of its Hive columns leaves
     * a file unreadable: Iceberg's HiveCatalog rewrites them on every schema change (dropping a column in the middle
     * shifts the rest), which Hive 4 refuses unless the table uses Hive's Iceberg serde. A deliberate difference.
     */
    private static boolean isIceberg(Table table) {
        String type =
                table.getParameters() == null ? null : table.getParameters().get(TABLE_TYPE);
        return ICEBERG.equalsIgnoreCase(type);
    }

    /**
     * Whether this connection checks: its own {@code setMetaConf} value ({@code metastore.…} before
     * {@code hive.metastore.…}, as Hive's {@code MetastoreConf} reads them), else Hive's default, true. As Hadoop
     * reads a boolean, a value other than true or false (in any case) is the default.
     */
    private boolean checked() {
        HmsSessions.Session session = sessions.current();
        String value = session.setting(HmsConfigCalls.Setting.DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES.metastoreName());
        if (value == null) {
            value = session.setting(HmsConfigCalls.Setting.DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES.hiveName());
        }
        return value == null || !value.trim().equalsIgnoreCase("false");
    }

    /** The names of the new columns whose type, at the same position, old values cannot be read as. */
    static List<String> incompatibleColumns(List<FieldSchema> oldColumns, List<FieldSchema> newColumns) {
        List<String> incompatible = new ArrayList<>();
        for (int i = 0; i < Math.min(oldColumns.size(), newColumns.size()); i++) {
            if (!compatible(
                    typeName(oldColumns.get(i).getType()),
                    typeName(newColumns.get(i).getType()))) {
                incompatible.add(newColumns.get(i).getName());
            }
        }
        return incompatible;
    }

    /**
     * Hive's {@code ColumnType.getTypeName}: the lower-cased type up to its first non-word character
     * ({@code varchar(10)} is {@code varchar}, {@code array<int>} is {@code array}), {@code integer} read as
     * {@code int} and {@code numeric} as {@code decimal}. So complex types compare by their outer name only.
     */
    static String typeName(String type) {
        if (type == null) {
            return "";
        }
        String lower = type.toLowerCase(Locale.ROOT);
        int end = 0;
        while (end < lower.length() && isWordCharacter(lower.charAt(end))) {
            end++;
        }
        String name = lower.substring(0, end);
        return switch (name) {
            case "integer" -> "int";
            case "numeric" -> "decimal";
            default -> name;
        };
    }

    private static boolean isWordCharacter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }

    /** Hive's {@code ColumnType.areColTypesCompatible} on type names. */
    static boolean compatible(String from, String to) {
        if (from.equals(to)) {
            return true;
        }
        if (!PRIMITIVES.contains(from) || !PRIMITIVES.contains(to)) {
            return false;
        }
        if (STRINGS.contains(from) && STRINGS.contains(to)) {
            return true;
        }
        if (NUMERIC_ORDER.containsKey(from) && NUMERIC_ORDER.containsKey(to)) {
            return NUMERIC_ORDER.get(from) < NUMERIC_ORDER.get(to);
        }
        return from.equals("void")
                || (DATES.contains(from) && STRINGS.contains(to))
                || (NUMERIC_ORDER.containsKey(from) && STRINGS.contains(to));
    }

    private static List<FieldSchema> columns(Table table) {
        return table.getSd() == null || table.getSd().getCols() == null
                ? List.of()
                : table.getSd().getCols();
    }
}
