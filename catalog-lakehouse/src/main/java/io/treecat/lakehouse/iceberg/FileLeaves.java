package io.treecat.lakehouse.iceberg;

import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PartitionEntry;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The BSON form of an Iceberg data or delete file as a leaf of the tree, and back (see {@link
 * FileIndex} for where leaves live). The value keeps everything a {@code FileScanTask} needs, so a
 * plan is answered from the tree without reading a manifest: content, path, format, spec id,
 * partition values, counts, sizes, column stats (serialized bounds, exact; plus readable bounds of
 * primitive columns by name, for path queries), sequence numbers, the adding snapshot, equality ids
 * and the referenced data file of a position delete or deletion vector.
 */
final class FileLeaves {
    /** The stored {@link LakeKeys#FILE_CONTENT} values. */
    static final String DATA = "data";

    static final String POSITION_DELETES = "position_deletes";
    static final String EQUALITY_DELETES = "equality_deletes";

    private FileLeaves() {}

    // ---- partitions

    /**
     * The id of a partition's node: {@code <spec id>:<field>=<value>/…}, values URL-encoded in their
     * human form, a null value as the bare field name (so it never collides with the string "null").
     */
    static String partitionId(PartitionSpec spec, StructLike partition) {
        StringBuilder id = new StringBuilder().append(spec.specId()).append(':');
        List<PartitionField> fields = spec.fields();
        for (int i = 0; i < fields.size(); i++) {
            PartitionField field = fields.get(i);
            if (i > 0) {
                id.append('/');
            }
            id.append(field.name());
            Object value = partition.get(i, Object.class);
            if (value != null) {
                Type type = spec.partitionType().fields().get(i).type();
                @SuppressWarnings("unchecked")
                String human = ((org.apache.iceberg.transforms.Transform<Object, Object>) field.transform())
                        .toHumanString(type, value);
                id.append('=').append(URLEncoder.encode(human, StandardCharsets.UTF_8));
            }
        }
        return id.toString();
    }

    static BsonDocument partitionValue(PartitionSpec spec, StructLike partition) {
        return PartitionEntry.icebergPartition(
                        spec.specId(),
                        partitionValues(spec, partition),
                        spec.isUnpartitioned() ? "" : spec.partitionToPath(partition))
                .encode();
    }

    /** Partition values by partition field name, in their stored (transformed) form. */
    static BsonDocument partitionValues(PartitionSpec spec, StructLike partition) {
        BsonDocument values = new BsonDocument();
        List<Types.NestedField> fields = spec.partitionType().fields();
        for (int i = 0; i < fields.size(); i++) {
            values.append(fields.get(i).name(), toBson(fields.get(i).type(), partition.get(i, Object.class)));
        }
        return values;
    }

    // ---- values

    /** A partition or bound value as BSON: numbers stay numbers, so tree predicates compare them. */
    static BsonValue toBson(Type type, Object value) {
        if (value == null) {
            return BsonNull.VALUE;
        }
        return switch (type.typeId()) {
            case BOOLEAN -> BsonBoolean.valueOf((Boolean) value);
            case INTEGER, DATE -> new BsonInt32((Integer) value);
            case LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> new BsonInt64((Long) value);
            case FLOAT -> new BsonDouble((Float) value);
            case DOUBLE -> new BsonDouble((Double) value);
            case STRING -> new BsonString(value.toString());
            case UUID -> new BsonString(value.toString());
            case DECIMAL -> new BsonDecimal128(new Decimal128((BigDecimal) value));
            case FIXED, BINARY -> new BsonBinary(bytes((ByteBuffer) value));
            default -> new BsonString(value.toString());
        };
    }

    /** A stored partition value back in Iceberg's internal form. */
    static Object fromBson(Type type, BsonValue value) {
        if (value == null || value.isNull()) {
            return null;
        }
        return switch (type.typeId()) {
            case BOOLEAN -> value.asBoolean().getValue();
            case INTEGER, DATE -> value.asInt32().getValue();
            case LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> value.asInt64().getValue();
            case FLOAT -> (float) value.asDouble().getValue();
            case DOUBLE -> value.asDouble().getValue();
            case STRING -> value.asString().getValue();
            case UUID -> UUID.fromString(value.asString().getValue());
            case DECIMAL -> value.asDecimal128().getValue().bigDecimalValue();
            case FIXED, BINARY -> ByteBuffer.wrap(value.asBinary().getData());
            default -> throw new IllegalStateException("Unsupported partition type: " + type);
        };
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    // ---- files

    static String content(FileContent content) {
        return switch (content) {
            case DATA -> DATA;
            case POSITION_DELETES -> POSITION_DELETES;
            case EQUALITY_DELETES -> EQUALITY_DELETES;
            // Manifests are never indexed as files.
            case DATA_MANIFEST, DELETE_MANIFEST ->
                throw new IllegalArgumentException("Not a data or delete file: " + content);
        };
    }

    /**
     * The leaf value of a file; {@code file} must carry its sequence numbers (as files read from a
     * manifest entry do).
     */
    static BsonDocument fileValue(ContentFile<?> file, PartitionSpec spec, Schema schema, long addedSnapshotId) {
        BsonDocument value = new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.FILE.bson())
                .append(LakeKeys.FILE_CONTENT, new BsonString(content(file.content())))
                .append(LakeKeys.FILE_PATH, new BsonString(file.location()))
                .append(LakeKeys.FILE_FORMAT, new BsonString(file.format().name()))
                .append(LakeKeys.SPEC_ID, new BsonInt32(file.specId()))
                .append(LakeKeys.PART_VAL, partitionValues(spec, file.partition()))
                .append(LakeKeys.RECORD_COUNT, new BsonInt64(file.recordCount()))
                .append(LakeKeys.FILE_SIZE_IN_BYTES, new BsonInt64(file.fileSizeInBytes()))
                .append(LakeKeys.DATA_SEQUENCE_NUMBER, longOrNull(file.dataSequenceNumber()))
                .append(LakeKeys.FILE_SEQUENCE_NUMBER, longOrNull(file.fileSequenceNumber()))
                .append(LakeKeys.SNAPSHOT_ID, new BsonInt64(addedSnapshotId));
        putCounts(value, LakeKeys.COLUMN_SIZES, file.columnSizes());
        putCounts(value, LakeKeys.VALUE_COUNTS, file.valueCounts());
        putCounts(value, LakeKeys.NULL_VALUE_COUNTS, file.nullValueCounts());
        putCounts(value, LakeKeys.NAN_VALUE_COUNTS, file.nanValueCounts());
        putBounds(value, LakeKeys.LOWER_BOUNDS, LakeKeys.LOWER, file.lowerBounds(), schema);
        putBounds(value, LakeKeys.UPPER_BOUNDS, LakeKeys.UPPER, file.upperBounds(), schema);
        if (file.splitOffsets() != null) {
            value.append(LakeKeys.SPLIT_OFFSETS, longs(file.splitOffsets()));
        }
        if (file.keyMetadata() != null) {
            value.append(LakeKeys.KEY_METADATA, new BsonBinary(bytes(file.keyMetadata())));
        }
        if (file.sortOrderId() != null) {
            value.append(LakeKeys.SORT_ORDER_ID, new BsonInt32(file.sortOrderId()));
        }
        if (file.firstRowId() != null) {
            value.append(LakeKeys.FIRST_ROW_ID, new BsonInt64(file.firstRowId()));
        }
        if (file instanceof DeleteFile delete) {
            if (delete.equalityFieldIds() != null) {
                BsonArray ids = new BsonArray();
                delete.equalityFieldIds().forEach(id -> ids.add(new BsonInt32(id)));
                value.append(LakeKeys.EQUALITY_IDS, ids);
            }
            if (delete.referencedDataFile() != null) {
                value.append(LakeKeys.REFERENCED_DATA_FILE, new BsonString(delete.referencedDataFile()));
            }
            if (delete.contentOffset() != null) {
                value.append(LakeKeys.CONTENT_OFFSET, new BsonInt64(delete.contentOffset()));
            }
            if (delete.contentSizeInBytes() != null) {
                value.append(LakeKeys.CONTENT_SIZE_IN_BYTES, new BsonInt64(delete.contentSizeInBytes()));
            }
        }
        return value;
    }

    private static BsonValue longOrNull(Long value) {
        return value == null ? BsonNull.VALUE : new BsonInt64(value);
    }

    private static BsonArray longs(List<Long> values) {
        BsonArray array = new BsonArray();
        values.forEach(v -> array.add(new BsonInt64(v)));
        return array;
    }

    private static void putCounts(BsonDocument value, String name, Map<Integer, Long> counts) {
        if (counts != null) {
            BsonDocument document = new BsonDocument();
            counts.forEach((id, count) -> document.append(Integer.toString(id), new BsonInt64(count)));
            value.append(name, document);
        }
    }

    /** Serialized bounds by field id (exact), and readable bounds of primitive columns by name. */
    private static void putBounds(
            BsonDocument value, String name, String readableName, Map<Integer, ByteBuffer> bounds, Schema schema) {
        if (bounds == null) {
            return;
        }
        BsonDocument serialized = new BsonDocument();
        BsonDocument readable = new BsonDocument();
        bounds.forEach((id, bytes) -> {
            serialized.append(Integer.toString(id), new BsonBinary(bytes(bytes)));
            Types.NestedField field = schema.findField(id);
            if (field != null && field.type().isPrimitiveType() && readableType(field.type())) {
                try {
                    readable.append(
                            schema.findColumnName(id),
                            toBson(field.type(), Conversions.fromByteBuffer(field.type(), bytes.duplicate())));
                } catch (RuntimeException e) {
                    // A bound that does not decode as its column's type (e.g. after a type promotion) stays serialized
                    // only.
                }
            }
        });
        value.append(name, serialized);
        value.append(readableName, readable);
    }

    private static boolean readableType(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, DATE, LONG, TIME, TIMESTAMP, TIMESTAMP_NANO, FLOAT, DOUBLE, STRING, DECIMAL -> true;
            default -> false;
        };
    }
}
