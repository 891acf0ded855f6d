package io.treecat.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.rest.ParserContext;
import org.apache.iceberg.rest.PlanStatus;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponseParser;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponseParser;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link ScanTasksDecoder} against Iceberg's own parser of the same answers: every field of every task (the data
 * file, its partition, metrics and delete files, the residual, schema and spec) must be the same.
 */
class TestScanTasksDecoder {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "kind", Types.StringType.get()),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "payload", Types.BinaryType.get()),
            Types.NestedField.optional(7, "score", Types.DoubleType.get()));
    private static final PartitionSpec PARTITIONED = PartitionSpec.builderFor(SCHEMA)
            .identity("day")
            .bucket("id", 16)
            .truncate("kind", 3)
            .hour("at")
            .identity("amount")
            .identity("payload")
            .withSpecId(0)
            .build();
    private static final PartitionSpec UNPARTITIONED =
            PartitionSpec.builderFor(SCHEMA).withSpecId(1).build();
    private static final Map<Integer, PartitionSpec> SPECS = Map.of(0, PARTITIONED, 1, UNPARTITIONED);
    private static final Expression FILTER =
            Expressions.and(Expressions.equal("day", "2025-06-30"), Expressions.greaterThan("score", 1.0));

    private final ObjectMapper mapper = mapper();

    @Test
    void decodesEveryFieldOfEveryTaskAsIcebergDoes() throws Exception {
        String json = FetchScanTasksResponseParser.toJson(tasksAnswer());
        List<FileScanTask> ours = ours(json);
        List<FileScanTask> iceberg = iceberg(json);
        assertSameTasks(ours, iceberg);
        assertThat(filesForIceberg(json)).isZero();
        assertThat(ours).hasSize(4);
        assertThat(ours.get(0).deletes()).hasSize(2);
        assertThat(ours.get(0).residual()).isNotEqualTo(Expressions.alwaysTrue());
    }

    @Test
    void filesInFormsItDoesNotReadAreIcebergs() throws Exception {
        ObjectNode answer = (ObjectNode) mapper.readTree(FetchScanTasksResponseParser.toJson(tasksAnswer()));
        ArrayNode tasks = (ArrayNode) answer.get("file-scan-tasks");
        // No sort order (Iceberg's parser leaves it null), a field this decoder does not know, a partition as an
        // object keyed by field id.
        ((ObjectNode) tasks.get(0).get("data-file")).remove("sort-order-id");
        ((ObjectNode) tasks.get(1).get("data-file")).put("some-future-field", 1);
        ObjectNode byId = mapper.createObjectNode();
        byId.put("1000", "2025-06-30");
        ((ObjectNode) tasks.get(2).get("data-file")).set("partition", byId);
        String json = mapper.writeValueAsString(answer);

        List<FileScanTask> ours = ours(json);
        assertSameTasks(ours, iceberg(json));
        assertThat(ours.get(0).file().sortOrderId()).isNull();
        assertThat(filesForIceberg(json)).isEqualTo(3);
    }

    @Test
    void aPlanAnswerKeepsItsStatusPlanTasksAndCredentials() throws Exception {
        FetchScanTasksResponse tasks = tasksAnswer();
        String json = PlanTableScanResponseParser.toJson(PlanTableScanResponse.builder()
                .withPlanStatus(PlanStatus.COMPLETED)
                .withPlanId("plan-1")
                .withPlanTasks(List.of("task-a", "task-b"))
                .withFileScanTasks(tasks.fileScanTasks())
                .withDeleteFiles(tasks.deleteFiles())
                .withSpecsById(SPECS)
                .build());
        PlanTableScanResponse ours = mapper.readerFor(ScanPlanningAnswers.PlanAnswer.class)
                .with(context().toInjectableValues())
                .<ScanPlanningAnswers.PlanAnswer>readValue(json)
                .response;
        PlanTableScanResponse iceberg = mapper.readerFor(PlanTableScanResponse.class)
                .with(context().toInjectableValues())
                .readValue(json);
        assertThat(ours.planStatus()).isEqualTo(PlanStatus.COMPLETED);
        assertThat(ours.planId()).isEqualTo("plan-1");
        assertThat(ours.planTasks()).containsExactly("task-a", "task-b");
        assertThat(ours.credentials()).isEqualTo(iceberg.credentials());
        assertSameTasks(ours.fileScanTasks(), iceberg.fileScanTasks());
    }

    @Test
    void badAnswersAreRefusedAsIcebergRefusesThem() {
        assertThatThrownBy(() -> ours("{\"file-scan-tasks\": {}}"))
                .hasMessage("Cannot parse file scan tasks from non-array: {}");
        assertThatThrownBy(() -> ours("{\"plan-tasks\": [], \"delete-files\": [{\"spec-id\": 0}]}"))
                .hasMessage(
                        "Invalid response: deleteFiles should only be returned with fileScanTasks that reference them");
        assertThatThrownBy(() -> ours("{\"file-scan-tasks\": [{\"data-file\": {\"spec-id\": 9, \"content\": \"data\","
                        + " \"sort-order-id\": 0}}]}"))
                .hasMessage("Invalid partition specId: 9");
        assertThatThrownBy(() -> ours("{\"file-scan-tasks\": [{\"delete-file-references\": [3], \"data-file\": "
                        + dataFileJson() + "}]}"))
                .hasMessage("Invalid delete file references: [3], expected indices < 0");
    }

    private String dataFileJson() throws Exception {
        ObjectNode answer = (ObjectNode) mapper.readTree(FetchScanTasksResponseParser.toJson(tasksAnswer()));
        return mapper.writeValueAsString(answer.get("file-scan-tasks").get(3).get("data-file"));
    }

    private List<FileScanTask> ours(String json) throws Exception {
        return mapper.readerFor(ScanPlanningAnswers.TasksAnswer.class)
                .with(context().toInjectableValues())
                .<ScanPlanningAnswers.TasksAnswer>readValue(json)
                .response
                .fileScanTasks();
    }

    /** How many of the answer's data files the decoder left to Iceberg's parser. */
    private int filesForIceberg(String json) throws Exception {
        JsonNode answer = mapper.readTree(json);
        ScanTasksDecoder decoder = new ScanTasksDecoder(SPECS, true);
        decoder.tasks(answer.get("file-scan-tasks"), decoder.deleteFiles(answer.get("delete-files")));
        return decoder.filesForIceberg();
    }

    private List<FileScanTask> iceberg(String json) throws Exception {
        FetchScanTasksResponse response = mapper.readerFor(FetchScanTasksResponse.class)
                .with(context().toInjectableValues())
                .readValue(json);
        return response.fileScanTasks();
    }

    private static ParserContext context() {
        return ParserContext.builder()
                .add("specsById", SPECS)
                .add("caseSensitive", true)
                .build();
    }

    private static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper();
        RESTSerializers.registerAll(mapper);
        return mapper;
    }

    private static FetchScanTasksResponse tasksAnswer() {
        PartitionData full =
                partition(20269, 7, "abc", 488_000, new BigDecimal("12.50"), ByteBuffer.wrap(new byte[] {1, 2}));
        PartitionData sparse = partition(20269, 3, null, 488_001, null, null);
        DataFile withEverything = DataFiles.builder(PARTITIONED)
                .withPath("s3://lake/t/data/a.parquet")
                .withFormat("parquet")
                .withPartition(full)
                .withFileSizeInBytes(4096)
                .withMetrics(new Metrics(
                        100L,
                        Map.of(1, 800L, 7, 400L),
                        Map.of(1, 100L, 7, 100L),
                        Map.of(1, 0L, 7, 3L),
                        Map.of(7, 2L),
                        Map.of(
                                1,
                                Conversions.toByteBuffer(Types.LongType.get(), 5L),
                                7,
                                Conversions.toByteBuffer(Types.DoubleType.get(), 0.5)),
                        Map.of(
                                1,
                                Conversions.toByteBuffer(Types.LongType.get(), 900L),
                                7,
                                Conversions.toByteBuffer(Types.DoubleType.get(), 9.5))))
                .withEncryptionKeyMetadata(ByteBuffer.wrap("key".getBytes(StandardCharsets.UTF_8)))
                .withSplitOffsets(List.of(4L, 2048L))
                .withSortOrderId(1)
                .withFirstRowId(1000L)
                .build();
        DataFile bare = DataFiles.builder(PARTITIONED)
                .withPath("s3://lake/t/data/b.orc")
                .withFormat("orc")
                .withPartition(sparse)
                .withFileSizeInBytes(10)
                .withRecordCount(1)
                .build();
        DataFile sameDay = DataFiles.builder(PARTITIONED)
                .withPath("s3://lake/t/data/c.parquet")
                .withPartition(full)
                .withFileSizeInBytes(20)
                .withRecordCount(2)
                .build();
        DataFile unpartitioned = DataFiles.builder(UNPARTITIONED)
                .withPath("s3://lake/t/data/d.avro")
                .withFileSizeInBytes(30)
                .withRecordCount(3)
                .build();
        DeleteFile positions = FileMetadata.deleteFileBuilder(PARTITIONED)
                .ofPositionDeletes()
                .withPath("s3://lake/t/data/a-deletes.parquet")
                .withPartition(full)
                .withFileSizeInBytes(50)
                .withRecordCount(5)
                .withReferencedDataFile(withEverything.location())
                .build();
        DeleteFile equalities = FileMetadata.deleteFileBuilder(PARTITIONED)
                .ofEqualityDeletes(1)
                .withPath("s3://lake/t/data/eq-deletes.parquet")
                .withPartition(full)
                .withFileSizeInBytes(60)
                .withRecordCount(6)
                .build();
        List<FileScanTask> tasks = new ArrayList<>();
        tasks.add(task(withEverything, PARTITIONED, FILTER, positions, equalities));
        tasks.add(task(bare, PARTITIONED, FILTER, equalities));
        tasks.add(task(sameDay, PARTITIONED, Expressions.alwaysTrue()));
        tasks.add(task(unpartitioned, UNPARTITIONED, FILTER));
        return FetchScanTasksResponse.builder()
                .withFileScanTasks(tasks)
                .withDeleteFiles(List.of(positions, equalities))
                .withSpecsById(SPECS)
                .build();
    }

    private static FileScanTask task(DataFile file, PartitionSpec spec, Expression filter, DeleteFile... deletes) {
        return new BaseFileScanTask(
                file,
                deletes,
                SchemaParser.toJson(SCHEMA),
                PartitionSpecParser.toJson(spec),
                ResidualEvaluator.of(spec, filter, true));
    }

    private static PartitionData partition(Object... values) {
        PartitionData partition = new PartitionData(PARTITIONED.partitionType());
        for (int i = 0; i < values.length; i++) {
            partition.set(i, values[i]);
        }
        return partition;
    }

    private static void assertSameTasks(List<FileScanTask> ours, List<FileScanTask> iceberg) {
        assertThat(ours).hasSameSizeAs(iceberg);
        for (int i = 0; i < ours.size(); i++) {
            FileScanTask a = ours.get(i);
            FileScanTask b = iceberg.get(i);
            assertSameFile(a.file(), b.file());
            assertThat(a.deletes()).hasSameSizeAs(b.deletes());
            for (int d = 0; d < a.deletes().size(); d++) {
                assertThat(a.deletes().get(d).location())
                        .isEqualTo(b.deletes().get(d).location());
                assertThat(a.deletes().get(d).content())
                        .isEqualTo(b.deletes().get(d).content());
            }
            assertThat(a.residual().toString()).isEqualTo(b.residual().toString());
            assertThat(SchemaParser.toJson(a.schema())).isEqualTo(SchemaParser.toJson(b.schema()));
            assertThat(a.spec()).isEqualTo(b.spec());
            assertThat(a.start()).isEqualTo(b.start());
            assertThat(a.length()).isEqualTo(b.length());
        }
    }

    private static void assertSameFile(DataFile a, DataFile b) {
        assertThat(a.location()).isEqualTo(b.location());
        assertThat(a.specId()).isEqualTo(b.specId());
        assertThat(a.content()).isEqualTo(b.content());
        assertThat(a.format()).isEqualTo(b.format());
        assertThat(values(a.partition())).isEqualTo(values(b.partition()));
        assertThat(a.fileSizeInBytes()).isEqualTo(b.fileSizeInBytes());
        assertThat(a.recordCount()).isEqualTo(b.recordCount());
        assertThat(a.columnSizes()).isEqualTo(b.columnSizes());
        assertThat(a.valueCounts()).isEqualTo(b.valueCounts());
        assertThat(a.nullValueCounts()).isEqualTo(b.nullValueCounts());
        assertThat(a.nanValueCounts()).isEqualTo(b.nanValueCounts());
        assertThat(a.lowerBounds()).isEqualTo(b.lowerBounds());
        assertThat(a.upperBounds()).isEqualTo(b.upperBounds());
        assertThat(a.keyMetadata()).isEqualTo(b.keyMetadata());
        assertThat(a.splitOffsets()).isEqualTo(b.splitOffsets());
        assertThat(a.sortOrderId()).isEqualTo(b.sortOrderId());
        assertThat(a.firstRowId()).isEqualTo(b.firstRowId());
    }

    private static List<Object> values(StructLike partition) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < partition.size(); i++) {
            values.add(partition.get(i, Object.class));
        }
        return values;
    }
}
