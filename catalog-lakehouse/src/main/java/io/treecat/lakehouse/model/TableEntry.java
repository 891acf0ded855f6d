package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;

/**
 * A table: {@code /<catalog>/<ns…>/<table>}, the one object both Iceberg REST and the Hive Metastore
 * read and write. An Iceberg table is its {@link #metadataLocation() pointer} to a metadata file plus
 * the fields a reader needs without that file (format version, uuid, current snapshot, location,
 * properties). A Hive table keeps its whole Thrift struct in {@link #hiveTable()}, a sub-document
 * only the HMS interface reads; a commit through either interface keeps what the other wrote.
 *
 * @param tableType {@value LakeKeys#ICEBERG_TABLE_TYPE} or Hive's table type; null when not given
 * @param location where the table's files live
 * @param metadataLocation the current Iceberg metadata file; null for a Hive table
 * @param formatVersion the Iceberg format version; null when not known (a pointer moved over HMS)
 * @param uuid the Iceberg table uuid; null when not known
 * @param currentSnapshotId the current Iceberg snapshot; null for none or not known
 * @param properties the Iceberg table properties as of the last REST commit
 * @param hiveTable the Hive {@code Table} struct, Thrift-binary encoded (HMS-owned); null if never written over HMS
 * @param hiveConstraints the table's Hive constraints, Thrift-binary encoded (HMS-owned); null if none
 * @param hiveReferencedBy the Hive foreign keys that reference this table, Thrift-binary encoded (HMS-owned); null if none
 * @param columnStatistics Hive column statistics (HMS-owned); null if none
 * @param statisticsAnalyzed when {@code columnStatistics} were written; null if never
 * @param others fields no interface declares, kept as they are
 */
public record TableEntry(
        String tableType,
        String location,
        String metadataLocation,
        Integer formatVersion,
        String uuid,
        Long currentSnapshotId,
        Map<String, String> properties,
        byte[] hiveTable,
        byte[] hiveConstraints,
        byte[] hiveReferencedBy,
        BsonDocument columnStatistics,
        Long statisticsAnalyzed,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.TABLE_TYPE,
            LakeKeys.LOCATION,
            LakeKeys.METADATA_LOCATION,
            LakeKeys.FORMAT_VERSION,
            LakeKeys.UUID,
            LakeKeys.CURRENT_SNAPSHOT_ID,
            LakeKeys.PROPERTIES,
            LakeKeys.HMS_TABLE,
            LakeKeys.HMS_CONSTRAINTS,
            LakeKeys.HMS_REFERENCED_BY,
            LakeKeys.COLUMN_STATISTICS,
            LakeKeys.COLUMN_STATISTICS_ANALYZED);

    private static final Set<String> HIVE_VIEW =
            Set.of(LakeKeys.OBJ_TYPE, LakeKeys.LOCATION, LakeKeys.METADATA_LOCATION, LakeKeys.HMS_TABLE);

    /**
     * What a Hive client's read of a table needs: the Hive struct, the location and the Iceberg pointer
     * (which wins over the struct's copy).
     *
     * @param location where the table's files live
     * @param metadataLocation the current Iceberg metadata file; null for a Hive table
     * @param hiveTable the Hive {@code Table} struct, Thrift-binary encoded; null if never written over HMS
     */
    public record HiveView(String location, String metadataLocation, byte[] hiveTable) {}

    public TableEntry {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(properties, "properties is null")));
        hiveTable = hiveTable == null ? null : hiveTable.clone();
        hiveConstraints = hiveConstraints == null ? null : hiveConstraints.clone();
        hiveReferencedBy = hiveReferencedBy == null ? null : hiveReferencedBy.clone();
        columnStatistics = columnStatistics == null ? null : columnStatistics.clone();
        others = requireNonNull(others, "others is null").clone();
    }

    /** An Iceberg table as a REST commit leaves it. */
    public static TableEntry iceberg(IcebergPointer pointer) {
        return empty().withIceberg(pointer);
    }

    private static TableEntry empty() {
        return new TableEntry(
                null, null, null, null, null, null, Map.of(), null, null, null, null, null, new BsonDocument());
    }

    public static TableEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.TABLE;
        Fields.requireType(value, type);
        return new TableEntry(
                Fields.string(value, LakeKeys.TABLE_TYPE, type),
                Fields.string(value, LakeKeys.LOCATION, type),
                Fields.string(value, LakeKeys.METADATA_LOCATION, type),
                Fields.int32(value, LakeKeys.FORMAT_VERSION, type),
                Fields.string(value, LakeKeys.UUID, type),
                Fields.int64(value, LakeKeys.CURRENT_SNAPSHOT_ID, type),
                Fields.stringMap(value, LakeKeys.PROPERTIES, type),
                Fields.binary(value, LakeKeys.HMS_TABLE, type),
                Fields.binary(value, LakeKeys.HMS_CONSTRAINTS, type),
                Fields.binary(value, LakeKeys.HMS_REFERENCED_BY, type),
                Fields.document(value, LakeKeys.COLUMN_STATISTICS, type),
                Fields.int64(value, LakeKeys.COLUMN_STATISTICS_ANALYZED, type),
                Fields.others(value, DECLARED));
    }

    /**
     * Only the {@link HiveView} of a stored table, read in one pass without decoding the rest (statistics,
     * properties): every Hive call that names a table reads it, a narrow partition listing included. Empty if
     * the value is not a table's; a field of the wrong type is an error, as {@link #decode} makes it.
     */
    public static Optional<HiveView> hiveViewOf(BsonDocument stored) {
        BsonDocument value = Fields.select(stored, HIVE_VIEW);
        ObjectType type = ObjectType.TABLE;
        if (ObjectType.of(value).orElse(null) != type) {
            return Optional.empty();
        }
        return Optional.of(new HiveView(
                Fields.string(value, LakeKeys.LOCATION, type),
                Fields.string(value, LakeKeys.METADATA_LOCATION, type),
                Fields.binary(value, LakeKeys.HMS_TABLE, type)));
    }

    /** This entry's {@link HiveView}. */
    public HiveView hiveView() {
        return new HiveView(location, metadataLocation, hiveTable);
    }

    @Override
    public BsonDocument encode() {
        // current_snapshot_id is written (as null for none) whenever the Iceberg state is known, so queries can test
        // it.
        boolean icebergKnown = formatVersion != null || currentSnapshotId != null;
        return Values.of(ObjectType.TABLE)
                .string(LakeKeys.TABLE_TYPE, tableType)
                .int32(LakeKeys.FORMAT_VERSION, formatVersion)
                .string(LakeKeys.METADATA_LOCATION, metadataLocation)
                .string(LakeKeys.UUID, uuid)
                .value(
                        LakeKeys.CURRENT_SNAPSHOT_ID,
                        !icebergKnown
                                ? null
                                : currentSnapshotId == null ? BsonNull.VALUE : new BsonInt64(currentSnapshotId))
                .string(LakeKeys.LOCATION, location)
                .stringMap(LakeKeys.PROPERTIES, formatVersion != null || !properties.isEmpty() ? properties : null)
                .binary(LakeKeys.HMS_TABLE, hiveTable)
                .binary(LakeKeys.HMS_CONSTRAINTS, hiveConstraints)
                .binary(LakeKeys.HMS_REFERENCED_BY, hiveReferencedBy)
                .value(LakeKeys.COLUMN_STATISTICS, columnStatistics)
                .int64(LakeKeys.COLUMN_STATISTICS_ANALYZED, statisticsAnalyzed)
                .with(others);
    }

    /** Whether this is an Iceberg table: it has a metadata pointer, or says it is one. */
    public boolean isIceberg() {
        return metadataLocation != null || LakeKeys.ICEBERG_TABLE_TYPE.equalsIgnoreCase(tableType);
    }

    /** The Iceberg state of this table, if a REST commit (or register) has written it. */
    public java.util.Optional<IcebergPointer> icebergPointer() {
        if (metadataLocation == null || formatVersion == null || uuid == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(
                new IcebergPointer(metadataLocation, formatVersion, uuid, currentSnapshotId, location, properties));
    }

    /** After a REST commit: the Iceberg fields replaced, everything else (the Hive struct, statistics, others) kept. */
    public TableEntry withIceberg(IcebergPointer pointer) {
        return new TableEntry(
                tableType,
                pointer.location(),
                pointer.metadataLocation(),
                pointer.formatVersion(),
                pointer.uuid(),
                pointer.currentSnapshotId(),
                pointer.properties(),
                hiveTable,
                hiveConstraints,
                hiveReferencedBy,
                columnStatistics,
                statisticsAnalyzed,
                others);
    }

    /**
     * After an HMS write: Hive's struct, type, location and pointer (null for a Hive table: it has none),
     * the fields REST wrote kept, so a reader of either side sees the same table.
     */
    public TableEntry withHive(byte[] struct, String type, String newLocation, String newMetadataLocation) {
        return new TableEntry(
                type,
                newLocation == null ? location : newLocation,
                newMetadataLocation,
                formatVersion,
                uuid,
                currentSnapshotId,
                properties,
                requireNonNull(struct, "struct is null"),
                hiveConstraints,
                hiveReferencedBy,
                columnStatistics,
                statisticsAnalyzed,
                others);
    }

    /** A new Hive table: only Hive's fields. */
    public static TableEntry hive(byte[] struct, String type, String location, String metadataLocation) {
        return empty().withHive(struct, type, location, metadataLocation);
    }

    public TableEntry withColumnStatistics(BsonDocument statistics, Long analyzed) {
        return new TableEntry(
                tableType,
                location,
                metadataLocation,
                formatVersion,
                uuid,
                currentSnapshotId,
                properties,
                hiveTable,
                hiveConstraints,
                hiveReferencedBy,
                statistics,
                analyzed,
                others);
    }

    /**
     * After an HMS constraint change: the table's own Hive constraints and the foreign keys referencing it
     * (null for none), everything else kept.
     */
    public TableEntry withHiveConstraints(byte[] constraints, byte[] referencedBy) {
        return new TableEntry(
                tableType,
                location,
                metadataLocation,
                formatVersion,
                uuid,
                currentSnapshotId,
                properties,
                hiveTable,
                constraints,
                referencedBy,
                columnStatistics,
                statisticsAnalyzed,
                others);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TableEntry entry && encode().equals(entry.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }

    @Override
    public String toString() {
        return "TableEntry" + encode().toJson();
    }
}
