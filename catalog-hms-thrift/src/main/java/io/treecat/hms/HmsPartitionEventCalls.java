package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PartitionEventsEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidPartitionException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.apache.thrift.TException;

/**
 * Hive's partition marks: {@code markPartitionForEvent(db, table, spec, type)} records that an event (Hive has one,
 * {@code LOAD_DONE}) happened to a partition, {@code isPartitionMarkedForEvent} asks whether it did. Hive keeps them
 * in its {@code PARTITION_EVENTS} table; TreeCat in one object below the table ({@link PartitionEventsEntry},
 * {@code …/<table>/.partition_events}), so they go with the table when it is dropped and move with it when it is
 * renamed.
 *
 * <p>What Hive checks, with its exceptions: the table exists ({@code UnknownTableException} "Table: t is not
 * found.", also for a missing database), the spec names exactly the table's partition keys ({@code
 * InvalidPartitionException}: the count, then the first key without a value). The partition itself need not exist.
 * A mark is identified by the partition's Hive name (built from the spec in key order) and the event type; marking
 * again renews its time. Hive never expires a mark unless its event cleaner is configured ({@code
 * metastore.event.clean.freq}, off by default); TreeCat keeps them until the table goes.
 */
final class HmsPartitionEventCalls {
    /**
     * Hive keeps a mark's partition name in a column of this many characters: a longer name is refused when marked,
     * and is never marked when asked.
     */
    static final int MAX_PARTITION_NAME_LENGTH = 767;

    private final HmsCalls calls;
    private final Clock clock;

    HmsPartitionEventCalls(HmsCalls calls, Clock clock) {
        this.calls = requireNonNull(calls, "calls is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public void markPartitionForEvent(
            String dbName, String tableName, Map<String, String> spec, PartitionEventType eventType) throws TException {
        checkArguments(dbName, tableName, spec, eventType);
        HmsCalls.TableName name = tableName(dbName, tableName);
        ObjectPath path = calls.tablePath(name).child(LakeKeys.PARTITION_EVENTS_ID);
        calls.write(Action.ALTER_PARTITIONS, calls.tablePath(name), txn -> {
            String partition = partitionName(requireTable(txn, name, tableName), spec);
            if (partition.length() > MAX_PARTITION_NAME_LENGTH) {
                throw new MetaException("Partition name " + partition.substring(0, 32) + "… is longer than "
                        + MAX_PARTITION_NAME_LENGTH + " characters");
            }
            Optional<CatalogObject> stored = txn.read(path);
            PartitionEventsEntry marks = stored.isPresent()
                    ? PartitionEventsEntry.decode(stored.get().value())
                    : PartitionEventsEntry.empty();
            PartitionEventsEntry marked =
                    marks.withMark(new PartitionEventsEntry.Mark(partition, eventType.name(), clock.millis()));
            if (stored.isPresent()) {
                txn.update(path, marked);
            } else {
                txn.add(path, marked);
            }
            return null;
        });
    }

    public boolean isPartitionMarkedForEvent(
            String dbName, String tableName, Map<String, String> spec, PartitionEventType eventType) throws TException {
        checkArguments(dbName, tableName, spec, eventType);
        HmsCalls.TableName name = tableName(dbName, tableName);
        ObjectPath path = calls.tablePath(name).child(LakeKeys.PARTITION_EVENTS_ID);
        return calls.read(Action.LIST_PARTITIONS, calls.tablePath(name), txn -> {
            String partition = partitionName(requireTable(txn, name, tableName), spec);
            Optional<CatalogObject> stored = txn.read(path);
            return stored.isPresent()
                    && ObjectType.PARTITION_EVENTS.isTypeOf(stored.get())
                    && PartitionEventsEntry.decode(stored.get().value()).isMarked(partition, eventType.name());
        });
    }

    /** Hive fails these with a MetaException (an internal NullPointerException); so does TreeCat, saying why. */
    private static void checkArguments(
            String dbName, String tableName, Map<String, String> spec, PartitionEventType eventType)
            throws MetaException {
        if (dbName == null || tableName == null) {
            throw new MetaException("No database or table name given");
        }
        if (spec == null) {
            throw new MetaException("No partition spec given");
        }
        if (eventType == null) {
            throw new MetaException("No partition event type given");
        }
    }

    /**
     * The table the call names. Hive looks every name up and answers a table it does not find with {@code
     * UnknownTableException}: so does TreeCat for an empty table name, a database name without a database in it
     * ({@code ""}, {@code @hive#}) and a name longer than a stored one can be, rather than building no path.
     */
    private HmsCalls.TableName tableName(String dbName, String tableName) throws TException {
        if (!tableName.isEmpty()) {
            try {
                HmsCalls.TableName name = calls.tableName(dbName, tableName);
                if (HmsNames.fits(name.db()) && HmsNames.fits(name.name())) {
                    return name;
                }
            } catch (NoSuchObjectException e) {
                // no database in the name: not found, below
            }
        }
        throw new UnknownTableException("Table: "
                + (HmsNames.fits(tableName)
                        ? tableName
                        : tableName.substring(0, 32) + "… (" + tableName.length() + " characters)")
                + " is not found.");
    }

    private Table requireTable(LakeTransaction txn, HmsCalls.TableName name, String given)
            throws UnknownTableException, MetaException {
        try {
            return calls.requireTable(txn, name);
        } catch (NoSuchObjectException e) {
            throw new UnknownTableException("Table: " + given + " is not found.");
        }
    }

    /** The partition's Hive name from a spec naming exactly the table's keys (Hive's messages when it does not). */
    private static String partitionName(Table table, Map<String, String> spec)
            throws InvalidPartitionException, MetaException {
        List<FieldSchema> keys = table.getPartitionKeys() == null ? List.of() : table.getPartitionKeys();
        if (keys.size() != spec.size()) {
            throw new InvalidPartitionException("Number of partition columns in table: " + keys.size()
                    + " doesn't match with number of supplied partition values: " + spec.size());
        }
        List<String> names = new ArrayList<>(keys.size());
        List<String> values = new ArrayList<>(keys.size());
        for (FieldSchema key : keys) {
            String value = spec.get(key.getName());
            if (value == null) {
                throw new InvalidPartitionException("No value found for partition column: " + key.getName());
            }
            names.add(key.getName());
            values.add(value);
        }
        return HivePartitionNames.name(names, values);
    }
}
