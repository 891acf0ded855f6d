package io.treecat.hms;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.BinaryColumnStatsData;
import org.apache.hadoop.hive.metastore.api.BooleanColumnStatsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Date;
import org.apache.hadoop.hive.metastore.api.DateColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Decimal;
import org.apache.hadoop.hive.metastore.api.DecimalColumnStatsData;
import org.apache.hadoop.hive.metastore.api.DoubleColumnStatsData;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.StringColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.Timestamp;
import org.apache.hadoop.hive.metastore.api.TimestampColumnStatsData;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Column statistics in the lake model: a table's or partition's {@code columnStatistics}
 * ({@code TableEntry}, {@code PartitionEntry}) is a document from the lower-cased column name to that
 * column's {@link ColumnStatisticsObj}, Thrift-binary, with {@code statisticsAnalyzed}, the
 * {@code lastAnalyzed} of the last update. An update replaces the statistics of the columns it names
 * and keeps the others, as Hive's store does.
 *
 * <p>{@link #aggregate} merges partitions' statistics for {@code get_aggr_stats_for} the way Hive does
 * without bit vectors and with its default {@code ndvTuner} of 0: minimum of the lows, maximum of the
 * highs, sums of nulls (and of trues and falses), maximum of the distinct counts and of the lengths. A
 * column is aggregated only if every partition asked for has statistics for it; otherwise it is left
 * out (Hive would extrapolate; TreeCat answers only what it knows).
 */
final class HmsColumnStats {
    private HmsColumnStats() {}

    /** The statistics of an entry ({@code statistics} may be null: none), by column, in stored order. */
    static Map<String, ColumnStatisticsObj> read(BsonDocument statistics) throws MetaException {
        Map<String, ColumnStatisticsObj> result = new LinkedHashMap<>();
        if (statistics != null) {
            for (Map.Entry<String, BsonValue> entry : statistics.entrySet()) {
                if (entry.getValue().isBinary()) {
                    result.put(
                            entry.getKey(),
                            HmsStructs.decode(
                                    new ColumnStatisticsObj(),
                                    entry.getValue().asBinary().getData(),
                                    "stored column statistics"));
                }
            }
        }
        return result;
    }

    /** {@code existing} (null: none) with {@code statistics} set per column (replacing those columns' statistics). */
    static BsonDocument withStatistics(BsonDocument existing, List<ColumnStatisticsObj> statistics)
            throws MetaException {
        BsonDocument stats = new BsonDocument();
        if (existing != null) {
            stats.putAll(existing);
        }
        for (ColumnStatisticsObj column : statistics) {
            ColumnStatisticsObj stored = column.deepCopy();
            stored.setColName(column.getColName().toLowerCase(Locale.ROOT));
            stats.put(
                    stored.getColName(),
                    new BsonBinary(HmsStructs.encode(stored, "column statistics of " + column.getColName())));
        }
        return stats;
    }

    /** {@code existing} without the statistics of these columns (null: all); null if none of them had any. */
    static BsonDocument withoutStatistics(BsonDocument existing, List<String> columns) {
        if (existing == null || existing.isEmpty()) {
            return null;
        }
        BsonDocument stats = new BsonDocument();
        stats.putAll(existing);
        boolean changed = false;
        if (columns == null) {
            changed = true;
            stats.clear();
        } else {
            for (String column : columns) {
                changed |= stats.remove(column.toLowerCase(Locale.ROOT)) != null;
            }
        }
        return changed ? stats : null;
    }

    /** Checks that each column of {@code statistics} is a column of the table (partition keys excluded). */
    static void checkColumns(Table table, List<ColumnStatisticsObj> statistics) throws MetaException {
        List<String> columns = new ArrayList<>();
        if (table.getSd() != null && table.getSd().getCols() != null) {
            for (FieldSchema column : table.getSd().getCols()) {
                columns.add(column.getName().toLowerCase(Locale.ROOT));
            }
        }
        for (ColumnStatisticsObj column : statistics) {
            if (column.getColName() == null
                    || !columns.contains(column.getColName().toLowerCase(Locale.ROOT))) {
                throw new MetaException("Column " + column.getColName() + " does not exist in table "
                        + table.getDbName() + "." + table.getTableName());
            }
            if (column.getStatsData() == null || column.getStatsData().getSetField() == null) {
                throw new MetaException("Column statistics of " + column.getColName() + " have no data");
            }
        }
    }

    static ColumnStatistics statistics(ColumnStatisticsDesc desc, List<ColumnStatisticsObj> columns) {
        ColumnStatistics statistics = new ColumnStatistics(desc, columns);
        statistics.setEngine("hive");
        return statistics;
    }

    static ColumnStatisticsDesc desc(boolean tableLevel, Table table, String partitionName, Long analyzed) {
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(tableLevel, table.getDbName(), table.getTableName());
        desc.setCatName(HmsNames.HIVE_CATALOG);
        if (partitionName != null) {
            desc.setPartName(partitionName);
        }
        if (analyzed != null && analyzed != 0) {
            desc.setLastAnalyzed(analyzed);
        }
        return desc;
    }

    // ---- aggregation

    /** Aggregates one column's statistics across partitions; null if their kinds differ. */
    static ColumnStatisticsObj aggregate(String column, List<ColumnStatisticsObj> parts) {
        ColumnStatisticsObj first = parts.get(0);
        ColumnStatisticsData._Fields kind = first.getStatsData().getSetField();
        for (ColumnStatisticsObj part : parts) {
            if (part.getStatsData().getSetField() != kind) {
                return null;
            }
        }
        ColumnStatisticsData data = new ColumnStatisticsData();
        switch (kind) {
            case LONG_STATS -> {
                LongColumnStatsData merged = new LongColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    LongColumnStatsData next = part.getStatsData().getLongStats();
                    if (next.isSetLowValue()) {
                        merged.setLowValue(
                                merged.isSetLowValue()
                                        ? Math.min(merged.getLowValue(), next.getLowValue())
                                        : next.getLowValue());
                    }
                    if (next.isSetHighValue()) {
                        merged.setHighValue(
                                merged.isSetHighValue()
                                        ? Math.max(merged.getHighValue(), next.getHighValue())
                                        : next.getHighValue());
                    }
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setLongStats(merged);
            }
            case DOUBLE_STATS -> {
                DoubleColumnStatsData merged = new DoubleColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    DoubleColumnStatsData next = part.getStatsData().getDoubleStats();
                    if (next.isSetLowValue()) {
                        merged.setLowValue(
                                merged.isSetLowValue()
                                        ? Math.min(merged.getLowValue(), next.getLowValue())
                                        : next.getLowValue());
                    }
                    if (next.isSetHighValue()) {
                        merged.setHighValue(
                                merged.isSetHighValue()
                                        ? Math.max(merged.getHighValue(), next.getHighValue())
                                        : next.getHighValue());
                    }
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setDoubleStats(merged);
            }
            case DECIMAL_STATS -> {
                DecimalColumnStatsData merged = new DecimalColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    DecimalColumnStatsData next = part.getStatsData().getDecimalStats();
                    if (next.isSetLowValue()
                            && (!merged.isSetLowValue()
                                    || decimal(next.getLowValue()).compareTo(decimal(merged.getLowValue())) < 0)) {
                        merged.setLowValue(next.getLowValue());
                    }
                    if (next.isSetHighValue()
                            && (!merged.isSetHighValue()
                                    || decimal(next.getHighValue()).compareTo(decimal(merged.getHighValue())) > 0)) {
                        merged.setHighValue(next.getHighValue());
                    }
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setDecimalStats(merged);
            }
            case DATE_STATS -> {
                DateColumnStatsData merged = new DateColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    DateColumnStatsData next = part.getStatsData().getDateStats();
                    if (next.isSetLowValue()
                            && (!merged.isSetLowValue()
                                    || next.getLowValue().getDaysSinceEpoch()
                                            < merged.getLowValue().getDaysSinceEpoch())) {
                        merged.setLowValue(new Date(next.getLowValue()));
                    }
                    if (next.isSetHighValue()
                            && (!merged.isSetHighValue()
                                    || next.getHighValue().getDaysSinceEpoch()
                                            > merged.getHighValue().getDaysSinceEpoch())) {
                        merged.setHighValue(new Date(next.getHighValue()));
                    }
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setDateStats(merged);
            }
            case TIMESTAMP_STATS -> {
                TimestampColumnStatsData merged = new TimestampColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    TimestampColumnStatsData next = part.getStatsData().getTimestampStats();
                    if (next.isSetLowValue()
                            && (!merged.isSetLowValue()
                                    || next.getLowValue().getSecondsSinceEpoch()
                                            < merged.getLowValue().getSecondsSinceEpoch())) {
                        merged.setLowValue(new Timestamp(next.getLowValue()));
                    }
                    if (next.isSetHighValue()
                            && (!merged.isSetHighValue()
                                    || next.getHighValue().getSecondsSinceEpoch()
                                            > merged.getHighValue().getSecondsSinceEpoch())) {
                        merged.setHighValue(new Timestamp(next.getHighValue()));
                    }
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setTimestampStats(merged);
            }
            case STRING_STATS -> {
                StringColumnStatsData merged = new StringColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    StringColumnStatsData next = part.getStatsData().getStringStats();
                    merged.setMaxColLen(Math.max(merged.getMaxColLen(), next.getMaxColLen()));
                    merged.setAvgColLen(Math.max(merged.getAvgColLen(), next.getAvgColLen()));
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                    merged.setNumDVs(Math.max(merged.getNumDVs(), next.getNumDVs()));
                }
                data.setStringStats(merged);
            }
            case BINARY_STATS -> {
                BinaryColumnStatsData merged = new BinaryColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    BinaryColumnStatsData next = part.getStatsData().getBinaryStats();
                    merged.setMaxColLen(Math.max(merged.getMaxColLen(), next.getMaxColLen()));
                    merged.setAvgColLen(Math.max(merged.getAvgColLen(), next.getAvgColLen()));
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                }
                data.setBinaryStats(merged);
            }
            case BOOLEAN_STATS -> {
                BooleanColumnStatsData merged = new BooleanColumnStatsData();
                for (ColumnStatisticsObj part : parts) {
                    BooleanColumnStatsData next = part.getStatsData().getBooleanStats();
                    merged.setNumTrues(merged.getNumTrues() + next.getNumTrues());
                    merged.setNumFalses(merged.getNumFalses() + next.getNumFalses());
                    merged.setNumNulls(merged.getNumNulls() + next.getNumNulls());
                }
                data.setBooleanStats(merged);
            }
        }
        return new ColumnStatisticsObj(column, first.getColType(), data);
    }

    private static BigDecimal decimal(Decimal value) {
        return new BigDecimal(new BigInteger(value.getUnscaled()), value.getScale());
    }
}
