package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code exchange_partition} and {@code exchange_partitions}: Hive's {@code ALTER TABLE dest EXCHANGE PARTITION (...)
 * WITH TABLE source}, which moves the partitions a partial spec selects from the source table to a destination table
 * of the same schema, and their directory with them, as Hive 4's {@code HMSHandler.exchange_partitions} does.
 *
 * <p>The metadata moves in one lake transaction: it reads both tables and the partitions, checks Hive's conditions
 * (in Hive's order, with its {@link MetaException}s: both tables exist; the spec selects at least one partition; same
 * columns and partition keys, by name and type; the spec names at least one key; none of the partitions is in the
 * destination), adds each partition to the destination at {@code <destination location>/<partition name>} (its values,
 * parameters and times kept; its column statistics, like Hive's, not) and removes it from the source. The data moves as
 * Hive moves it: one directory, {@code <source location>/<spec's name>} (say {@code ds=1}, holding every partition
 * below it), renamed to the same name under the destination. The transaction checks that the move can be made (both
 * {@code file:} locations, the source directory there, the destination one not), and the move is made only after the
 * commit. Should it fail then, the call answers a MetaException that says the partitions were exchanged and where
 * their data still is: the metadata is not moved back.
 *
 * <p>The transaction is authorized as a change of the source table's partitions ({@link Action#ALTER_PARTITIONS});
 * the seam names one path, and both tables are in the same catalog.
 */
final class HmsExchangeCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HmsExchangeCalls.class);

    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsExchangeCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    /** As {@link #exchange_partitions}; answers an empty {@link Partition}, as Hive does. */
    public Partition exchange_partition(
            Map<String, String> partitionSpecs, String sourceDb, String sourceTable, String destDb, String destTable)
            throws TException {
        exchange_partitions(partitionSpecs, sourceDb, sourceTable, destDb, destTable);
        return new Partition();
    }

    /** Moves the partitions; answers them as they are in the destination. */
    public List<Partition> exchange_partitions(
            Map<String, String> partitionSpecs, String sourceDb, String sourceTable, String destDb, String destTable)
            throws TException {
        if (partitionSpecs == null || sourceDb == null || sourceTable == null || destDb == null || destTable == null) {
            throw new MetaException("The DB and table name for the source and destination tables,"
                    + " and the partition specs must not be null.");
        }
        if (!catalog(sourceDb).equals(catalog(destDb))) {
            throw new MetaException("You cannot move a partition across catalogs");
        }
        HmsCalls.TableName source = name(sourceDb, sourceTable, "source");
        HmsCalls.TableName dest = name(destDb, destTable, "destination");
        Exchange exchange = calls.write(Action.ALTER_PARTITIONS, calls.tablePath(source), txn -> {
            Table to = table(txn, dest, "destination");
            Table from = table(txn, source, "source");
            List<String> keys = HmsPartitions.keyNames(from);
            List<String> values = new ArrayList<>();
            List<String> presentKeys = new ArrayList<>();
            List<String> presentValues = new ArrayList<>();
            for (String key : keys) {
                String value = partitionSpecs.get(key);
                values.add(value == null ? "" : value);
                if (value != null && !value.isEmpty()) {
                    presentKeys.add(key);
                    presentValues.add(value);
                }
            }
            List<CatalogObject> moving = keys.isEmpty() ? List.of() : partitions.matching(txn, from, values, -1);
            if (moving.isEmpty()) {
                throw new MetaException(
                        "No partition is found with the values " + partitionSpecs + " for the table " + sourceTable);
            }
            if (!sameColumns(columns(from), columns(to))
                    || !sameColumns(HmsPartitions.partitionKeys(from), HmsPartitions.partitionKeys(to))) {
                throw new MetaException("The tables have different schemas. Their partitions cannot be exchanged.");
            }
            if (presentKeys.isEmpty()) {
                throw new MetaException("Invalid partition key & values; keys [], values []");
            }
            List<Partition> exchanged = partitions.partitions(from, moving);
            for (Partition partition : exchanged) {
                if (partitions.find(txn, to, partition.getValues()).isPresent()) {
                    throw new MetaException("The partition " + HmsPartitions.name(to, partition.getValues())
                            + " already exists in the table " + destTable);
                }
            }
            String specName = HivePartitionNames.name(presentKeys, presentValues);
            Move move = Move.check(child(location(from), specName), child(location(to), specName));
            List<Partition> copies = new ArrayList<>();
            List<ObjectPath> paths = new ArrayList<>();
            for (int i = 0; i < exchanged.size(); i++) {
                Partition copy = exchanged.get(i).deepCopy();
                copy.setDbName(to.getDbName());
                copy.setTableName(to.getTableName());
                copy.getSd().setLocation(HmsPartitions.defaultLocation(to, copy.getValues()));
                copies.add(copy);
                paths.add(moving.get(i).path());
            }
            List<Partition> added = partitions.add(txn, to, copies, false);
            partitions.drop(txn, from, paths);
            return new Exchange(added, move);
        });
        exchange.move().run(dest);
        return exchange.partitions();
    }

    private record Exchange(List<Partition> partitions, Move move) {}

    private String catalog(String db) {
        if (db.startsWith("@")) {
            int separator = db.indexOf('#');
            String catalog = separator < 0 ? db.substring(1) : db.substring(1, separator);
            return catalog.equalsIgnoreCase(HmsNames.HIVE_CATALOG) || catalog.equals(calls.catalog())
                    ? HmsNames.HIVE_CATALOG
                    : catalog;
        }
        return HmsNames.HIVE_CATALOG;
    }

    private HmsCalls.TableName name(String db, String table, String role) throws TException {
        HmsCalls.TableName name;
        try {
            name = calls.tableName(db, table);
        } catch (NoSuchObjectException | MetaException e) {
            throw notFound(db, table, role);
        }
        if (!HmsNames.fits(name.db()) || !HmsNames.fits(name.name())) {
            // Longer than any stored name: not found, as Hive's lookup answers, rather than an invalid tree path.
            throw notFound(db, table, role);
        }
        return name;
    }

    private static MetaException notFound(String db, String table, String role) {
        return new MetaException("The " + role + " table " + HmsNames.HIVE_CATALOG + "." + shown(db) + "."
                + shown(table) + " not found");
    }

    /** A name as a message shows it: one longer than a stored name can be is cut, not echoed whole. */
    private static String shown(String name) {
        return name != null && !HmsNames.fits(name)
                ? name.substring(0, 32) + "… (" + name.length() + " characters)"
                : name;
    }

    private Table table(io.treecat.lakehouse.txn.LakeTransaction txn, HmsCalls.TableName name, String role)
            throws TException {
        try {
            return calls.requireTable(txn, name);
        } catch (NoSuchObjectException e) {
            throw new MetaException("The " + role + " table " + HmsNames.HIVE_CATALOG + "." + name.db() + "."
                    + name.name() + " not found");
        }
    }

    private static List<FieldSchema> columns(Table table) {
        return table.getSd() == null || table.getSd().getCols() == null
                ? List.of()
                : table.getSd().getCols();
    }

    /** Hive's {@code compareFieldColumns}: the same names (stored lower-cased) and types, in order; comments aside. */
    static boolean sameColumns(List<FieldSchema> a, List<FieldSchema> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!String.valueOf(a.get(i).getName())
                            .equalsIgnoreCase(String.valueOf(b.get(i).getName()))
                    || !java.util.Objects.equals(a.get(i).getType(), b.get(i).getType())) {
                return false;
            }
        }
        return true;
    }

    private static String location(Table table) throws MetaException {
        StorageDescriptor sd = table.getSd();
        if (sd == null || sd.getLocation() == null || sd.getLocation().isEmpty()) {
            throw new MetaException("Table " + table.getDbName() + "." + table.getTableName() + " has no location");
        }
        return sd.getLocation();
    }

    private static String child(String location, String name) {
        return (location.endsWith("/") ? location : location + "/") + name;
    }

    /**
     * The directory an exchange renames, checked in the transaction (a {@code file:} location, as {@link HmsDataFiles}
     * takes them; the source a directory; the destination free) and renamed after the commit.
     */
    record Move(String from, String to, Path source, Path target) {
        static Move check(String from, String to) throws MetaException {
            Optional<Path> source = HmsDataFiles.path(from);
            Optional<Path> target = HmsDataFiles.path(to);
            if (source.isEmpty() || target.isEmpty()) {
                throw new MetaException("Exchanging partitions moves their directory, which TreeCat does only between"
                        + " file: locations without . or .. segments: " + from + " to " + to);
            }
            if (!Files.isDirectory(source.get(), LinkOption.NOFOLLOW_LINKS)) {
                throw new MetaException(
                        "Got exception: java.io.FileNotFoundException File " + from + " does not exist");
            }
            if (Files.exists(target.get(), LinkOption.NOFOLLOW_LINKS)) {
                throw new MetaException("Got exception: java.io.IOException Cannot rename the source path."
                        + " The destination path already exists.");
            }
            return new Move(from, to, source.get(), target.get());
        }

        /** Renames the directory; the partitions are already exchanged, so a failure says where the data still is. */
        void run(HmsCalls.TableName dest) throws MetaException {
            try {
                Files.createDirectories(target.getParent());
                Files.move(source, target);
            } catch (IOException | RuntimeException e) {
                LOG.error(
                        "Partitions exchanged to {}.{}, but moving their data from {} to {} failed",
                        dest.db(),
                        dest.name(),
                        from,
                        to,
                        e);
                throw new MetaException("The partitions were exchanged to " + dest.db() + "." + dest.name()
                        + ", but moving their data from " + from + " to " + to + " failed (" + e
                        + "): the data is still at " + from + "; move it there by hand");
            }
        }
    }
}
