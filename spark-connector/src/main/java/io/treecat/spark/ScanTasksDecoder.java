package io.treecat.spark;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;

/**
 * Decodes the file scan tasks of one scan-planning answer ({@code POST …/plan}, {@code POST …/tasks}) into the
 * same tasks as Iceberg's REST client ({@code RESTFileScanTaskParser}), at a fraction of its cost on large plans.
 * Iceberg's parser builds, for every file, a {@code PartitionData} (whose constructor converts the partition type
 * to an Avro schema), the table schema's and the spec's JSON, and a residual evaluator; here one data-file builder
 * per spec is reused (Iceberg's own {@code DataFiles.Builder}, which copies its partition per file), and the JSON
 * strings and residual evaluators are made once per spec and per distinct residual. A data file in a form this
 * decoder does not know (another field, a partition written as an object) is decoded by Iceberg's parser, as are
 * delete files, which are few. (Iceberg's task parser itself is package-private; a task has only the three
 * fields read here.)
 */
final class ScanTasksDecoder {
    private static final String DATA_FILE = "data-file";
    private static final String DELETE_FILE_REFERENCES = "delete-file-references";
    private static final String RESIDUAL_FILTER = "residual-filter";

    /** The fields of a data file this decoder reads (Iceberg's {@code ContentFileParser} names). */
    private static final Set<String> DATA_FILE_FIELDS = Set.of(
            "spec-id",
            "content",
            "file-path",
            "file-format",
            "partition",
            "file-size-in-bytes",
            "record-count",
            "column-sizes",
            "value-counts",
            "null-value-counts",
            "nan-value-counts",
            "lower-bounds",
            "upper-bounds",
            "key-metadata",
            "split-offsets",
            "sort-order-id",
            "first-row-id");

    private final Map<Integer, PartitionSpec> specsById;
    private final boolean caseSensitive;
    private final Map<Integer, SpecState> specStates = new HashMap<>();
    /** How many data files went to Iceberg's parser: the forms this decoder does not read. */
    private int filesForIceberg;

    ScanTasksDecoder(Map<Integer, PartitionSpec> specsById, boolean caseSensitive) {
        this.specsById = specsById;
        this.caseSensitive = caseSensitive;
    }

    /** The answer's {@code delete-files}, by Iceberg's parser; empty when it has none. */
    List<DeleteFile> deleteFiles(JsonNode deleteFiles) {
        if (deleteFiles == null || deleteFiles.isNull()) {
            return List.of();
        }
        requireArray(deleteFiles, "delete files");
        List<DeleteFile> decoded = new ArrayList<>(deleteFiles.size());
        for (JsonNode deleteFile : deleteFiles) {
            decoded.add((DeleteFile) ContentFileParser.fromJson(deleteFile, specsById));
        }
        return decoded;
    }

    /** The answer's {@code file-scan-tasks}, whose delete file references index {@code deleteFiles}. */
    List<FileScanTask> tasks(JsonNode tasks, List<DeleteFile> deleteFiles) {
        requireArray(tasks, "file scan tasks");
        List<FileScanTask> decoded = new ArrayList<>(tasks.size());
        for (JsonNode task : tasks) {
            decoded.add(task(task, deleteFiles));
        }
        return decoded;
    }

    private FileScanTask task(JsonNode task, List<DeleteFile> deleteFiles) {
        if (!task.isObject()) {
            throw new IllegalArgumentException("Invalid JSON node for file scan task: non-object (" + task + ")");
        }
        DataFile dataFile = dataFile(JsonUtil.get(DATA_FILE, task));
        SpecState state = specState(dataFile.specId());
        return new BaseFileScanTask(
                dataFile,
                deleteFiles(task, deleteFiles),
                state.schemaJson,
                state.specJson,
                state.residual(task.get(RESIDUAL_FILTER), caseSensitive));
    }

    private static DeleteFile[] deleteFiles(JsonNode task, List<DeleteFile> deleteFiles) {
        JsonNode references = task.get(DELETE_FILE_REFERENCES);
        if (references == null) {
            return null;
        }
        requireArray(references, DELETE_FILE_REFERENCES);
        DeleteFile[] referenced = new DeleteFile[references.size()];
        for (int i = 0; i < referenced.length; i++) {
            JsonNode index = references.get(i);
            if (!index.canConvertToInt() || index.asInt() < 0 || index.asInt() >= deleteFiles.size()) {
                throw new IllegalArgumentException(String.format(
                        "Invalid delete file references: %s, expected indices < %s", references, deleteFiles.size()));
            }
            referenced[i] = deleteFiles.get(index.asInt());
        }
        return referenced;
    }

    private DataFile dataFile(JsonNode file) {
        JsonNode partition = file.get("partition");
        // Iceberg's builder cannot leave the sort order unset (null), as Iceberg's parser does for a file without
        // one: such a file, like any other form this decoder does not know, is Iceberg's parser's.
        if (!file.isObject()
                || !onlyFields(file, DATA_FILE_FIELDS)
                || !"data".equals(text(file, "content"))
                || (partition != null && !partition.isArray())
                || !file.hasNonNull("sort-order-id")) {
            return icebergs(file);
        }
        SpecState state = specState(JsonUtil.getInt("spec-id", file));
        if (state.spec.isPartitioned() ? partition == null : partition != null && !partition.isEmpty()) {
            return icebergs(file);
        }
        DataFiles.Builder builder = state.files;
        builder.clear();
        builder.withPath(JsonUtil.getString("file-path", file))
                .withFormat(FileFormat.fromString(JsonUtil.getString("file-format", file)))
                .withFileSizeInBytes(JsonUtil.getLong("file-size-in-bytes", file))
                .withMetrics(metrics(file))
                .withEncryptionKeyMetadata(JsonUtil.getByteBufferOrNull("key-metadata", file))
                .withSplitOffsets(JsonUtil.getLongListOrNull("split-offsets", file))
                .withFirstRowId(JsonUtil.getLongOrNull("first-row-id", file))
                .withSortOrderId(JsonUtil.getInt("sort-order-id", file));
        if (state.spec.isPartitioned()) {
            builder.withPartition(state.partition(partition));
        }
        return builder.build();
    }

    private DataFile icebergs(JsonNode file) {
        filesForIceberg++;
        return (DataFile) ContentFileParser.fromJson(file, specsById);
    }

    int filesForIceberg() {
        return filesForIceberg;
    }

    @SuppressWarnings("unchecked")
    private static Metrics metrics(JsonNode file) {
        return new Metrics(
                JsonUtil.getLong("record-count", file),
                (Map<Integer, Long>) map(file, "column-sizes", DataFile.COLUMN_SIZES.type()),
                (Map<Integer, Long>) map(file, "value-counts", DataFile.VALUE_COUNTS.type()),
                (Map<Integer, Long>) map(file, "null-value-counts", DataFile.NULL_VALUE_COUNTS.type()),
                (Map<Integer, Long>) map(file, "nan-value-counts", DataFile.NAN_VALUE_COUNTS.type()),
                (Map<Integer, ByteBuffer>) map(file, "lower-bounds", DataFile.LOWER_BOUNDS.type()),
                (Map<Integer, ByteBuffer>) map(file, "upper-bounds", DataFile.UPPER_BOUNDS.type()));
    }

    private static Object map(JsonNode file, String field, Type type) {
        JsonNode value = file.get(field);
        return value == null ? null : SingleValueParser.fromJson(type, value);
    }

    private SpecState specState(int specId) {
        SpecState state = specStates.get(specId);
        if (state == null) {
            PartitionSpec spec = specsById.get(specId);
            if (spec == null) {
                throw new IllegalArgumentException("Invalid partition specId: " + specId);
            }
            state = new SpecState(spec);
            specStates.put(specId, state);
        }
        return state;
    }

    private static boolean onlyFields(JsonNode node, Set<String> known) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            if (!known.contains(names.next())) {
                return false;
            }
        }
        return true;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    private static void requireArray(JsonNode node, String what) {
        if (!node.isArray()) {
            throw new IllegalArgumentException("Cannot parse " + what + " from non-array: " + node);
        }
    }

    /** What every task of one spec shares: its files' builder, its JSON, its residual evaluators. */
    private static final class SpecState {
        final PartitionSpec spec;
        final DataFiles.Builder files;
        final String schemaJson;
        final String specJson;
        final Types.StructType partitionType;
        final PartitionValues partition;
        /**
         * Per partition field, its values decoded, keyed by their JSON (a day's files share the day's text): dates
         * and timestamps are parsed once. Immutable values only: no cache for a binary or fixed field, whose
         * values are buffers.
         */
        final List<Map<JsonNode, Object>> decodedValues = new ArrayList<>();
        /** Keyed by the task's residual filter as JSON; the {@code null} key for a task without one. */
        final Map<JsonNode, ResidualEvaluator> residuals = new HashMap<>();

        SpecState(PartitionSpec spec) {
            this.spec = spec;
            this.files = DataFiles.builder(spec);
            this.schemaJson = SchemaParser.toJson(spec.schema());
            this.specJson = PartitionSpecParser.toJson(spec);
            this.partitionType = spec.partitionType();
            this.partition = new PartitionValues(partitionType.fields().size());
            for (Types.NestedField field : partitionType.fields()) {
                Type.TypeID type = field.type().typeId();
                boolean buffer = type == Type.TypeID.BINARY || type == Type.TypeID.FIXED;
                decodedValues.add(buffer ? null : new HashMap<>());
            }
        }

        /** The partition written as an array of its fields' values, in a struct the builder copies. */
        StructLike partition(JsonNode values) {
            List<Types.NestedField> fields = partitionType.fields();
            if (values.size() != fields.size()) {
                throw new IllegalArgumentException(String.format(
                        "Invalid partition data size: expected = %s, actual = %s", fields.size(), values.size()));
            }
            for (int pos = 0; pos < fields.size(); pos++) {
                Type type = fields.get(pos).type();
                JsonNode value = values.get(pos);
                Map<JsonNode, Object> decoded = decodedValues.get(pos);
                partition.values[pos] = decoded == null
                        ? SingleValueParser.fromJson(type, value)
                        : decoded.computeIfAbsent(value, json -> SingleValueParser.fromJson(type, json));
            }
            return partition;
        }

        ResidualEvaluator residual(JsonNode filter, boolean caseSensitive) {
            return residuals.computeIfAbsent(filter, json -> {
                Expression expression = json == null ? null : ExpressionParser.fromJson(json);
                return ResidualEvaluator.of(spec, expression, caseSensitive);
            });
        }
    }

    /** A partition's values, reused for every file of a spec: the builder copies them into the file. */
    private static final class PartitionValues implements StructLike {
        final Object[] values;

        PartitionValues(int size) {
            this.values = new Object[size];
        }

        @Override
        public int size() {
            return values.length;
        }

        @Override
        public <T> T get(int pos, Class<T> javaClass) {
            return javaClass.cast(values[pos]);
        }

        @Override
        public <T> void set(int pos, T value) {
            values[pos] = value;
        }
    }
}
