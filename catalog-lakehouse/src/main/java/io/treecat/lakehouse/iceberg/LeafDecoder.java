package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.model.LakeKeys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.types.Types;
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
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;

/**
 * Turns the file leaves of one scan back into Iceberg data and delete files, reading each leaf's
 * stored BSON bytes once, in place (no intermediate {@link BsonDocument}, no {@code BsonReader}).
 *
 * <p>Planning reads every leaf a wide filter matches, so the per-file cost is what a whole-table
 * plan costs. What keeps it small: field names are matched as bytes, first against the field
 * {@link FileLeaves#fileValue} writes next; the readable bounds ({@code lower}, {@code upper}),
 * which only path queries use, are skipped by their length; column stats are kept only for the
 * field ids the caller names (the filter's columns and the requested {@code stats-fields}), the
 * only ones the metrics evaluator and the answer look at; and one {@link DataFiles.Builder} and one
 * {@link PartitionData} per spec are reused, because a new {@code PartitionData} builds its Avro
 * schema (a third of a whole-table plan before).
 *
 * <p>Not thread-safe: one decoder per plan or plan task.
 */
final class LeafDecoder {
    private static final BsonDocumentCodec DOCUMENT_CODEC = new BsonDocumentCodec();

    private final Map<Integer, PartitionSpec> specs;
    private final Map<Integer, SortOrder> sortOrders;
    /** The column ids whose stats are kept; null keeps every column's. */
    private final Set<Integer> statsIds;

    private final Map<Integer, PerSpec> perSpec = new HashMap<>();

    // The leaf being read.
    private String content;
    private String path;
    private String format;
    private int specId;
    private long recordCount;
    private long fileSize;
    private Long dataSequenceNumber;
    private Long fileSequenceNumber;
    private Map<Integer, Long> columnSizes;
    private Map<Integer, Long> valueCounts;
    private Map<Integer, Long> nullValueCounts;
    private Map<Integer, Long> nanValueCounts;
    private Map<Integer, ByteBuffer> lowerBounds;
    private Map<Integer, ByteBuffer> upperBounds;
    private List<Long> splitOffsets;
    private ByteBuffer keyMetadata;
    private Integer sortOrderId;
    private Long firstRowId;
    private int[] equalityIds;
    private String referencedDataFile;
    private Long contentOffset;
    private Long contentSize;

    /**
     * @param statsIds the ids of the columns whose stats the caller uses; null for all (needed when
     *     delete files may be matched against data files' bounds)
     */
    LeafDecoder(Map<Integer, PartitionSpec> specs, Map<Integer, SortOrder> sortOrders, Set<Integer> statsIds) {
        this.specs = requireNonNull(specs, "specs is null");
        this.sortOrders = requireNonNull(sortOrders, "sortOrders is null");
        this.statsIds = statsIds;
    }

    /** What one spec needs to rebuild files, made once: the builder (and its partition data, whose Avro schema is costly) is reused. */
    private static final class PerSpec {
        final PartitionSpec spec;
        final List<Types.NestedField> partitionFields;
        final PartitionData partition;
        final DataFiles.Builder dataBuilder;

        PerSpec(PartitionSpec spec) {
            this.spec = spec;
            this.partitionFields = spec.partitionType().fields();
            this.partition = new PartitionData(spec.partitionType());
            this.dataBuilder = DataFiles.builder(spec);
        }
    }

    /** The data or delete file of a leaf value, with its sequence numbers. */
    ContentFile<?> decode(BsonDocument value) {
        // The tree hands out raw documents; any other document is encoded once to be read the same way.
        RawBsonDocument raw = value instanceof RawBsonDocument r ? r : new RawBsonDocument(value, DOCUMENT_CODEC);
        ByteBuffer buffer = raw.getByteBuffer().asNIO();
        if (buffer.hasArray()) {
            read(buffer.array(), buffer.arrayOffset() + buffer.position());
        } else {
            byte[] copy = new byte[buffer.remaining()];
            buffer.duplicate().get(copy);
            read(copy, 0);
        }
        if (content == null || path == null || format == null) {
            throw new IllegalStateException("Corrupt file leaf: no content, file_path or file_format (" + path + ")");
        }
        PerSpec spec = perSpec.computeIfAbsent(specId, id -> {
            PartitionSpec partitionSpec = specs.get(id);
            if (partitionSpec == null) {
                throw new IllegalStateException("File " + path + " has unknown partition spec " + id);
            }
            return new PerSpec(partitionSpec);
        });
        fillPartition(spec);
        Metrics metrics = new Metrics(
                recordCount, columnSizes, valueCounts, nullValueCounts, nanValueCounts, lowerBounds, upperBounds);
        if (FileLeaves.DATA.equals(content)) {
            DataFiles.Builder builder = spec.dataBuilder;
            // clear() resets everything but the key metadata, which is set on every file below.
            builder.clear();
            builder.withPath(path)
                    .withFormat(FileFormat.valueOf(format))
                    .withPartition(spec.partition)
                    .withRecordCount(recordCount)
                    .withFileSizeInBytes(fileSize)
                    .withMetrics(metrics)
                    .withSplitOffsets(splitOffsets)
                    .withEncryptionKeyMetadata(keyMetadata);
            if (sortOrderId != null) {
                builder.withSortOrderId(sortOrderId);
            }
            if (firstRowId != null) {
                builder.withFirstRowId(firstRowId);
            }
            return TreeCatIcebergAccess.withSequenceNumbers(builder.build(), dataSequenceNumber, fileSequenceNumber);
        }
        // Delete files are few: a fresh builder each (its clear() leaves several fields set).
        FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(spec.spec);
        if (FileLeaves.EQUALITY_DELETES.equals(content)) {
            builder.ofEqualityDeletes(equalityIds == null ? new int[0] : equalityIds);
        } else {
            builder.ofPositionDeletes();
        }
        builder.withPath(path)
                .withFormat(FileFormat.valueOf(format))
                .withPartition(spec.partition)
                .withRecordCount(recordCount)
                .withFileSizeInBytes(fileSize)
                .withMetrics(metrics)
                .withSplitOffsets(splitOffsets);
        if (keyMetadata != null) {
            builder.withEncryptionKeyMetadata(keyMetadata);
        }
        if (sortOrderId != null && sortOrders.containsKey(sortOrderId)) {
            builder.withSortOrder(sortOrders.get(sortOrderId));
        }
        if (referencedDataFile != null) {
            builder.withReferencedDataFile(referencedDataFile);
        }
        if (contentOffset != null) {
            builder.withContentOffset(contentOffset);
        }
        if (contentSize != null) {
            builder.withContentSizeInBytes(contentSize);
        }
        return TreeCatIcebergAccess.withSequenceNumbers(builder.build(), dataSequenceNumber, fileSequenceNumber);
    }

    private void fillPartition(PerSpec spec) {
        List<Types.NestedField> fields = spec.partitionFields;
        for (int i = 0; i < fields.size(); i++) {
            BsonValue value = null;
            if (partitionValueCount > 0) {
                // Values are written in field order: look there first.
                String name = fields.get(i).name();
                for (int j = 0; j < partitionValueCount && value == null; j++) {
                    int k = (i + j) % partitionValueCount;
                    if (name.equals(partitionNames[k])) {
                        value = partitionValues[k];
                    }
                }
            }
            spec.partition.set(i, FileLeaves.fromBson(fields.get(i).type(), value));
        }
    }

    private void reset() {
        content = null;
        path = null;
        format = null;
        specId = 0;
        partitionValueCount = 0;
        recordCount = 0;
        fileSize = 0;
        dataSequenceNumber = null;
        fileSequenceNumber = null;
        columnSizes = null;
        valueCounts = null;
        nullValueCounts = null;
        nanValueCounts = null;
        lowerBounds = null;
        upperBounds = null;
        splitOffsets = null;
        keyMetadata = null;
        sortOrderId = null;
        firstRowId = null;
        equalityIds = null;
        referencedDataFile = null;
        contentOffset = null;
        contentSize = null;
    }

    // ---- reading BSON bytes (little-endian, https://bsonspec.org/spec.html)

    private static final byte END = 0x00;
    private static final byte DOUBLE = 0x01;
    private static final byte STRING = 0x02;
    private static final byte DOCUMENT = 0x03;
    private static final byte ARRAY = 0x04;
    private static final byte BINARY = 0x05;
    private static final byte OBJECT_ID = 0x07;
    private static final byte BOOLEAN = 0x08;
    private static final byte DATE_TIME = 0x09;
    private static final byte NULL = 0x0A;
    private static final byte INT32 = 0x10;
    private static final byte TIMESTAMP = 0x11;
    private static final byte INT64 = 0x12;
    private static final byte DECIMAL128 = 0x13;

    /** The leaf's field names (see {@link FileLeaves#fileValue}), in the order they are written: a field is first looked for after the last. */
    private static final String[] NAMES = {
        LakeKeys.OBJ_TYPE,
        LakeKeys.FILE_CONTENT,
        LakeKeys.FILE_PATH,
        LakeKeys.FILE_FORMAT,
        LakeKeys.SPEC_ID,
        LakeKeys.PART_VAL,
        LakeKeys.RECORD_COUNT,
        LakeKeys.FILE_SIZE_IN_BYTES,
        LakeKeys.DATA_SEQUENCE_NUMBER,
        LakeKeys.FILE_SEQUENCE_NUMBER,
        LakeKeys.SNAPSHOT_ID,
        LakeKeys.COLUMN_SIZES,
        LakeKeys.VALUE_COUNTS,
        LakeKeys.NULL_VALUE_COUNTS,
        LakeKeys.NAN_VALUE_COUNTS,
        LakeKeys.LOWER_BOUNDS,
        LakeKeys.LOWER,
        LakeKeys.UPPER_BOUNDS,
        LakeKeys.UPPER,
        LakeKeys.SPLIT_OFFSETS,
        LakeKeys.KEY_METADATA,
        LakeKeys.SORT_ORDER_ID,
        LakeKeys.FIRST_ROW_ID,
        LakeKeys.EQUALITY_IDS,
        LakeKeys.REFERENCED_DATA_FILE,
        LakeKeys.CONTENT_OFFSET,
        LakeKeys.CONTENT_SIZE_IN_BYTES
    };

    private static final byte[][] NAME_BYTES = new byte[NAMES.length][];

    static {
        for (int i = 0; i < NAMES.length; i++) {
            NAME_BYTES[i] = NAMES[i].getBytes(StandardCharsets.UTF_8);
        }
    }

    private byte[] bytes;
    private int position;
    private String[] partitionNames = new String[4];
    private BsonValue[] partitionValues;
    private int partitionValueCount;

    /** One pass over the leaf's fields, in whatever order they were written (see {@link FileLeaves#fileValue}). */
    private void read(byte[] source, int offset) {
        reset();
        bytes = source;
        position = offset + 4;
        int hint = 0;
        byte type;
        while ((type = bytes[position++]) != END) {
            int field = hint % NAMES.length;
            if (nameAt(position, NAME_BYTES[field])) {
                // The usual case: the field the writer puts next, matched and passed in one look.
                position += NAME_BYTES[field].length + 1;
            } else {
                int nameStart = position;
                int nameEnd = cstringEnd();
                field = field(nameStart, nameEnd - nameStart, hint);
            }
            if (field >= 0) {
                hint = field + 1;
            }
            if (type == NULL || field < 0) {
                skip(type);
                continue;
            }
            switch (NAMES[field]) {
                case LakeKeys.FILE_CONTENT -> content = string(type);
                case LakeKeys.FILE_PATH -> path = string(type);
                case LakeKeys.FILE_FORMAT -> format = string(type);
                case LakeKeys.SPEC_ID -> specId = int32(type);
                case LakeKeys.PART_VAL -> partitionValues(type);
                case LakeKeys.RECORD_COUNT -> recordCount = int64(type);
                case LakeKeys.FILE_SIZE_IN_BYTES -> fileSize = int64(type);
                case LakeKeys.DATA_SEQUENCE_NUMBER -> dataSequenceNumber = int64(type);
                case LakeKeys.FILE_SEQUENCE_NUMBER -> fileSequenceNumber = int64(type);
                case LakeKeys.COLUMN_SIZES -> columnSizes = counts(type);
                case LakeKeys.VALUE_COUNTS -> valueCounts = counts(type);
                case LakeKeys.NULL_VALUE_COUNTS -> nullValueCounts = counts(type);
                case LakeKeys.NAN_VALUE_COUNTS -> nanValueCounts = counts(type);
                case LakeKeys.LOWER_BOUNDS -> lowerBounds = bounds(type);
                case LakeKeys.UPPER_BOUNDS -> upperBounds = bounds(type);
                case LakeKeys.SPLIT_OFFSETS -> splitOffsets = longs(type);
                case LakeKeys.KEY_METADATA -> keyMetadata = ByteBuffer.wrap(binary(type));
                case LakeKeys.SORT_ORDER_ID -> sortOrderId = int32(type);
                case LakeKeys.FIRST_ROW_ID -> firstRowId = int64(type);
                case LakeKeys.EQUALITY_IDS -> equalityIds = ints(type);
                case LakeKeys.REFERENCED_DATA_FILE -> referencedDataFile = string(type);
                case LakeKeys.CONTENT_OFFSET -> contentOffset = int64(type);
                case LakeKeys.CONTENT_SIZE_IN_BYTES -> contentSize = int64(type);
                // obj_type, snapshot_id, and the readable bounds (lower, upper) are not part of an Iceberg file.
                default -> skip(type);
            }
        }
        bytes = null;
    }

    /** The index in {@link #NAMES} of the name at [start, start + length), or -1. */
    private int field(int start, int length, int hint) {
        for (int j = 0; j < NAMES.length; j++) {
            int i = (hint + j) % NAMES.length;
            byte[] name = NAME_BYTES[i];
            if (name.length == length && nameAt(start, name)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the C string at {@code at} is {@code name}. */
    private boolean nameAt(int at, byte[] name) {
        for (int i = 0; i < name.length; i++) {
            if (bytes[at + i] != name[i]) {
                return false;
            }
        }
        return bytes[at + name.length] == 0;
    }

    /** Moves past a C string at the position; returns where its terminating zero was. */
    private int cstringEnd() {
        int end = position;
        while (bytes[end] != 0) {
            end++;
        }
        position = end + 1;
        return end;
    }

    private int readInt() {
        int value = (bytes[position] & 0xff)
                | (bytes[position + 1] & 0xff) << 8
                | (bytes[position + 2] & 0xff) << 16
                | (bytes[position + 3] & 0xff) << 24;
        position += 4;
        return value;
    }

    private long readLong() {
        long low = readInt() & 0xffffffffL;
        long high = readInt() & 0xffffffffL;
        return high << 32 | low;
    }

    private static IllegalStateException unexpected(byte type, String what) {
        return new IllegalStateException("Corrupt file leaf: BSON type " + type + " where " + what + " was expected");
    }

    private String string(byte type) {
        if (type != STRING) {
            throw unexpected(type, "a string");
        }
        int length = readInt();
        String value = new String(bytes, position, length - 1, StandardCharsets.UTF_8);
        position += length;
        return value;
    }

    private int int32(byte type) {
        if (type != INT32) {
            throw unexpected(type, "an int32");
        }
        return readInt();
    }

    private long int64(byte type) {
        if (type != INT64) {
            throw unexpected(type, "an int64");
        }
        return readLong();
    }

    private byte[] binary(byte type) {
        if (type != BINARY) {
            throw unexpected(type, "binary data");
        }
        int length = readInt();
        position++; // subtype
        byte[] value = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return value;
    }

    /** Moves past a value of the type. */
    private void skip(byte type) {
        switch (type) {
            case NULL -> {}
            case BOOLEAN -> position += 1;
            case INT32 -> position += 4;
            case DOUBLE, INT64, DATE_TIME, TIMESTAMP -> position += 8;
            case OBJECT_ID -> position += 12;
            case DECIMAL128 -> position += 16;
            // A string's length counts its zero; a document's and an array's count their own length field.
            case STRING -> position += 4 + readIntAt(position);
            case DOCUMENT, ARRAY -> position += readIntAt(position);
            case BINARY -> position += 5 + readIntAt(position);
            default -> throw unexpected(type, "a value of a file leaf");
        }
    }

    private int readIntAt(int at) {
        return (bytes[at] & 0xff)
                | (bytes[at + 1] & 0xff) << 8
                | (bytes[at + 2] & 0xff) << 16
                | (bytes[at + 3] & 0xff) << 24;
    }

    /** The field id of a stats document's key (its decimal digits). */
    private int fieldId(int start, int end) {
        int id = 0;
        for (int i = start; i < end; i++) {
            id = id * 10 + (bytes[i] - '0');
        }
        return id;
    }

    private void expectDocument(byte type, byte expected) {
        if (type != expected) {
            throw unexpected(type, expected == ARRAY ? "an array" : "a document");
        }
        position += 4;
    }

    private Map<Integer, Long> counts(byte type) {
        return statsMap(type, this::int64);
    }

    private Map<Integer, ByteBuffer> bounds(byte type) {
        return statsMap(type, entry -> ByteBuffer.wrap(binary(entry)));
    }

    /** A per-column statistics document ({@code {"<field id>": value}}), only the columns asked for; the rest skipped unread. */
    private <V> Map<Integer, V> statsMap(byte type, EntryReader<V> value) {
        expectDocument(type, DOCUMENT);
        Map<Integer, V> values = new HashMap<>();
        byte entry;
        while ((entry = bytes[position++]) != END) {
            int start = position;
            int id = fieldId(start, cstringEnd());
            if (statsIds == null || statsIds.contains(id)) {
                values.put(id, value.read(entry));
            } else {
                skip(entry);
            }
        }
        return values;
    }

    /** Reads the value of an entry of BSON type {@code type} at the current position. */
    @FunctionalInterface
    private interface EntryReader<V> {
        V read(byte type);
    }

    private List<Long> longs(byte type) {
        expectDocument(type, ARRAY);
        List<Long> values = new ArrayList<>();
        byte entry;
        while ((entry = bytes[position++]) != END) {
            cstringEnd();
            values.add(int64(entry));
        }
        return values;
    }

    private int[] ints(byte type) {
        expectDocument(type, ARRAY);
        int[] values = new int[4];
        int count = 0;
        byte entry;
        while ((entry = bytes[position++]) != END) {
            cstringEnd();
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = int32(entry);
        }
        return Arrays.copyOf(values, count);
    }

    /** The partition values by name, as BSON values for {@link FileLeaves#fromBson}. */
    private void partitionValues(byte type) {
        expectDocument(type, DOCUMENT);
        if (partitionValues == null || partitionValues.length < partitionNames.length) {
            partitionValues = new BsonValue[partitionNames.length];
        }
        int count = 0;
        byte entry;
        while ((entry = bytes[position++]) != END) {
            int start = position;
            int end = cstringEnd();
            if (count == partitionNames.length) {
                partitionNames = Arrays.copyOf(partitionNames, count * 2);
                partitionValues = Arrays.copyOf(partitionValues, count * 2);
            }
            partitionNames[count] = new String(bytes, start, end - start, StandardCharsets.UTF_8);
            partitionValues[count] = switch (entry) {
                case NULL -> BsonNull.VALUE;
                case BOOLEAN -> BsonBoolean.valueOf(bytes[position++] != 0);
                case INT32 -> new BsonInt32(readInt());
                case INT64 -> new BsonInt64(readLong());
                case DOUBLE -> new BsonDouble(Double.longBitsToDouble(readLong()));
                case STRING -> new BsonString(string(entry));
                case BINARY -> new BsonBinary(binary(entry));
                case DECIMAL128 -> {
                    long low = readLong();
                    long high = readLong();
                    yield new BsonDecimal128(Decimal128.fromIEEE754BIDEncoding(high, low));
                }
                default -> throw unexpected(entry, "a partition value");
            };
            count++;
        }
        partitionValueCount = count;
    }
}
