package io.treecat.benchmarks;

import io.treecat.core.storage.PathKeys;
import java.time.LocalDate;

/**
 * The date ranges the read benchmarks ask for, in {@code store_sales}: one day (1999-06-01) and a
 * year (1999-01-01 to 1999-12-31), as the paper's §6 does.
 */
public final class Ranges {
    private Ranges() {}

    public static LocalDate first(int days) {
        return switch (days) {
            case 1 -> LocalDate.of(1999, 6, 1);
            case 365 -> LocalDate.of(1999, 1, 1);
            default -> throw new IllegalArgumentException("days must be 1 or 365, not " + days);
        };
    }

    public static LocalDate last(int days) {
        return first(days).plusDays(days - 1);
    }

    public static long expectedFiles(int days) {
        return (long) days * TpcdsCatalog.FILES_PER_PARTITION;
    }

    /** Filter on the partition's {@code part_val} field: each partition's value is read and tested. */
    public static String partValQuery(int days) {
        return "/[obj_id='tpcds']/[obj_id='store_sales']/[part_val >= '" + first(days) + "' and part_val <= '"
                + last(days) + "']/*";
    }

    /** The same range on {@code obj_id}: the planner turns it into iterator bounds. */
    public static String objIdQuery(int days) {
        return "/[obj_id='tpcds']/[obj_id='store_sales']/[obj_id >= '" + TpcdsCatalog.partitionId(first(days))
                + "' and obj_id <= '" + TpcdsCatalog.partitionId(last(days)) + "']/*";
    }

    /** The first leaf key of the range in the {@code leaf} column family. */
    public static byte[] leafLower(int days) {
        return PathKeys.childrenPrefix(TpcdsCatalog.partitionPath(TpcdsCatalog.STORE_SALES, first(days)));
    }

    /** Past the last leaf key of the range. */
    public static byte[] leafUpper(int days) {
        return PathKeys.prefixEnd(
                PathKeys.childrenPrefix(TpcdsCatalog.partitionPath(TpcdsCatalog.STORE_SALES, last(days))));
    }
}
