package io.treecat.hms;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * A reader's snapshot of Hive transactions: which are committed as far as it is concerned. Read from and made as
 * Hive's {@code ValidReadTxnList} is: the string {@code <high water mark>:<min open>:<open>:<aborted>}, each list
 * comma-separated ids or {@code a-b} ranges (Hive 4 writes runs of consecutive ids as ranges); the empty string means
 * every transaction is valid. A transaction is valid when it is at most the high water mark and not an exception
 * (open or aborted in the snapshot).
 *
 * <p>Exceptions are kept as the ranges they were written as, so a range of a billion ids costs two numbers.
 */
final class HiveValidTxnList {
    /** A run of exception ids, {@code [first, last]}, all open or all aborted. */
    private record Range(long first, long last, boolean aborted) {}

    private final long highWaterMark;
    /** Sorted by first id. */
    private final List<Range> exceptions;

    /** {@code reach[i]}: the largest last id of the exceptions up to {@code i}. */
    private final long[] reach;

    private HiveValidTxnList(long highWaterMark, List<Range> exceptions) {
        this.highWaterMark = highWaterMark;
        this.exceptions = List.copyOf(exceptions);
        this.reach = new long[exceptions.size()];
        long max = Long.MIN_VALUE;
        for (int i = 0; i < reach.length; i++) {
            max = Math.max(max, exceptions.get(i).last());
            reach[i] = max;
        }
    }

    long highWaterMark() {
        return highWaterMark;
    }

    /**
     * Parses Hive's string form.
     *
     * @throws MetaException naming the text when it is not one
     */
    static HiveValidTxnList parse(String text) throws MetaException {
        if (text == null || text.isEmpty()) {
            return new HiveValidTxnList(Long.MAX_VALUE, List.of());
        }
        try {
            // As Hive's own reader: String.split drops trailing empty fields, so "5:9::" has no lists.
            String[] fields = text.split(":");
            if (fields.length < 2) {
                throw new NumberFormatException("expected <high water mark>:<min open txn>[:<open>[:<aborted>]]");
            }
            long highWaterMark = Long.parseLong(fields[0]);
            Long.parseLong(fields[1]);
            List<Range> exceptions = new ArrayList<>();
            if (fields.length > 2) {
                ranges(fields[2], false, exceptions);
            }
            if (fields.length > 3) {
                ranges(fields[3], true, exceptions);
            }
            exceptions.sort((a, b) -> Long.compare(a.first(), b.first()));
            return new HiveValidTxnList(highWaterMark, exceptions);
        } catch (NumberFormatException e) {
            throw new MetaException("Invalid valid transaction list '" + text + "': " + e.getMessage());
        }
    }

    private static void ranges(String list, boolean aborted, List<Range> into) {
        if (list.isEmpty()) {
            return;
        }
        for (String item : list.split(",")) {
            int dash = item.indexOf('-', 1);
            long first = Long.parseLong(dash < 0 ? item : item.substring(0, dash));
            long last = dash < 0 ? first : Long.parseLong(item.substring(dash + 1));
            if (last < first) {
                throw new NumberFormatException("empty range " + item);
            }
            into.add(new Range(first, last, aborted));
        }
    }

    /**
     * The snapshot a reader without its own view makes of {@code open} (Hive's
     * {@code TxnCommonUtils.createValidReadTxnList}): with {@code currentTxn} > 0, the high water mark is
     * {@code currentTxn} and only the transactions below it are exceptions.
     */
    static HiveValidTxnList of(GetOpenTxnsResponse open, long currentTxn) {
        long highWaterMark =
                currentTxn > 0 ? Math.min(currentTxn, open.getTxn_high_water_mark()) : open.getTxn_high_water_mark();
        BitSet aborted = BitSet.valueOf(open.bufferForAbortedBits());
        List<Range> exceptions = new ArrayList<>();
        List<Long> ids = open.getOpen_txns() == null ? Collections.emptyList() : open.getOpen_txns();
        for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            if (currentTxn > 0 && id >= currentTxn) {
                break;
            }
            exceptions.add(new Range(id, id, aborted.get(i)));
        }
        return new HiveValidTxnList(highWaterMark, exceptions);
    }

    /** Whether {@code txnId} is committed as far as this snapshot is concerned. */
    boolean isValid(long txnId) {
        return txnId <= highWaterMark && exception(txnId) == null;
    }

    /** Whether {@code txnId} is aborted in this snapshot. */
    boolean isAborted(long txnId) {
        Range range = exception(txnId);
        return range != null && range.aborted();
    }

    /** The exception range holding {@code txnId}, preferring an aborted one; null if none does. */
    private Range exception(long txnId) {
        // The last range starting at or before txnId, then back while an earlier one may still reach txnId
        // (ranges overlap only in malformed input).
        int low = 0;
        int high = exceptions.size() - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (exceptions.get(middle).first() <= txnId) {
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        Range found = null;
        for (int i = high; i >= 0 && reach[i] >= txnId; i--) {
            Range range = exceptions.get(i);
            if (txnId <= range.last()) {
                if (range.aborted()) {
                    return range;
                }
                found = range;
            }
        }
        return found;
    }
}
