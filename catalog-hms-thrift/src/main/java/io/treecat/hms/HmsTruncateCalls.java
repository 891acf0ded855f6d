package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.Partitions;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.model.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TruncateTableRequest;
import org.apache.hadoop.hive.metastore.api.TruncateTableResponse;
import org.apache.thrift.TException;

/**
 * {@code truncate_table}: Hive's {@code HMSHandler.truncateTableInternal}. The files of the table (an unpartitioned
 * one), of every partition (a partitioned one) or of the partitions named go, their directories stay; the basic
 * statistics in the parameters of what was truncated ({@code numFiles}, {@code numRows}, {@code totalSize},
 * {@code rawDataSize}, {@code numFilesErasureCoded}, where present) become {@code 0} and
 * {@code COLUMN_STATS_ACCURATE} becomes {@code {"BASIC_STATS":"true"}}: basic statistics exact, column statistics no
 * longer (they are kept, as Hive keeps them). The deletion is planned in the transaction from what it read and run
 * after the commit ({@link HmsDataFiles}: {@code file:} locations only). A name in {@code partNames} that is no
 * partition is skipped, as Hive's store skips it.
 *
 * <p>Refused with a {@code MetaException}: an external table (its files are not the metastore's; HiveServer2 refuses
 * it with the same words, Hive 4.0.1's metastore alone would delete them), a view, and an ACID table's truncation
 * without deleting ({@code truncateSkipDataDeletion}, which writes an empty base directory for Hive's readers).
 */
final class HmsTruncateCalls {
    /** Hive's {@code StatsSetupConst.SUPPORTED_STATS}. */
    static final List<String> BASIC_STATISTICS =
            List.of("numFiles", "numRows", "totalSize", "rawDataSize", "numFilesErasureCoded");
    /** Hive's {@code StatsSetupConst.COLUMN_STATS_ACCURATE}. */
    static final String STATISTICS_ACCURATE = "COLUMN_STATS_ACCURATE";
    /** What Hive writes there after a truncate: basic statistics exact, no column's. */
    static final String BASIC_STATISTICS_ONLY = "{\"BASIC_STATS\":\"true\"}";
    /** The environment-context key of a truncate that leaves the files to the caller (ACID). */
    static final String SKIP_DATA_DELETION = "truncateSkipDataDeletion";

    private final HmsCalls calls;
    private final HmsPartitions partitions;

    HmsTruncateCalls(HmsCalls calls, HmsPartitions partitions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.partitions = requireNonNull(partitions, "partitions is null");
    }

    public void truncate_table(String dbName, String tableName, List<String> partNames) throws TException {
        truncate(dbName, tableName, partNames, false);
    }

    public TruncateTableResponse truncate_table_req(TruncateTableRequest request) throws TException {
        EnvironmentContext context = request.getEnvironmentContext();
        boolean skipDataDeletion = context != null
                && context.getProperties() != null
                && Boolean.parseBoolean(context.getProperties().get(SKIP_DATA_DELETION));
        truncate(request.getDbName(), request.getTableName(), request.getPartNames(), skipDataDeletion);
        return new TruncateTableResponse();
    }

    private void truncate(String dbName, String tableName, List<String> partNames, boolean skipDataDeletion)
            throws TException {
        HmsCalls.TableName name = calls.tableName(dbName, tableName);
        calls.write(Action.COMMIT_TABLE, calls.tablePath(name), txn -> {
            Table table = calls.requireTable(txn, name);
            String qualified = name.db() + "." + name.name();
            if (HmsDataFiles.isExternal(table)) {
                throw new MetaException("Cannot truncate non-managed table " + qualified + ".");
            }
            if ("VIRTUAL_VIEW".equals(table.getTableType()) || "MATERIALIZED_VIEW".equals(table.getTableType())) {
                throw new MetaException("Cannot truncate a view: " + qualified);
            }
            if (skipDataDeletion && isTransactional(table)) {
                throw new MetaException("Truncating the ACID table " + qualified
                        + " without deleting its files (an empty base directory) is not supported");
            }
            List<String> locations = new ArrayList<>();
            if (HmsPartitions.partitionKeys(table).isEmpty()) {
                if (partNames == null) {
                    location(table.getSd() == null ? null : table.getSd().getLocation(), locations);
                    TableEntry entry = Tables.find(txn, calls.tablePath(name)).orElseThrow();
                    Table truncated = table.deepCopy();
                    truncated.setParameters(truncatedStatistics(truncated.getParameters()));
                    txn.update(calls.tablePath(name), HmsTables.entry(truncated, entry));
                }
            } else {
                for (CatalogObject row : partNames == null
                        ? partitions.all(txn, table, -1)
                        : partitions.byNames(txn, table, validNames(table, partNames))) {
                    Partition partition = HmsPartitions.partition(name.db(), name.name(), row.value());
                    location(
                            partition.getSd() == null ? null : partition.getSd().getLocation(), locations);
                    partition.setParameters(truncatedStatistics(partition.getParameters()));
                    Partitions.update(
                            txn, row.path(), HmsPartitions.entry(table, partition, PartitionEntry.decode(row.value())));
                }
            }
            if (!skipDataDeletion) {
                HmsDataFiles.Plan plan = HmsDataFiles.truncation(locations);
                // Only after the commit: a refused or failed truncate deletes nothing.
                txn.afterCommit(plan::run);
            }
            return null;
        });
    }

    private static void location(String location, List<String> locations) {
        if (location != null && !location.isEmpty()) {
            locations.add(location);
        }
    }

    /** The names among {@code names} that parse as partitions of {@code table}; Hive's store skips the others. */
    private static List<String> validNames(Table table, List<String> names) {
        List<String> valid = new ArrayList<>();
        for (String name : names) {
            try {
                HivePartitionNames.values(HmsPartitions.keyNames(table), name);
                valid.add(name);
            } catch (MetaException | RuntimeException e) {
                // Not a name of this table's partitions: nothing to truncate.
            }
        }
        return valid;
    }

    private static boolean isTransactional(Table table) {
        return table.getParameters() != null
                && "true".equalsIgnoreCase(table.getParameters().get("transactional"));
    }

    /** Hive's {@code updateStatsForTruncate}: present basic statistics become 0, basic statistics exact, no column's. */
    static Map<String, String> truncatedStatistics(Map<String, String> parameters) {
        if (parameters == null) {
            return null;
        }
        Map<String, String> truncated = new HashMap<>(parameters);
        for (String statistic : BASIC_STATISTICS) {
            if (truncated.containsKey(statistic)) {
                truncated.put(statistic, "0");
            }
        }
        truncated.put(STATISTICS_ACCURATE, BASIC_STATISTICS_ONLY);
        return truncated;
    }
}
