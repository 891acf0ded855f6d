package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.util.ArrayList;
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
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.DecoderContext;

/**
 * Turns the file leaves of one scan back into Iceberg data and delete files, in one streaming pass
 * over each leaf's stored bytes (no intermediate {@link BsonDocument}).
 *
 * <p>Planning reads every leaf a wide filter matches, so the per-file cost is what a whole-table
 * plan costs. Three things make it small: the leaf is read field by field from its bytes, skipping
 * the readable bounds ({@code lower}, {@code upper}) that only path queries use; column stats are
 * kept only for the field ids the caller names (the filter's columns and the requested {@code
 * stats-fields}), which are the only ones the metrics evaluator and the answer look at; and one
 * {@link DataFiles.Builder} and one {@link PartitionData} per spec are reused, because a new {@code
 * PartitionData} builds its Avro schema (then most of the cost of a file).
 *
 * <p>Not thread-safe: one decoder per plan or plan task.
 */
final class LeafDecoder {
  private static final BsonValueCodec VALUE_CODEC = new BsonValueCodec();
  private static final DecoderContext DECODER_CONTEXT = DecoderContext.builder().build();

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
  private BsonDocument partitionValues;
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
    BsonReader reader = value instanceof RawBsonDocument raw ? new BsonBinaryReader(raw.getByteBuffer().asNIO()) : new BsonDocumentReader(value);
    try {
      read(reader);
    } finally {
      reader.close();
    }
    PerSpec spec = perSpec.computeIfAbsent(specId, id -> {
      PartitionSpec partitionSpec = specs.get(id);
      if (partitionSpec == null) {
        throw new IllegalStateException("File " + path + " has unknown partition spec " + id);
      }
      return new PerSpec(partitionSpec);
    });
    fillPartition(spec);
    Metrics metrics = new Metrics(recordCount, columnSizes, valueCounts, nullValueCounts, nanValueCounts, lowerBounds, upperBounds);
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
      BsonValue value = partitionValues == null ? null : partitionValues.get(fields.get(i).name());
      spec.partition.set(i, FileLeaves.fromBson(fields.get(i).type(), value));
    }
  }

  private void reset() {
    content = null;
    path = null;
    format = null;
    specId = 0;
    partitionValues = null;
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

  /** One pass over the leaf's fields, in whatever order they were written (see {@link FileLeaves#fileValue}). */
  private void read(BsonReader reader) {
    reset();
    reader.readStartDocument();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String name = reader.readName();
      if (reader.getCurrentBsonType() == BsonType.NULL) {
        reader.readNull();
        continue;
      }
      switch (name) {
        case FileLeaves.CONTENT -> content = reader.readString();
        case FileLeaves.FILE_PATH -> path = reader.readString();
        case "file_format" -> format = reader.readString();
        case FileLeaves.SPEC_ID -> specId = reader.readInt32();
        case FileLeaves.PART_VAL -> partitionValues = VALUE_CODEC.decode(reader, DECODER_CONTEXT).asDocument();
        case "record_count" -> recordCount = reader.readInt64();
        case "file_size_in_bytes" -> fileSize = reader.readInt64();
        case "data_sequence_number" -> dataSequenceNumber = reader.readInt64();
        case "file_sequence_number" -> fileSequenceNumber = reader.readInt64();
        case "column_sizes" -> columnSizes = counts(reader);
        case "value_counts" -> valueCounts = counts(reader);
        case "null_value_counts" -> nullValueCounts = counts(reader);
        case "nan_value_counts" -> nanValueCounts = counts(reader);
        case "lower_bounds" -> lowerBounds = bounds(reader);
        case "upper_bounds" -> upperBounds = bounds(reader);
        case "split_offsets" -> splitOffsets = longs(reader);
        case "key_metadata" -> keyMetadata = ByteBuffer.wrap(reader.readBinaryData().getData());
        case "sort_order_id" -> sortOrderId = reader.readInt32();
        case "first_row_id" -> firstRowId = reader.readInt64();
        case "equality_ids" -> equalityIds = ints(reader);
        case "referenced_data_file" -> referencedDataFile = reader.readString();
        case "content_offset" -> contentOffset = reader.readInt64();
        case "content_size_in_bytes" -> contentSize = reader.readInt64();
        // obj_type, snapshot_id, and the readable bounds (lower, upper) are not part of an Iceberg file.
        default -> reader.skipValue();
      }
    }
    reader.readEndDocument();
  }

  /** Whether the stats of the column named by a stats document's key are kept. */
  private boolean keep(String id) {
    return statsIds == null || statsIds.contains(Integer.valueOf(id));
  }

  private Map<Integer, Long> counts(BsonReader reader) {
    Map<Integer, Long> counts = new HashMap<>();
    reader.readStartDocument();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String id = reader.readName();
      if (keep(id)) {
        counts.put(Integer.valueOf(id), reader.readInt64());
      } else {
        reader.skipValue();
      }
    }
    reader.readEndDocument();
    return counts;
  }

  private Map<Integer, ByteBuffer> bounds(BsonReader reader) {
    Map<Integer, ByteBuffer> bounds = new HashMap<>();
    reader.readStartDocument();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String id = reader.readName();
      if (keep(id)) {
        bounds.put(Integer.valueOf(id), ByteBuffer.wrap(reader.readBinaryData().getData()));
      } else {
        reader.skipValue();
      }
    }
    reader.readEndDocument();
    return bounds;
  }

  private static List<Long> longs(BsonReader reader) {
    List<Long> values = new ArrayList<>();
    reader.readStartArray();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      values.add(reader.readInt64());
    }
    reader.readEndArray();
    return values;
  }

  private static int[] ints(BsonReader reader) {
    List<Integer> values = new ArrayList<>();
    reader.readStartArray();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      values.add(reader.readInt32());
    }
    reader.readEndArray();
    return values.stream().mapToInt(Integer::intValue).toArray();
  }
}
