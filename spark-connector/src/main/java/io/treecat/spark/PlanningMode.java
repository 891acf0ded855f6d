package io.treecat.spark;

import java.util.Locale;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Projections;

/**
 * Where a scan of an Iceberg table is planned: by TreeCat from the tree ({@code POST …/plan}, Iceberg's
 * {@code RESTTableScan}) or by Iceberg's client from the manifests. The catalog option
 * {@value #OPTION} picks one for every scan, or {@code auto} (the default) decides per scan.
 *
 * <p>Why {@code auto} decides as it does: a filter that restricts the partitions lets the tree seek to the
 * matching partitions and read only their files (1 day of 500,000 files: 10–23 ms against Iceberg's
 * 325–400 ms from the manifests, docs/benchmarks-history.md, "Iceberg scan planning"); a scan of every partition
 * reads every file's leaf and answers it as JSON, which costs more than reading the manifests (1.8× at
 * 100,000 and 500,000 files). So {@code auto} plans on the server exactly when the filter, projected on some
 * partition spec of the table, restricts the partitions.
 */
public enum PlanningMode {
    AUTO,
    SERVER,
    CLIENT;

    /** The catalog option: {@code auto}, {@code server} or {@code client}. */
    public static final String OPTION = "planning";

    static PlanningMode fromOption(String catalogName, String value) {
        if (value == null) {
            return AUTO;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    String.format(
                            "Invalid spark.sql.catalog.%s.%s '%s': expected auto, server or client",
                            catalogName, OPTION, value),
                    e);
        }
    }

    /** Whether a scan of {@code table} with {@code filter} is planned by the server. */
    boolean plansOnServer(Table table, Expression filter, boolean caseSensitive) {
        return switch (this) {
            case SERVER -> true;
            case CLIENT -> false;
            case AUTO -> restrictsPartitions(table.specs().values(), filter, caseSensitive);
        };
    }

    /** Whether {@code filter} excludes some partitions of one of a table's partition specs. */
    static boolean restrictsPartitions(Iterable<PartitionSpec> specs, Expression filter, boolean caseSensitive) {
        if (filter == null || filter.op() == Expression.Operation.TRUE) {
            return false;
        }
        for (PartitionSpec spec : specs) {
            if (spec.isUnpartitioned()) {
                continue;
            }
            Expression projected = Projections.inclusive(spec, caseSensitive).project(filter);
            if (projected.op() != Expression.Operation.TRUE) {
                return true;
            }
        }
        return false;
    }
}
