package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.PathChange;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.Namespaces;
import io.treecat.lakehouse.catalog.Partitions;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hive notification events one commit made, rebuilt from its commit-log record and the tree at its vid (after)
 * and the vid before (before), through the same mapping the calls answer with ({@link HmsDatabases}, {@link
 * HmsTables}, {@link HmsPartitions}). A pure function of the record and the tree, so the events of a vid, and their
 * number, are the same every time they are rebuilt, across restarts: the event ids ({@link HmsEventLog}) count them.
 *
 * <p>What a commit's paths make, in this order (Hive's own order for the calls that make several):
 * <ol>
 *   <li>{@code CREATE_DATABASE} per namespace added at {@code /<catalog>/<db>}, unless its catalog was added in the
 *       same commit (a catalog's own {@code default} database, which Hive makes without an event);
 *   <li>{@code ALTER_DATABASE} per namespace updated whose {@code Database} changed;
 *   <li>{@code CREATE_TABLE} per table added at {@code /<catalog>/<db>/<table>};
 *   <li>{@code ALTER_TABLE} per table updated whose {@code Table} changed (a commit over Iceberg REST or the native
 *       API swapping {@code metadata_location} too, as Iceberg's HiveCatalog alters the table); and for a rename
 *       (one table removed and one added in one commit: the only commit that does both), one {@code ALTER_TABLE}
 *       from the old table to the new, as Hive's {@code alter_table} reports it, in place of the drop and create;
 *   <li>{@code ADD_PARTITION} per table, listing the partitions added below it (not below a table added, removed
 *       or renamed by the same commit: Hive reports none for those either);
 *   <li>{@code ALTER_PARTITION} per partition updated whose {@code Partition} changed, and for a partition rename
 *       (one partition of a table removed and one added by {@code alterPartitions}) one from the old to the new;
 *   <li>{@code DROP_PARTITION} per table, listing the partitions removed;
 *   <li>{@code DROP_TABLE} per table removed (a database dropped with cascade: each of its tables first, as Hive's
 *       {@code drop_database} drops them);
 *   <li>{@code DROP_DATABASE} per namespace removed.
 * </ol>
 * A change of statistics or constraints only leaves the Hive object equal and makes no event (Hive reports those as
 * other event types, which TreeCat does not make). A compact record (a bulk-load chunk, a commit of more than
 * {@code CommitLog.FULL_RECORD_LIMIT} paths) lists no paths, only prefixes: what it changed of Hive's objects is
 * found by comparing the tree below them ({@link Derivation#compactChanges}).
 */
final class HmsCommitEvents {
    private static final Logger LOG = LoggerFactory.getLogger(HmsCommitEvents.class);

    static final String CREATE_DATABASE = "CREATE_DATABASE";
    static final String ALTER_DATABASE = "ALTER_DATABASE";
    static final String DROP_DATABASE = "DROP_DATABASE";
    static final String CREATE_TABLE = "CREATE_TABLE";
    static final String ALTER_TABLE = "ALTER_TABLE";
    static final String DROP_TABLE = "DROP_TABLE";
    static final String ADD_PARTITION = "ADD_PARTITION";
    static final String ALTER_PARTITION = "ALTER_PARTITION";
    static final String DROP_PARTITION = "DROP_PARTITION";

    /** The commit-log operation of HMS's partition alters, which a partition rename is one of. */
    private static final String ALTER_PARTITIONS_OPERATION = "alterPartitions";

    private static final int DATABASE_DEPTH = 2;
    private static final int TABLE_DEPTH = 3;

    /** One event before it has an id: what {@code NotificationEvent} holds but {@code eventId}. */
    record Event(String type, String catalog, String db, String table, String message, int time) {
        Event {
            requireNonNull(type, "type is null");
            requireNonNull(catalog, "catalog is null");
            requireNonNull(message, "message is null");
        }
    }

    private final HmsCalls hive;

    /** @param hive the calls of Hive's default catalog; the events of the other catalogs use {@code hive.in(…)} */
    HmsCommitEvents(HmsCalls hive) {
        this.hive = requireNonNull(hive, "hive is null");
    }

    /** The events of the commit {@code record} describes. */
    List<Event> of(CommitRecord record) throws TException {
        if (record.compact()) {
            List<ObjectPath> prefixes = new ArrayList<>();
            for (ObjectPath prefix : record.prefixes()) {
                if (mayBeHive(prefix, 1)) {
                    prefixes.add(prefix);
                }
            }
            return prefixes.isEmpty() ? List.of() : derive(record, (derivation) -> derivation.compactChanges(prefixes));
        }
        List<PathChange> candidates = new ArrayList<>();
        for (PathChange change : record.changes()) {
            if (change.objectKind() == ObjectKind.INNER && mayBeHive(change.path(), DATABASE_DEPTH)) {
                candidates.add(change);
            }
        }
        return candidates.isEmpty() ? List.of() : derive(record, derivation -> candidates);
    }

    /** Which changes of a record to make events of, read in its derivation's transactions. */
    @FunctionalInterface
    private interface Changes {
        List<PathChange> of(Derivation derivation) throws TException;
    }

    private List<Event> derive(CommitRecord record, Changes changes) throws TException {
        long vid = record.vid();
        return hive.readAt(
                vid,
                Action.NATIVE_READ,
                ObjectPath.ROOT,
                after -> hive.readAt(vid - 1, Action.NATIVE_READ, ObjectPath.ROOT, before -> {
                    Derivation derivation = new Derivation(record, after, before);
                    return derivation.events(changes.of(derivation));
                }));
    }

    /**
     * Whether a path (at least {@code minDepth} deep) may be, or lie above, a database, table or partition of a
     * catalog Hive clients see (a lower-case name, as {@code HmsNames} takes catalogs), judged from the path alone, so
     * most commits of other objects (file index leaves, HMS locks and transactions, hidden objects) are passed over
     * without reading the tree.
     */
    private static boolean mayBeHive(ObjectPath path, int minDepth) {
        if (path.depth() < minDepth) {
            return false;
        }
        List<String> ids = path.ids();
        if (!ids.get(0).equals(HmsNames.normalize(ids.get(0))) || ids.get(0).startsWith(".")) {
            return false;
        }
        for (int i = 1; i < ids.size(); i++) {
            if (ids.get(i).startsWith(".") || (i >= TABLE_DEPTH && ids.get(i).indexOf('=') < 0)) {
                return false;
            }
        }
        return true;
    }

    /** The events of one record, read in the transactions at its vid and the vid before. */
    private final class Derivation {
        private final CommitRecord record;
        private final LakeTransaction after;
        private final LakeTransaction before;
        private final int time;
        private final Set<ObjectPath> catalogsAdded = new HashSet<>();
        /** Every table path added or removed by the commit, Hive table or not: partitions below them make no event. */
        private final Set<ObjectPath> tablesMoved = new HashSet<>();

        Derivation(CommitRecord record, LakeTransaction after, LakeTransaction before) {
            this.record = record;
            this.after = after;
            this.before = before;
            this.time = (int) Math.min(Integer.MAX_VALUE, record.commitTimeMillis() / 1000);
            noteMoves(record.changes());
        }

        private void noteMoves(List<PathChange> changes) {
            for (PathChange change : changes) {
                if (change.path().depth() == 1 && change.change() == ChangeKind.ADDED) {
                    catalogsAdded.add(change.path());
                } else if (change.path().depth() == TABLE_DEPTH && change.change() != ChangeKind.UPDATED) {
                    tablesMoved.add(change.path());
                }
            }
        }

        /**
         * What a full record would have listed of a compact one's Hive objects, found by comparing the tree before
         * and after below each of its prefixes: below a catalog, its databases (and the tables of a database
         * removed); below a database, its tables; below a table or a partition level, the table's partitions. So a
         * commit too large for a full record (a table or database dropped with more than {@code FULL_RECORD_LIMIT}
         * partitions, a large {@code add_partitions}, a bulk-load chunk) still makes its events, except the ones
         * below the level its prefixes were shortened to (a prefix is a catalog: no table or partition events in
         * its databases that stay; a database: no partition events).
         */
        List<PathChange> compactChanges(List<ObjectPath> prefixes) throws TException {
            Map<ObjectPath, ChangeKind> changes = new TreeMap<>();
            Set<ObjectPath> tables = new TreeSet<>();
            for (ObjectPath prefix : prefixes) {
                if (prefix.depth() == 1) {
                    if (before.read(prefix).isEmpty() && after.read(prefix).isPresent()) {
                        changes.put(prefix, ChangeKind.ADDED);
                    }
                    compare(prefix, ObjectType.NAMESPACE, changes);
                } else if (prefix.depth() == DATABASE_DEPTH) {
                    compare(prefix, ObjectType.TABLE, changes);
                } else {
                    tables.add(prefix.prefix(TABLE_DEPTH));
                }
            }
            for (Map.Entry<ObjectPath, ChangeKind> change : List.copyOf(changes.entrySet())) {
                if (change.getKey().depth() == DATABASE_DEPTH && change.getValue() == ChangeKind.REMOVED) {
                    for (CatalogObject table : before.children(change.getKey(), ObjectType.TABLE)) {
                        changes.put(table.path(), ChangeKind.REMOVED);
                    }
                }
            }
            for (ObjectPath tablePath : tables) {
                Optional<Table> tableBefore = table(before, tablePath);
                Optional<Table> tableAfter = table(after, tablePath);
                if (tableBefore.isEmpty() || tableAfter.isEmpty()) {
                    continue; // made or dropped with the table: its own prefix (the database) says so
                }
                Set<ObjectPath> was =
                        paths(Partitions.all(before, tablePath, HmsPartitions.keys(tableBefore.get()), -1));
                Set<ObjectPath> is = paths(Partitions.all(after, tablePath, HmsPartitions.keys(tableAfter.get()), -1));
                difference(was, is, changes);
            }
            List<PathChange> listed = new ArrayList<>();
            changes.forEach((path, kind) -> listed.add(new PathChange(path, kind, ObjectKind.INNER)));
            noteMoves(listed);
            return listed;
        }

        /** The children of {@code parent} of one type before and after, as the changes a full record would list. */
        private void compare(ObjectPath parent, ObjectType type, Map<ObjectPath, ChangeKind> changes) {
            difference(paths(before.children(parent, type)), paths(after.children(parent, type)), changes);
        }

        private static void difference(Set<ObjectPath> was, Set<ObjectPath> is, Map<ObjectPath, ChangeKind> changes) {
            for (ObjectPath path : was) {
                // Present on both sides: listed as updated, and an event only if its Hive object differs.
                changes.put(path, is.contains(path) ? ChangeKind.UPDATED : ChangeKind.REMOVED);
            }
            for (ObjectPath path : is) {
                if (!was.contains(path)) {
                    changes.put(path, ChangeKind.ADDED);
                }
            }
        }

        private static Set<ObjectPath> paths(List<CatalogObject> objects) {
            Set<ObjectPath> paths = new HashSet<>();
            for (CatalogObject object : objects) {
                paths.add(object.path());
            }
            return paths;
        }

        List<Event> events(List<PathChange> changes) throws TException {
            List<Event> databasesMade = new ArrayList<>();
            List<Event> databasesAltered = new ArrayList<>();
            List<Event> databasesDropped = new ArrayList<>();
            Map<ObjectPath, Table> tablesAdded = new LinkedHashMap<>();
            Map<ObjectPath, Table> tablesRemoved = new LinkedHashMap<>();
            List<Event> tablesAltered = new ArrayList<>();
            Map<ObjectPath, PartitionChanges> partitions = new LinkedHashMap<>();
            for (PathChange change : changes) {
                ObjectPath path = change.path();
                // A catalog (depth 1) makes none: Hive's catalog events are not made.
                if (path.depth() == DATABASE_DEPTH) {
                    database(change, databasesMade, databasesAltered, databasesDropped);
                } else if (path.depth() == TABLE_DEPTH) {
                    table(change, tablesAdded, tablesRemoved, tablesAltered);
                } else if (path.depth() > TABLE_DEPTH && !tablesMoved.contains(path.prefix(TABLE_DEPTH))) {
                    partitions
                            .computeIfAbsent(path.prefix(TABLE_DEPTH), table -> new PartitionChanges())
                            .add(change);
                }
            }
            List<Event> tablesMade = new ArrayList<>();
            List<Event> tablesDropped = new ArrayList<>();
            if (tablesAdded.size() == 1 && tablesRemoved.size() == 1) {
                Table from = tablesRemoved.values().iterator().next();
                Table to = tablesAdded.values().iterator().next();
                tablesAltered.add(event(ALTER_TABLE, to, HmsEventMessages.alterTable(from, to, time)));
            } else {
                for (Table table : tablesAdded.values()) {
                    tablesMade.add(event(CREATE_TABLE, table, HmsEventMessages.createTable(table, time)));
                }
                for (Table table : tablesRemoved.values()) {
                    tablesDropped.add(event(DROP_TABLE, table, HmsEventMessages.dropTable(table, time)));
                }
            }
            List<Event> partitionsAdded = new ArrayList<>();
            List<Event> partitionsAltered = new ArrayList<>();
            List<Event> partitionsDropped = new ArrayList<>();
            for (Map.Entry<ObjectPath, PartitionChanges> table : partitions.entrySet()) {
                table.getValue().events(table.getKey(), partitionsAdded, partitionsAltered, partitionsDropped);
            }
            List<Event> events = new ArrayList<>();
            events.addAll(databasesMade);
            events.addAll(databasesAltered);
            events.addAll(tablesMade);
            events.addAll(tablesAltered);
            events.addAll(partitionsAdded);
            events.addAll(partitionsAltered);
            events.addAll(partitionsDropped);
            events.addAll(tablesDropped);
            events.addAll(databasesDropped);
            return events;
        }

        private void database(PathChange change, List<Event> made, List<Event> altered, List<Event> dropped)
                throws MetaException {
            ObjectPath path = change.path();
            switch (change.change()) {
                case ADDED -> {
                    Optional<Database> database = database(after, path);
                    if (database.isPresent() && !catalogsAdded.contains(path.prefix(1))) {
                        made.add(event(
                                CREATE_DATABASE,
                                database.get(),
                                HmsEventMessages.createDatabase(database.get(), time)));
                    }
                }
                case UPDATED -> {
                    Optional<Database> from = database(before, path);
                    Optional<Database> to = database(after, path);
                    if (from.isPresent() && to.isPresent() && !from.equals(to)) {
                        altered.add(event(
                                ALTER_DATABASE, to.get(), HmsEventMessages.alterDatabase(from.get(), to.get(), time)));
                    }
                }
                case REMOVED -> {
                    Optional<Database> database = database(before, path);
                    if (database.isPresent()) {
                        dropped.add(event(
                                DROP_DATABASE, database.get(), HmsEventMessages.dropDatabase(database.get(), time)));
                    }
                }
            }
        }

        private void table(
                PathChange change, Map<ObjectPath, Table> added, Map<ObjectPath, Table> removed, List<Event> altered)
                throws MetaException {
            ObjectPath path = change.path();
            switch (change.change()) {
                case ADDED -> table(after, path).ifPresent(table -> added.put(path, table));
                case REMOVED -> table(before, path).ifPresent(table -> removed.put(path, table));
                case UPDATED -> {
                    Optional<Table> from = table(before, path);
                    Optional<Table> to = table(after, path);
                    if (from.isPresent() && to.isPresent() && !from.equals(to)) {
                        altered.add(
                                event(ALTER_TABLE, to.get(), HmsEventMessages.alterTable(from.get(), to.get(), time)));
                    }
                }
            }
        }

        /** The partition changes below one table. */
        private final class PartitionChanges {
            private final List<ObjectPath> added = new ArrayList<>();
            private final List<ObjectPath> removed = new ArrayList<>();
            private final List<ObjectPath> updated = new ArrayList<>();

            void add(PathChange change) {
                switch (change.change()) {
                    case ADDED -> added.add(change.path());
                    case REMOVED -> removed.add(change.path());
                    case UPDATED -> updated.add(change.path());
                }
            }

            void events(ObjectPath tablePath, List<Event> addEvents, List<Event> alterEvents, List<Event> dropEvents)
                    throws TException {
                Optional<Table> tableAfter = table(after, tablePath);
                Optional<Table> tableBefore = table(before, tablePath);
                List<Partition> made = tableAfter.isPresent() ? partitions(after, tableAfter.get(), added) : List.of();
                List<Partition> gone =
                        tableBefore.isPresent() ? partitions(before, tableBefore.get(), removed) : List.of();
                if (made.size() == 1
                        && gone.size() == 1
                        && record.origin().operation().equals(ALTER_PARTITIONS_OPERATION)) {
                    // rename_partition: Hive reports the partition altered from its old values to its new ones.
                    alterEvents.add(event(
                            ALTER_PARTITION,
                            tableAfter.get(),
                            HmsEventMessages.alterPartition(tableAfter.get(), gone.get(0), made.get(0), time)));
                } else {
                    if (!made.isEmpty()) {
                        addEvents.add(event(
                                ADD_PARTITION,
                                tableAfter.get(),
                                HmsEventMessages.addPartitions(tableAfter.get(), made, time)));
                    }
                    if (!gone.isEmpty()) {
                        dropEvents.add(event(
                                DROP_PARTITION,
                                tableBefore.get(),
                                HmsEventMessages.dropPartitions(tableBefore.get(), gone, time)));
                    }
                }
                if (tableAfter.isEmpty() || tableBefore.isEmpty()) {
                    return;
                }
                for (ObjectPath path : updated) {
                    Optional<Partition> from = partition(before, tableBefore.get(), path);
                    Optional<Partition> to = partition(after, tableAfter.get(), path);
                    if (from.isPresent() && to.isPresent() && !from.equals(to)) {
                        alterEvents.add(event(
                                ALTER_PARTITION,
                                tableAfter.get(),
                                HmsEventMessages.alterPartition(tableAfter.get(), from.get(), to.get(), time)));
                    }
                }
            }

            private List<Partition> partitions(LakeTransaction txn, Table table, List<ObjectPath> paths)
                    throws MetaException {
                List<Partition> found = new ArrayList<>();
                for (ObjectPath path : paths) {
                    partition(txn, table, path).ifPresent(found::add);
                }
                return found;
            }
        }

        /** The Hive partition at {@code path} (a last level, holding Hive's struct), as {@code txn} sees it. */
        private Optional<Partition> partition(LakeTransaction txn, Table table, ObjectPath path) throws MetaException {
            if (path.depth() != TABLE_DEPTH + table.getPartitionKeysSize()) {
                return Optional.empty();
            }
            Optional<CatalogObject> object = txn.read(path);
            if (object.isEmpty() || PartitionEntry.hivePartitionOf(object.get().value()) == null) {
                return Optional.empty();
            }
            Partition partition;
            try {
                partition = HmsPartitions.partition(
                        table.getDbName(), table.getTableName(), object.get().value());
            } catch (MetaException e) {
                return undecodable(path, e);
            }
            partition.setCatName(table.getCatName());
            return Optional.of(partition);
        }

        private Optional<Database> database(LakeTransaction txn, ObjectPath path) {
            String catalog = path.ids().get(0);
            String db = path.ids().get(1);
            HmsCalls calls = hive.in(catalog);
            return Namespaces.find(txn, path).map(entry -> {
                Database database = HmsDatabases.database(db, entry, calls.defaultLocation(db));
                database.setCatalogName(calls.names().hmsCatalog());
                return database;
            });
        }

        private Optional<Table> table(LakeTransaction txn, ObjectPath path) throws MetaException {
            Optional<TableEntry.HiveView> view = Tables.findHiveView(txn, path);
            if (view.isEmpty()) {
                return Optional.empty();
            }
            Table table;
            try {
                table = HmsTables.table(path.ids().get(1), path.ids().get(2), view.get());
            } catch (MetaException e) {
                return undecodable(path, e);
            }
            table.setCatName(hive.names().hmsName(path.ids().get(0)));
            return Optional.of(table);
        }

        /**
         * A stored Hive struct that does not decode is no Hive object to the log: it fails the same way every time,
         * so the events (and the ids after them) stay the same, where failing the call would stop every client of
         * the log at this commit for good.
         */
        private <T> Optional<T> undecodable(ObjectPath path, MetaException e) {
            LOG.warn("The notification log passes over {} at vid {}: {}", path, record.vid(), e.getMessage());
            return Optional.empty();
        }

        private Event event(String type, Database database, String message) {
            return new Event(type, database.getCatalogName(), database.getName(), null, message, time);
        }

        private Event event(String type, Table table, String message) {
            return new Event(type, table.getCatName(), table.getDbName(), table.getTableName(), message, time);
        }
    }
}
