package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.SQLAllTableConstraints;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive constraints as the tree keeps them, within one lake transaction. A table object holds its own
 * constraints ({@link TableEntry#hiveConstraints()}: its primary key, the foreign keys it declares, its unique,
 * not-null, default and check constraints) and a copy of each foreign key that references it
 * ({@link TableEntry#hiveReferencedBy()}). Hive keeps one constraint row naming both tables; the copy on the
 * referenced side is that row seen from the parent: the parent lists the keys that reference it, and names them in
 * its own name space, as Hive's does (a constraint's name is unique among those whose parent table is that table).
 *
 * <p>A foreign key counts only while both sides hold it (the child its row, the parent the copy): dropping either
 * table ends it with no write to the other one, as Hive's drop deletes the row, and a table made again under the
 * same name starts with none. What one side holds alone is left out of every answer and pruned when that side's
 * constraints are next written. A rename over HMS renames both sides ({@link #renamed}).
 */
final class HmsConstraintStore {
    private final HmsCalls calls;
    private final LakeTransaction txn;
    private final Map<ObjectPath, Optional<TableConstraints>> tables = new LinkedHashMap<>();

    HmsConstraintStore(HmsCalls calls, LakeTransaction txn) {
        this.calls = requireNonNull(calls, "calls is null");
        this.txn = requireNonNull(txn, "txn is null");
    }

    /** One table's constraints, as read in the transaction and changed by the call so far. */
    static final class TableConstraints {
        final String db;
        final String name;
        final ObjectPath path;
        final TableEntry entry;
        final Table table;
        final SQLAllTableConstraints own;
        final List<SQLForeignKey> referencing;
        /** Its own names (not its foreign keys') and the keys referencing it when first read, for {@link #namesBefore}. */
        private Set<String> ownNamesBefore;

        private List<SQLForeignKey> referencingBefore;
        private Set<String> namesBefore;
        boolean primaryKeyBefore;
        boolean changed;
        private boolean pruned;
        /** Made by this transaction: the caller adds it with {@link #entry}, nothing stages it. */
        boolean created;

        private TableConstraints(String db, String name, ObjectPath path, TableEntry entry, Table table)
                throws MetaException {
            this.db = db;
            this.name = name;
            this.path = path;
            this.entry = entry;
            this.table = table;
            this.own = entry.hiveConstraints() == null
                    ? new SQLAllTableConstraints()
                    : HmsStructs.decode(
                            new SQLAllTableConstraints(),
                            entry.hiveConstraints(),
                            "the constraints of " + db + "." + name);
            this.referencing = entry.hiveReferencedBy() == null
                    ? new ArrayList<>()
                    : new ArrayList<>(HmsStructs.decode(
                                    new SQLAllTableConstraints(),
                                    entry.hiveReferencedBy(),
                                    "the foreign keys referencing " + db + "." + name)
                            .getForeignKeys());
            for (SQLAllTableConstraints list : List.of(own)) {
                if (!list.isSetPrimaryKeys()) list.setPrimaryKeys(new ArrayList<>());
                if (!list.isSetForeignKeys()) list.setForeignKeys(new ArrayList<>());
                if (!list.isSetUniqueConstraints()) list.setUniqueConstraints(new ArrayList<>());
                if (!list.isSetNotNullConstraints()) list.setNotNullConstraints(new ArrayList<>());
                if (!list.isSetDefaultConstraints()) list.setDefaultConstraints(new ArrayList<>());
                if (!list.isSetCheckConstraints()) list.setCheckConstraints(new ArrayList<>());
            }
        }

        boolean isTable(String otherDb, String otherName) {
            return db.equals(otherDb) && name.equals(otherName);
        }

        /** The column of this table (or partition key) named {@code column}, any case; null if none. */
        FieldSchema column(String column) {
            if (column == null) {
                return null;
            }
            List<FieldSchema> columns = new ArrayList<>();
            if (table.getSd() != null && table.getSd().getCols() != null) {
                columns.addAll(table.getSd().getCols());
            }
            if (table.getPartitionKeys() != null) {
                columns.addAll(table.getPartitionKeys());
            }
            for (FieldSchema field : columns) {
                if (field.getName() != null && field.getName().equalsIgnoreCase(column)) {
                    return field;
                }
            }
            return null;
        }
    }

    /** The TreeCat catalog the HMS serves (its name is a catalog name a request may carry). */
    String catalog() {
        return calls.catalog();
    }

    // ---- reading and writing tables

    /** The table {@code db.name}, read once per transaction; empty if there is none. */
    Optional<TableConstraints> table(String db, String name) throws MetaException {
        if (db == null
                || name == null
                || db.isEmpty()
                || name.isEmpty()
                || !HmsNames.fits(db)
                || !HmsNames.fits(name)) {
            return Optional.empty();
        }
        ObjectPath path = calls.tablePath(db, name);
        Optional<TableConstraints> known = tables.get(path);
        if (known != null) {
            return known;
        }
        Optional<TableEntry> entry = Tables.find(txn, path);
        Optional<TableConstraints> read = entry.isEmpty()
                ? Optional.empty()
                : Optional.of(start(
                        new TableConstraints(db, name, path, entry.get(), HmsTables.table(db, name, entry.get()))));
        tables.put(path, read);
        return read;
    }

    /** A table this transaction creates (not readable in it yet), with no constraints. */
    TableConstraints created(String db, String name, TableEntry entry, Table table) throws MetaException {
        ObjectPath path = calls.tablePath(db, name);
        TableConstraints created = start(new TableConstraints(db, name, path, entry, table));
        created.created = true;
        return created;
    }

    private TableConstraints start(TableConstraints table) {
        tables.put(table.path, Optional.of(table));
        table.ownNamesBefore = ownNames(table);
        table.referencingBefore = new ArrayList<>();
        table.referencing.forEach(key -> table.referencingBefore.add(key.deepCopy()));
        table.primaryKeyBefore = !table.own.getPrimaryKeys().isEmpty();
        return table;
    }

    /**
     * Stages every changed table, each with what only one side held pruned. A table this transaction created is
     * not staged: {@code created} returns its entry with the constraints, for the caller's add.
     */
    void stage() throws MetaException {
        stage(true);
    }

    private void stage(boolean prune) throws MetaException {
        for (Optional<TableConstraints> read : List.copyOf(tables.values())) {
            if (read.isPresent() && read.get().changed && !read.get().created) {
                TableConstraints table = read.get();
                txn.update(table.path, prune ? entry(table) : encoded(table));
            }
        }
    }

    /** The entry of {@code table} with its constraints as they are now, stale halves left out. */
    TableEntry entry(TableConstraints table) throws MetaException {
        table.own.setForeignKeys(visibleOwn(table));
        List<SQLForeignKey> referencing = visibleReferencing(table);
        table.referencing.clear();
        table.referencing.addAll(referencing);
        return encoded(table);
    }

    private static TableEntry encoded(TableConstraints table) throws MetaException {
        String what = "the constraints of " + table.db + "." + table.name;
        boolean none = table.own.getPrimaryKeys().isEmpty()
                && table.own.getForeignKeys().isEmpty()
                && table.own.getUniqueConstraints().isEmpty()
                && table.own.getNotNullConstraints().isEmpty()
                && table.own.getDefaultConstraints().isEmpty()
                && table.own.getCheckConstraints().isEmpty();
        SQLAllTableConstraints referencedBy = new SQLAllTableConstraints();
        referencedBy.setForeignKeys(table.referencing);
        return table.entry.withHiveConstraints(
                none ? null : HmsStructs.encode(table.own, what),
                table.referencing.isEmpty() ? null : HmsStructs.encode(referencedBy, what));
    }

    // ---- foreign keys: both sides

    /** Leaves out, once per transaction, what only this side of a foreign key holds. */
    private void prune(TableConstraints table) throws MetaException {
        if (!table.pruned) {
            List<SQLForeignKey> own = visibleOwn(table);
            List<SQLForeignKey> referencing = visibleReferencing(table);
            table.own.setForeignKeys(own);
            table.referencing.clear();
            table.referencing.addAll(referencing);
            table.pruned = true;
        }
    }

    /** The foreign keys {@code child} declares whose parent holds the copy. */
    List<SQLForeignKey> visibleOwn(TableConstraints child) throws MetaException {
        List<SQLForeignKey> visible = new ArrayList<>();
        for (SQLForeignKey key : child.own.getForeignKeys()) {
            Optional<TableConstraints> parent = table(key.getPktable_db(), key.getPktable_name());
            if (parent.isPresent() && holds(parent.get().referencing, key)) {
                visible.add(key);
            }
        }
        return visible;
    }

    /** The foreign keys referencing {@code parent} whose child still declares them. */
    List<SQLForeignKey> visibleReferencing(TableConstraints parent) throws MetaException {
        List<SQLForeignKey> visible = new ArrayList<>();
        for (SQLForeignKey key : parent.referencing) {
            Optional<TableConstraints> child = table(key.getFktable_db(), key.getFktable_name());
            if (child.isPresent() && holds(child.get().own.getForeignKeys(), key)) {
                visible.add(key);
            }
        }
        return visible;
    }

    private static boolean holds(List<SQLForeignKey> keys, SQLForeignKey key) {
        for (SQLForeignKey held : keys) {
            if (sameRow(held, key)) {
                return true;
            }
        }
        return false;
    }

    /** The same column of the same foreign key (the two tables, its name and the position). */
    static boolean sameRow(SQLForeignKey a, SQLForeignKey b) {
        return Objects.equals(a.getFk_name(), b.getFk_name())
                && Objects.equals(a.getFktable_db(), b.getFktable_db())
                && Objects.equals(a.getFktable_name(), b.getFktable_name())
                && Objects.equals(a.getPktable_db(), b.getPktable_db())
                && Objects.equals(a.getPktable_name(), b.getPktable_name())
                && a.getKey_seq() == b.getKey_seq();
    }

    /**
     * Adds one column of a foreign key to both sides, once each side's stale halves are gone (a key of a table
     * dropped since may have had the same name and columns).
     */
    void addForeignKey(TableConstraints child, TableConstraints parent, SQLForeignKey key) throws MetaException {
        prune(child);
        prune(parent);
        child.own.getForeignKeys().add(key);
        parent.referencing.add(key.deepCopy());
        child.changed = true;
        parent.changed = true;
    }

    /**
     * The names in {@code table}'s name space (Hive: the constraints whose parent table it is) before this call:
     * its own primary key, unique, not-null, default and check constraints, and the foreign keys that referenced it.
     * Hive checks a new name against what is stored, not against the other rows of the same call.
     */
    Set<String> namesBefore(TableConstraints table) throws MetaException {
        if (table.namesBefore == null) {
            Set<String> names = new HashSet<>(table.ownNamesBefore);
            for (SQLForeignKey key : table.referencingBefore) {
                Optional<TableConstraints> child = table(key.getFktable_db(), key.getFktable_name());
                if (child.isPresent() && holds(child.get().own.getForeignKeys(), key)) {
                    names.add(key.getFk_name());
                }
            }
            table.namesBefore = names;
        }
        return table.namesBefore;
    }

    private static Set<String> ownNames(TableConstraints table) {
        Set<String> names = new HashSet<>();
        table.own.getPrimaryKeys().forEach(c -> names.add(c.getPk_name()));
        table.own.getUniqueConstraints().forEach(c -> names.add(c.getUk_name()));
        table.own.getNotNullConstraints().forEach(c -> names.add(c.getNn_name()));
        table.own.getDefaultConstraints().forEach(c -> names.add(c.getDc_name()));
        table.own.getCheckConstraints().forEach(c -> names.add(c.getDc_name()));
        return names;
    }

    // ---- dropping one constraint

    /**
     * Removes every constraint named {@code constraint} whose parent or child table is {@code table}, as Hive's
     * {@code dropConstraint} does (all its columns; a foreign key from both sides). False if there is none.
     */
    boolean drop(TableConstraints table, String constraint) throws MetaException {
        boolean dropped = false;
        SQLAllTableConstraints own = table.own;
        dropped |= own.getPrimaryKeys().removeIf(c -> constraint.equals(c.getPk_name()));
        dropped |= own.getUniqueConstraints().removeIf(c -> constraint.equals(c.getUk_name()));
        dropped |= own.getNotNullConstraints().removeIf(c -> constraint.equals(c.getNn_name()));
        dropped |= own.getDefaultConstraints().removeIf(c -> constraint.equals(c.getDc_name()));
        dropped |= own.getCheckConstraints().removeIf(c -> constraint.equals(c.getDc_name()));
        for (SQLForeignKey key : visibleOwn(table)) {
            if (constraint.equals(key.getFk_name())) {
                own.getForeignKeys().removeIf(held -> sameRow(held, key));
                TableConstraints parent =
                        table(key.getPktable_db(), key.getPktable_name()).orElseThrow();
                parent.referencing.removeIf(held -> sameRow(held, key));
                parent.changed = true;
                dropped = true;
            }
        }
        for (SQLForeignKey key : visibleReferencing(table)) {
            if (constraint.equals(key.getFk_name())) {
                table.referencing.removeIf(held -> sameRow(held, key));
                TableConstraints child =
                        table(key.getFktable_db(), key.getFktable_name()).orElseThrow();
                child.own.getForeignKeys().removeIf(held -> sameRow(held, key));
                child.changed = true;
                dropped = true;
            }
        }
        table.changed |= dropped;
        return dropped;
    }

    // ---- renames

    /**
     * A table renamed over HMS from {@code db.name} (read in this transaction) to {@code newDb.newName}: the
     * foreign keys on both sides name it anew, in the other tables too. Returns the renamed table's entry, for the
     * caller to write at the new path; the other tables are staged.
     */
    TableEntry renamed(TableEntry renamedEntry, String db, String name, String newDb, String newName)
            throws MetaException {
        Optional<TableConstraints> found = table(db, name);
        if (found.isEmpty() || (renamedEntry.hiveConstraints() == null && renamedEntry.hiveReferencedBy() == null)) {
            return renamedEntry;
        }
        TableConstraints old = found.get();
        List<SQLForeignKey> own = visibleOwn(old);
        List<SQLForeignKey> referencing = visibleReferencing(old);
        for (SQLForeignKey key : own) {
            if (!old.isTable(key.getPktable_db(), key.getPktable_name())) {
                TableConstraints parent =
                        table(key.getPktable_db(), key.getPktable_name()).orElseThrow();
                for (SQLForeignKey copy : parent.referencing) {
                    if (sameRow(copy, key)) {
                        copy.setFktable_db(newDb);
                        copy.setFktable_name(newName);
                    }
                }
                parent.changed = true;
            }
        }
        for (SQLForeignKey key : referencing) {
            if (!old.isTable(key.getFktable_db(), key.getFktable_name())) {
                TableConstraints child =
                        table(key.getFktable_db(), key.getFktable_name()).orElseThrow();
                for (SQLForeignKey row : child.own.getForeignKeys()) {
                    if (sameRow(row, key)) {
                        row.setPktable_db(newDb);
                        row.setPktable_name(newName);
                    }
                }
                child.changed = true;
            }
        }
        SQLAllTableConstraints moved = old.own.deepCopy();
        moved.setForeignKeys(own);
        List<SQLForeignKey> movedReferencing = new ArrayList<>();
        for (SQLForeignKey key : referencing) {
            movedReferencing.add(key.deepCopy());
        }
        for (SQLForeignKey key : moved.getForeignKeys()) {
            rename(key, db, name, newDb, newName);
        }
        for (SQLForeignKey key : movedReferencing) {
            rename(key, db, name, newDb, newName);
        }
        for (SQLPrimaryKey key : moved.getPrimaryKeys()) {
            key.setTable_db(newDb);
            key.setTable_name(newName);
        }
        for (SQLUniqueConstraint key : moved.getUniqueConstraints()) {
            key.setTable_db(newDb);
            key.setTable_name(newName);
        }
        for (SQLNotNullConstraint key : moved.getNotNullConstraints()) {
            key.setTable_db(newDb);
            key.setTable_name(newName);
        }
        for (SQLDefaultConstraint key : moved.getDefaultConstraints()) {
            key.setTable_db(newDb);
            key.setTable_name(newName);
        }
        for (SQLCheckConstraint key : moved.getCheckConstraints()) {
            key.setTable_db(newDb);
            key.setTable_name(newName);
        }
        // Not pruned: the renamed table is not at its new name yet in this transaction.
        stage(false);
        SQLAllTableConstraints referencedBy = new SQLAllTableConstraints();
        referencedBy.setForeignKeys(movedReferencing);
        String what = "the constraints of " + newDb + "." + newName;
        return renamedEntry.withHiveConstraints(
                HmsStructs.encode(moved, what),
                movedReferencing.isEmpty() ? null : HmsStructs.encode(referencedBy, what));
    }

    private static void rename(SQLForeignKey key, String db, String name, String newDb, String newName) {
        if (key.getFktable_db().equals(db) && key.getFktable_name().equals(name)) {
            key.setFktable_db(newDb);
            key.setFktable_name(newName);
        }
        if (key.getPktable_db().equals(db) && key.getPktable_name().equals(name)) {
            key.setPktable_db(newDb);
            key.setPktable_name(newName);
        }
    }

    // ---- answers

    /**
     * A foreign key as Hive answers it: with the name of the parent's primary key on the referenced column; none
     * (empty) while the parent has no primary key there, as Hive's query joins the key to it.
     */
    Optional<SQLForeignKey> answer(SQLForeignKey key) throws MetaException {
        Optional<TableConstraints> parent = table(key.getPktable_db(), key.getPktable_name());
        if (parent.isEmpty()) {
            return Optional.empty();
        }
        for (SQLPrimaryKey primaryKey : parent.get().own.getPrimaryKeys()) {
            if (primaryKey.getColumn_name() != null
                    && primaryKey.getColumn_name().equalsIgnoreCase(key.getPkcolumn_name())) {
                SQLForeignKey answer = key.deepCopy();
                answer.setPk_name(primaryKey.getPk_name());
                answer.setCatName(HmsNames.HIVE_CATALOG);
                return Optional.of(answer);
            }
        }
        return Optional.empty();
    }

    static String normalize(String identifier) {
        return identifier == null ? null : identifier.toLowerCase(Locale.ROOT);
    }
}
