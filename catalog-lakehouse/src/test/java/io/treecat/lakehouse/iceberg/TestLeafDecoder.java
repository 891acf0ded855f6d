package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.lakehouse.model.LakeKeys;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/** A file written as a leaf by {@link FileLeaves#fileValue} decodes back to the same Iceberg file, field for field. */
class TestLeafDecoder {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "category", Types.StringType.get()));
    private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA)
            .withSpecId(0)
            .identity("day")
            .bucket("id", 4)
            .build();
    private static final PartitionSpec UNPARTITIONED =
            PartitionSpec.builderFor(SCHEMA).withSpecId(1).build();
    private static final SortOrder SORT =
            SortOrder.builderFor(SCHEMA).withOrderId(3).asc("id").build();
    private static final Map<Integer, PartitionSpec> SPECS = Map.of(0, SPEC, 1, UNPARTITIONED);

    private static PartitionData partition(Integer day, int bucket) {
        PartitionData data = new PartitionData(SPEC.partitionType());
        data.set(0, day);
        data.set(1, bucket);
        return data;
    }

    private static Metrics metrics(long records) {
        return new Metrics(
                records,
                Map.of(1, 10L, 3, 30L),
                Map.of(1, records, 2, records, 3, records),
                Map.of(1, 0L, 2, 1L, 3, 2L),
                Map.of(),
                Map.of(
                        1,
                        Conversions.toByteBuffer(Types.LongType.get(), 5L),
                        3,
                        Conversions.toByteBuffer(Types.StringType.get(), "a")),
                Map.of(
                        1,
                        Conversions.toByteBuffer(Types.LongType.get(), 9L),
                        3,
                        Conversions.toByteBuffer(Types.StringType.get(), "z")));
    }

    private static DataFile fullDataFile() {
        DataFile file = DataFiles.builder(SPEC)
                .withPath("s3://b/t/data/day=2025-01-01/id_bucket=2/a.parquet")
                .withFormat(FileFormat.PARQUET)
                .withPartition(partition(20089, 2))
                .withRecordCount(100)
                .withFileSizeInBytes(4096)
                .withMetrics(metrics(100))
                .withSplitOffsets(List.of(4L, 2048L))
                .withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .withSortOrderId(3)
                .withFirstRowId(1000L)
                .build();
        return TreeCatIcebergAccess.withSequenceNumbers(file, 7L, 8L);
    }

    /** The same spec, a null partition value, none of the optional fields: nothing of the file before may leak into it. */
    private static DataFile bareDataFile() {
        DataFile file = DataFiles.builder(SPEC)
                .withPath("s3://b/t/data/day=null/id_bucket=0/b.avro")
                .withFormat(FileFormat.AVRO)
                .withPartition(partition(null, 0))
                .withRecordCount(5)
                .withFileSizeInBytes(10)
                .build();
        return TreeCatIcebergAccess.withSequenceNumbers(file, 9L, 9L);
    }

    private static DeleteFile equalityDeletes() {
        DeleteFile file = FileMetadata.deleteFileBuilder(UNPARTITIONED)
                .ofEqualityDeletes(1, 3)
                .withPath("s3://b/t/data/eq.parquet")
                .withFormat(FileFormat.PARQUET)
                .withRecordCount(3)
                .withFileSizeInBytes(300)
                .withMetrics(metrics(3))
                .withSortOrder(SORT)
                .build();
        return TreeCatIcebergAccess.withSequenceNumbers(file, 10L, 11L);
    }

    private static DeleteFile deletionVector() {
        DeleteFile file = FileMetadata.deleteFileBuilder(SPEC)
                .ofPositionDeletes()
                .withPath("s3://b/t/data/dv.puffin")
                .withFormat(FileFormat.PUFFIN)
                .withPartition(partition(20089, 2))
                .withRecordCount(2)
                .withFileSizeInBytes(64)
                .withReferencedDataFile("s3://b/t/data/day=2025-01-01/id_bucket=2/a.parquet")
                .withContentOffset(4L)
                .withContentSizeInBytes(40L)
                .build();
        return TreeCatIcebergAccess.withSequenceNumbers(file, 12L, 12L);
    }

    private static BsonDocument leaf(ContentFile<?> file, boolean raw) {
        BsonDocument value = FileLeaves.fileValue(file, SPECS.get(file.specId()), SCHEMA, 42L);
        return raw ? new RawBsonDocument(value, new BsonDocumentCodec()) : value;
    }

    private static void assertSameFile(ContentFile<?> actual, ContentFile<?> expected) {
        assertThat(actual.content()).isEqualTo(expected.content());
        assertThat(actual.location()).isEqualTo(expected.location());
        assertThat(actual.format()).isEqualTo(expected.format());
        assertThat(actual.specId()).isEqualTo(expected.specId());
        assertThat(actual.partition()).isEqualTo(expected.partition());
        assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
        assertThat(actual.fileSizeInBytes()).isEqualTo(expected.fileSizeInBytes());
        assertThat(actual.columnSizes()).isEqualTo(expected.columnSizes());
        assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
        assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
        assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
        assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
        assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
        assertThat(actual.splitOffsets()).isEqualTo(expected.splitOffsets());
        assertThat(actual.keyMetadata()).isEqualTo(expected.keyMetadata());
        assertThat(actual.sortOrderId()).isEqualTo(expected.sortOrderId());
        assertThat(actual.firstRowId()).isEqualTo(expected.firstRowId());
        assertThat(actual.dataSequenceNumber()).isEqualTo(expected.dataSequenceNumber());
        assertThat(actual.fileSequenceNumber()).isEqualTo(expected.fileSequenceNumber());
        if (expected instanceof DeleteFile delete) {
            DeleteFile actualDelete = (DeleteFile) actual;
            assertThat(actualDelete.equalityFieldIds()).isEqualTo(delete.equalityFieldIds());
            assertThat(actualDelete.referencedDataFile()).isEqualTo(delete.referencedDataFile());
            assertThat(actualDelete.contentOffset()).isEqualTo(delete.contentOffset());
            assertThat(actualDelete.contentSizeInBytes()).isEqualTo(delete.contentSizeInBytes());
        }
    }

    @Test
    void everyFieldOfDataAndDeleteFilesSurvivesTheLeafFromRawAndDecodedDocuments() {
        List<ContentFile<?>> files =
                List.of(fullDataFile(), bareDataFile(), equalityDeletes(), deletionVector(), fullDataFile());
        for (boolean raw : new boolean[] {true, false}) {
            // One decoder for all, as in a plan: the reused per-spec builder must not carry one file's fields into the
            // next.
            LeafDecoder decoder = new LeafDecoder(SPECS, Map.of(3, SORT), null);
            for (ContentFile<?> file : files) {
                ContentFile<?> decoded = decoder.decode(leaf(file, raw));
                assertThat(decoded)
                        .as("%s (raw %s)", file.location(), raw)
                        .isInstanceOf(file instanceof DataFile ? DataFile.class : DeleteFile.class);
                assertSameFile(decoded, file);
            }
        }
    }

    @Test
    void statsAreKeptOnlyForTheNamedColumns() {
        LeafDecoder decoder = new LeafDecoder(SPECS, Map.of(), Set.of(3));
        ContentFile<?> decoded = decoder.decode(leaf(fullDataFile(), true));
        assertThat(decoded.valueCounts()).isEqualTo(Map.of(3, 100L));
        assertThat(decoded.nullValueCounts()).isEqualTo(Map.of(3, 2L));
        assertThat(decoded.columnSizes()).isEqualTo(Map.of(3, 30L));
        assertThat(decoded.lowerBounds()).containsOnlyKeys(3);
        assertThat(decoded.upperBounds()).isEqualTo(Map.of(3, Conversions.toByteBuffer(Types.StringType.get(), "z")));
        // Everything but the column stats is whole.
        assertThat(decoded.location()).isEqualTo(fullDataFile().location());
        assertThat(decoded.partition()).isEqualTo(fullDataFile().partition());
        assertThat(decoded.recordCount()).isEqualTo(100);
    }

    @Test
    void partitionValuesOfEveryIdentityTypeAndNullsSurviveTheLeaf() {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "b", Types.BooleanType.get()),
                Types.NestedField.optional(2, "i", Types.IntegerType.get()),
                Types.NestedField.optional(3, "l", Types.LongType.get()),
                Types.NestedField.optional(4, "f", Types.FloatType.get()),
                Types.NestedField.optional(5, "d", Types.DoubleType.get()),
                Types.NestedField.optional(6, "s", Types.StringType.get()),
                Types.NestedField.optional(7, "u", Types.UUIDType.get()),
                Types.NestedField.optional(8, "dec", Types.DecimalType.of(9, 2)),
                Types.NestedField.optional(9, "fx", Types.FixedType.ofLength(3)),
                Types.NestedField.optional(10, "bin", Types.BinaryType.get()),
                Types.NestedField.optional(11, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(12, "day", Types.DateType.get()));
        PartitionSpec.Builder builder = PartitionSpec.builderFor(schema).withSpecId(5);
        schema.columns().forEach(column -> builder.identity(column.name()));
        PartitionSpec spec = builder.build();
        PartitionData values = new PartitionData(spec.partitionType());
        Object[] row = {
            true,
            7,
            8L,
            1.5f,
            2.25,
            "é/x",
            java.util.UUID.randomUUID(),
            new java.math.BigDecimal("12.34"),
            ByteBuffer.wrap(new byte[] {1, 2, 3}),
            ByteBuffer.wrap(new byte[] {9}),
            1_700_000_000_000_000L,
            20089
        };
        for (int i = 0; i < row.length; i++) {
            values.set(i, row[i]);
        }
        PartitionData nulls = new PartitionData(spec.partitionType());
        LeafDecoder decoder = new LeafDecoder(Map.of(5, spec), Map.of(), null);
        for (PartitionData partition : List.of(values, nulls, values)) {
            DataFile file = DataFiles.builder(spec)
                    .withPath("s3://b/t/" + partition.hashCode())
                    .withFormat(FileFormat.ORC)
                    .withPartition(partition)
                    .withRecordCount(1)
                    .withFileSizeInBytes(1)
                    .build();
            BsonDocument leaf =
                    new RawBsonDocument(FileLeaves.fileValue(file, spec, schema, 1L), new BsonDocumentCodec());
            // PartitionData.equals compares fixed and binary values by identity: compare as Iceberg orders structs.
            StructLike decoded = decoder.decode(leaf).partition();
            assertThat(Comparators.forType(spec.partitionType()).compare(decoded, partition))
                    .as("%s vs %s", decoded, partition)
                    .isZero();
            for (int i = 0; i < row.length; i++) {
                assertThat(decoded.get(i, Object.class) == null).isEqualTo(partition.get(i, Object.class) == null);
            }
        }
    }

    @Test
    void aLeafWithoutItsRequiredFieldsIsAClearError() {
        BsonDocument leaf = leaf(fullDataFile(), false);
        leaf.remove(LakeKeys.FILE_PATH);
        assertThatThrownBy(() -> new LeafDecoder(SPECS, Map.of(), null).decode(leaf))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Corrupt file leaf: no content, file_path or file_format");
    }
}
