package io.treecat.hms;

import static io.treecat.hms.HmsConstraintStore.normalize;

import io.treecat.hms.HmsConstraintStore.TableConstraints;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.SQLAllTableConstraints;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.thrift.TException;

/**
 * Adding Hive constraints, checked as Hive's {@code ObjectStore} checks them: each row names its table and column
 * (a missing one is an {@code InvalidObjectException} "Parent table not found" / "Parent column not found"; for a
 * foreign key also "Child …"), a table has one primary key ({@code MetaException}), a name is unique among the
 * constraints whose parent table is the same ({@code InvalidObjectException} "Constraint name already exists"), a
 * foreign key references the columns of a primary or unique key of the parent, with the same types. A constraint
 * without a name gets one as Hive makes it ({@code <kind>_<hash>_<millis>_<n>}). Names are lower-cased.
 * Default and check constraints, as in Hive, may name no column of the table (their column is then none).
 */
final class HmsConstraints {
    private HmsConstraints() {}

    /** Every list of {@code constraints}, in Hive's order: foreign keys first, checked against the given keys too. */
    static void addAll(HmsConstraintStore store, SQLAllTableConstraints constraints) throws TException {
        addForeignKeys(
                store, constraints.getForeignKeys(), constraints.getPrimaryKeys(), constraints.getUniqueConstraints());
        addPrimaryKeys(store, constraints.getPrimaryKeys());
        addUniqueConstraints(store, constraints.getUniqueConstraints());
        addNotNullConstraints(store, constraints.getNotNullConstraints());
        addDefaultConstraints(store, constraints.getDefaultConstraints());
        addCheckConstraints(store, constraints.getCheckConstraints());
    }

    // ---- the tables a row names

    private static TableConstraints parent(HmsConstraintStore store, String catalog, String db, String table)
            throws TException {
        Optional<TableConstraints> found = isServedCatalog(store, catalog) && db != null && table != null
                ? store.table(normalize(db), normalize(table))
                : Optional.empty();
        return found.orElseThrow(() -> new InvalidObjectException("Parent table not found: " + normalize(table)));
    }

    private static boolean isServedCatalog(HmsConstraintStore store, String catalog) {
        return catalog == null || catalog.equalsIgnoreCase(HmsNames.HIVE_CATALOG) || catalog.equals(store.catalog());
    }

    private static FieldSchema column(TableConstraints table, String column, String side)
            throws InvalidObjectException {
        FieldSchema field = table.column(column);
        if (field == null) {
            throw new InvalidObjectException(side + " column not found: " + normalize(column));
        }
        return field;
    }

    private static String columnOrNone(TableConstraints table, String column) {
        FieldSchema field = table.column(column);
        return field == null ? null : normalize(field.getName());
    }

    /** A given name, lower-cased, unless the table's name space has it: Hive's "Constraint name already exists". */
    private static String given(HmsConstraintStore store, TableConstraints parent, String name) throws TException {
        String normalized = normalize(name);
        if (store.namesBefore(parent).contains(normalized)) {
            throw new InvalidObjectException(
                    "Constraint name already exists: " + parent.db + "." + parent.name + "." + normalized);
        }
        return normalized;
    }

    /** Hive's generated name: the last parameter, a hash of all, the time, a counter. */
    static String generated(String... parameters) {
        int hash = ("{" + String.join(",", parameters) + "}").hashCode() & 0xfffffff;
        return parameters[parameters.length - 1] + "_" + hash + "_" + System.currentTimeMillis() + "_0";
    }

    /** The name of a row: given, or made for the first row of a key ({@code keySeq} 1), else the key's so far. */
    private static String name(
            HmsConstraintStore store,
            TableConstraints parent,
            String given,
            int keySeq,
            String current,
            Supplier<String> generate)
            throws TException {
        if (given != null) {
            return given(store, parent, given);
        }
        return keySeq == 1 || current == null ? generate.get() : current;
    }

    // ---- each kind

    static void addPrimaryKeys(HmsConstraintStore store, List<SQLPrimaryKey> keys) throws TException {
        String name = null;
        for (SQLPrimaryKey key : keys == null ? List.<SQLPrimaryKey>of() : keys) {
            TableConstraints table = parent(store, key.getCatName(), key.getTable_db(), key.getTable_name());
            String column =
                    normalize(column(table, key.getColumn_name(), "Parent").getName());
            if (table.primaryKeyBefore) {
                throw new MetaException(" Primary key already exists for: " + HmsNames.HIVE_CATALOG + "." + table.db
                        + "." + table.name);
            }
            name = name(
                    store,
                    table,
                    key.getPk_name(),
                    key.getKey_seq(),
                    name,
                    () -> generated(table.db, table.name, column, "pk"));
            SQLPrimaryKey stored = new SQLPrimaryKey(
                    table.db,
                    table.name,
                    column,
                    key.getKey_seq(),
                    name,
                    key.isEnable_cstr(),
                    key.isValidate_cstr(),
                    key.isRely_cstr());
            stored.setCatName(HmsNames.HIVE_CATALOG);
            table.own.getPrimaryKeys().add(stored);
            table.changed = true;
        }
    }

    static void addUniqueConstraints(HmsConstraintStore store, List<SQLUniqueConstraint> keys) throws TException {
        String name = null;
        for (SQLUniqueConstraint key : keys == null ? List.<SQLUniqueConstraint>of() : keys) {
            TableConstraints table = parent(store, key.getCatName(), key.getTable_db(), key.getTable_name());
            String column =
                    normalize(column(table, key.getColumn_name(), "Parent").getName());
            name = name(
                    store,
                    table,
                    key.getUk_name(),
                    key.getKey_seq(),
                    name,
                    () -> generated(table.db, table.name, column, "uk"));
            table.own
                    .getUniqueConstraints()
                    .add(new SQLUniqueConstraint(
                            HmsNames.HIVE_CATALOG,
                            table.db,
                            table.name,
                            column,
                            key.getKey_seq(),
                            name,
                            key.isEnable_cstr(),
                            key.isValidate_cstr(),
                            key.isRely_cstr()));
            table.changed = true;
        }
    }

    static void addNotNullConstraints(HmsConstraintStore store, List<SQLNotNullConstraint> keys) throws TException {
        for (SQLNotNullConstraint key : keys == null ? List.<SQLNotNullConstraint>of() : keys) {
            TableConstraints table = parent(store, key.getCatName(), key.getTable_db(), key.getTable_name());
            String column =
                    normalize(column(table, key.getColumn_name(), "Parent").getName());
            String name = key.getNn_name() != null
                    ? given(store, table, key.getNn_name())
                    : generated(table.db, table.name, column, "nn");
            table.own
                    .getNotNullConstraints()
                    .add(new SQLNotNullConstraint(
                            HmsNames.HIVE_CATALOG,
                            table.db,
                            table.name,
                            column,
                            name,
                            key.isEnable_cstr(),
                            key.isValidate_cstr(),
                            key.isRely_cstr()));
            table.changed = true;
        }
    }

    static void addDefaultConstraints(HmsConstraintStore store, List<SQLDefaultConstraint> keys) throws TException {
        for (SQLDefaultConstraint key : keys == null ? List.<SQLDefaultConstraint>of() : keys) {
            TableConstraints table = parent(store, key.getCatName(), key.getTable_db(), key.getTable_name());
            String column = columnOrNone(table, key.getColumn_name());
            String name = key.getDc_name() != null
                    ? given(store, table, key.getDc_name())
                    : generated(table.db, table.name, normalize(key.getColumn_name()), "dc");
            table.own
                    .getDefaultConstraints()
                    .add(new SQLDefaultConstraint(
                            HmsNames.HIVE_CATALOG,
                            table.db,
                            table.name,
                            column,
                            key.getDefault_value(),
                            name,
                            key.isEnable_cstr(),
                            key.isValidate_cstr(),
                            key.isRely_cstr()));
            table.changed = true;
        }
    }

    static void addCheckConstraints(HmsConstraintStore store, List<SQLCheckConstraint> keys) throws TException {
        for (SQLCheckConstraint key : keys == null ? List.<SQLCheckConstraint>of() : keys) {
            TableConstraints table = parent(store, key.getCatName(), key.getTable_db(), key.getTable_name());
            String column = columnOrNone(table, key.getColumn_name());
            String name = key.getDc_name() != null
                    ? given(store, table, key.getDc_name())
                    : generated(table.db, table.name, normalize(key.getColumn_name()), "dc");
            table.own
                    .getCheckConstraints()
                    .add(new SQLCheckConstraint(
                            HmsNames.HIVE_CATALOG,
                            table.db,
                            table.name,
                            column,
                            key.getCheck_expression(),
                            name,
                            key.isEnable_cstr(),
                            key.isValidate_cstr(),
                            key.isRely_cstr()));
            table.changed = true;
        }
    }

    /**
     * Foreign keys: rows grouped into keys ({@code key_seq} 1 starts one), each referencing a primary or unique key
     * of its parent. {@code samePrimaryKeys}/{@code sameUniqueKeys}: the keys a table created in the same call
     * declares, which a key referencing that table is checked against (Hive's create reads them from the request).
     */
    static void addForeignKeys(
            HmsConstraintStore store,
            List<SQLForeignKey> keys,
            List<SQLPrimaryKey> samePrimaryKeys,
            List<SQLUniqueConstraint> sameUniqueKeys)
            throws TException {
        List<SQLForeignKey> rows = keys == null ? List.of() : keys;
        String name = null;
        int i = 0;
        while (i < rows.size()) {
            SQLForeignKey first = rows.get(i);
            if (!isServedCatalog(store, first.getCatName())) {
                throw new InvalidObjectException("Child table not found: " + normalize(first.getFktable_name()));
            }
            TableConstraints child = first.getFktable_db() == null || first.getFktable_name() == null
                    ? null
                    : store.table(normalize(first.getFktable_db()), normalize(first.getFktable_name()))
                            .orElse(null);
            if (child == null) {
                throw new InvalidObjectException("Child table not found: " + normalize(first.getFktable_name()));
            }
            TableConstraints parent =
                    child.isTable(normalize(first.getPktable_db()), normalize(first.getPktable_name()))
                            ? child
                            : parent(store, first.getCatName(), first.getPktable_db(), first.getPktable_name());
            List<SQLPrimaryKey> primaryKeys = new ArrayList<>(parent.own.getPrimaryKeys());
            List<SQLUniqueConstraint> uniqueKeys = new ArrayList<>(parent.own.getUniqueConstraints());
            if (parent.created) {
                primaryKeys = samePrimaryKeys == null ? List.of() : new ArrayList<>(samePrimaryKeys);
                uniqueKeys = sameUniqueKeys == null ? List.of() : new ArrayList<>(sameUniqueKeys);
            }
            if (primaryKeys.isEmpty() && uniqueKeys.isEmpty()) {
                throw new MetaException(
                        "Trying to define foreign key but there are no primary keys or unique keys for referenced table");
            }
            Set<String> validKeys = signatures(parent, primaryKeys, uniqueKeys);
            StringBuilder foreign = new StringBuilder();
            StringBuilder referenced = new StringBuilder();
            for (; i < rows.size(); i++) {
                SQLForeignKey row = rows.get(i);
                FieldSchema childColumn = column(child, row.getFkcolumn_name(), "Child");
                FieldSchema parentColumn = column(parent, row.getPkcolumn_name(), "Parent");
                String childName = normalize(childColumn.getName());
                String parentName = normalize(parentColumn.getName());
                name = name(
                        store,
                        parent,
                        row.getFk_name(),
                        row.getKey_seq(),
                        name,
                        () -> generated(child.db, child.name, parent.db, parent.name, parentName, childName, "fk"));
                SQLForeignKey stored = new SQLForeignKey(
                        parent.db,
                        parent.name,
                        parentName,
                        child.db,
                        child.name,
                        childName,
                        row.getKey_seq(),
                        row.getUpdate_rule(),
                        row.getDelete_rule(),
                        name,
                        null,
                        row.isEnable_cstr(),
                        row.isValidate_cstr(),
                        row.isRely_cstr());
                stored.setCatName(HmsNames.HIVE_CATALOG);
                store.addForeignKey(child, parent, stored);
                foreign.append(signature(childName, childColumn.getType()));
                referenced.append(signature(parentName, childColumn.getType()));
                if (i + 1 < rows.size() && rows.get(i + 1).getKey_seq() == 1) {
                    i++;
                    break;
                }
            }
            if (!validKeys.contains(referenced.toString())) {
                throw new MetaException("Foreign key references " + referenced
                        + " but no corresponding primary key or unique key exists. Possible keys: " + validKeys);
            }
            if (parent == child && foreign.toString().contentEquals(referenced)) {
                throw new MetaException(
                        "Cannot be both foreign key and primary/unique key on same table: " + referenced);
            }
        }
    }

    /** Each key of the parent as {@code col:type;…}, its columns in key order (Hive's valid-reference signatures). */
    private static Set<String> signatures(
            TableConstraints parent, List<SQLPrimaryKey> primaryKeys, List<SQLUniqueConstraint> uniqueKeys) {
        Set<String> signatures = new HashSet<>();
        if (!primaryKeys.isEmpty()) {
            StringBuilder signature = new StringBuilder();
            primaryKeys.stream()
                    .sorted(Comparator.comparing(SQLPrimaryKey::getKey_seq))
                    .forEach(key ->
                            signature.append(signature(key.getColumn_name(), type(parent, key.getColumn_name()))));
            signatures.add(signature.toString());
        }
        List<SQLUniqueConstraint> sorted = new ArrayList<>(uniqueKeys);
        sorted.sort(Comparator.comparing((SQLUniqueConstraint key) -> String.valueOf(key.getUk_name()))
                .thenComparing(SQLUniqueConstraint::getKey_seq));
        StringBuilder signature = new StringBuilder();
        for (int j = 0; j < sorted.size(); j++) {
            SQLUniqueConstraint key = sorted.get(j);
            signature.append(signature(key.getColumn_name(), type(parent, key.getColumn_name())));
            if (j + 1 == sorted.size()
                    || !String.valueOf(sorted.get(j + 1).getUk_name()).equals(String.valueOf(key.getUk_name()))) {
                signatures.add(signature.toString());
                signature = new StringBuilder();
            }
        }
        return signatures;
    }

    private static String type(TableConstraints table, String column) {
        FieldSchema field = table.column(column);
        return field == null ? null : field.getType();
    }

    private static String signature(String column, String type) {
        return normalize(column) + ":" + type + ";";
    }
}
