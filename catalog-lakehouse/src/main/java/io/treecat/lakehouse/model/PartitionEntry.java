package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * One partition level under a table. Two layouts share the type, so one path query reads both:
 * <ul>
 *   <li>a Hive partition key level {@code <key>=<value>}: {@link #partKey()}, the value as text in
 *       {@link #partValue()}, as a number in {@link #partNumber()} for integer keys; its last level
 *       holds the whole Hive {@code Partition} struct ({@link #hivePartition()}, HMS-owned), the
 *       partition's location and Hive column statistics;</li>
 *   <li>an Iceberg file-index partition {@code <spec>:<field>=<value>[/…]}: {@link #specId()}, the
 *       partition tuple as a document in {@link #partValue()}, and Iceberg's
 *       {@link #partitionPath()}; data and delete files are its leaves.</li>
 * </ul>
 */
public record PartitionEntry(
        String partKey,
        BsonValue partValue,
        Long partNumber,
        Integer specId,
        String partitionPath,
        String location,
        byte[] hivePartition,
        BsonDocument columnStatistics,
        Long statisticsAnalyzed,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.PART_KEY,
            LakeKeys.PART_VAL,
            LakeKeys.PART_NUM,
            LakeKeys.SPEC_ID,
            LakeKeys.PARTITION_PATH,
            LakeKeys.LOCATION,
            LakeKeys.HMS_PARTITION,
            LakeKeys.COLUMN_STATISTICS,
            LakeKeys.COLUMN_STATISTICS_ANALYZED);

    public PartitionEntry {
        hivePartition = hivePartition == null ? null : hivePartition.clone();
        columnStatistics = columnStatistics == null ? null : columnStatistics.clone();
        others = requireNonNull(others, "others is null").clone();
    }

    /** A Hive partition-key level; {@code number} only for keys of an integer type. */
    public static PartitionEntry hiveLevel(String key, String value, Long number) {
        return new PartitionEntry(
                requireNonNull(key, "key is null"),
                new BsonString(value == null ? "" : value),
                number,
                null,
                null,
                null,
                null,
                null,
                null,
                new BsonDocument());
    }

    /** An Iceberg file-index partition of spec {@code specId}. */
    public static PartitionEntry icebergPartition(int specId, BsonDocument values, String partitionPath) {
        return new PartitionEntry(
                null,
                requireNonNull(values, "values is null"),
                null,
                specId,
                requireNonNull(partitionPath, "partitionPath is null"),
                null,
                null,
                null,
                null,
                new BsonDocument());
    }

    public static PartitionEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.PARTITION;
        Fields.requireType(value, type);
        BsonValue partValue = value.get(LakeKeys.PART_VAL);
        if (partValue != null && !partValue.isString() && !partValue.isDocument()) {
            throw Fields.invalid(type, LakeKeys.PART_VAL, "a string or a document", partValue);
        }
        return new PartitionEntry(
                Fields.string(value, LakeKeys.PART_KEY, type),
                partValue,
                Fields.int64(value, LakeKeys.PART_NUM, type),
                Fields.int32(value, LakeKeys.SPEC_ID, type),
                Fields.string(value, LakeKeys.PARTITION_PATH, type),
                Fields.string(value, LakeKeys.LOCATION, type),
                Fields.binary(value, LakeKeys.HMS_PARTITION, type),
                Fields.document(value, LakeKeys.COLUMN_STATISTICS, type),
                Fields.int64(value, LakeKeys.COLUMN_STATISTICS_ANALYZED, type),
                Fields.others(value, DECLARED));
    }

    /**
     * Checks {@code value} as {@link #decode} would, without building the record: the lake validator
     * runs it on every partition level a commit writes, and a batch of Hive partitions writes hundreds.
     */
    public static void check(BsonDocument value) {
        ObjectType type = ObjectType.PARTITION;
        Fields.requireType(value, type);
        BsonValue partValue = value.get(LakeKeys.PART_VAL);
        if (partValue != null && !partValue.isString() && !partValue.isDocument()) {
            throw Fields.invalid(type, LakeKeys.PART_VAL, "a string or a document", partValue);
        }
        Fields.string(value, LakeKeys.PART_KEY, type);
        Fields.int64(value, LakeKeys.PART_NUM, type);
        Fields.int32(value, LakeKeys.SPEC_ID, type);
        Fields.string(value, LakeKeys.PARTITION_PATH, type);
        Fields.string(value, LakeKeys.LOCATION, type);
        Fields.binary(value, LakeKeys.HMS_PARTITION, type);
        Fields.document(value, LakeKeys.COLUMN_STATISTICS, type);
        Fields.int64(value, LakeKeys.COLUMN_STATISTICS_ANALYZED, type);
    }

    /**
     * Only the Hive {@code Partition} struct of a stored partition (null if it has none), without
     * decoding the rest: listing a thousand partitions reads just this field of each.
     */
    public static byte[] hivePartitionOf(BsonDocument stored) {
        return Fields.binary(stored, LakeKeys.HMS_PARTITION, ObjectType.PARTITION);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.PARTITION)
                .int32(LakeKeys.SPEC_ID, specId)
                .string(LakeKeys.PART_KEY, partKey)
                .value(LakeKeys.PART_VAL, partValue)
                .int64(LakeKeys.PART_NUM, partNumber)
                .string(LakeKeys.PARTITION_PATH, partitionPath)
                .string(LakeKeys.LOCATION, location)
                .binary(LakeKeys.HMS_PARTITION, hivePartition)
                .value(LakeKeys.COLUMN_STATISTICS, columnStatistics)
                .int64(LakeKeys.COLUMN_STATISTICS_ANALYZED, statisticsAnalyzed)
                .with(others);
    }

    /** The last level of a Hive partition, with its struct and location; statistics and others kept. */
    public PartitionEntry withHivePartition(byte[] struct, String newLocation) {
        return new PartitionEntry(
                partKey,
                partValue,
                partNumber,
                specId,
                partitionPath,
                newLocation,
                requireNonNull(struct, "struct is null"),
                columnStatistics,
                statisticsAnalyzed,
                others);
    }

    public PartitionEntry withColumnStatistics(BsonDocument statistics, Long analyzed) {
        return new PartitionEntry(
                partKey,
                partValue,
                partNumber,
                specId,
                partitionPath,
                location,
                hivePartition,
                statistics,
                analyzed,
                others);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionEntry entry && encode().equals(entry.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }

    @Override
    public String toString() {
        return "PartitionEntry" + encode().toJson();
    }
}
