package io.treecat.spark;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponseParser;
import org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonParser;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.DeserializationContext;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonDeserializer;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.iceberg.util.JsonUtil;

/**
 * The answers of {@code POST …/plan} and {@code POST …/tasks} as Iceberg's REST client reads them, with their file
 * scan tasks decoded by {@link ScanTasksDecoder}: {@link PlanningRestClient} asks Iceberg's HTTP client for these
 * types instead of Iceberg's own, and hands Iceberg's scan the Iceberg response each one carries. Everything but the
 * tasks (status, plan id, plan tasks, error, storage credentials) is still read by Iceberg's parsers.
 *
 * <p>Iceberg's client ships Jackson relocated ({@code org.apache.iceberg.shaded}), and reads a response with its
 * relocated mapper: hence the relocated annotation and deserializers here.
 */
final class ScanPlanningAnswers {
    private static final String FILE_SCAN_TASKS = "file-scan-tasks";
    private static final String DELETE_FILES = "delete-files";
    private static final String PLAN_TASKS = "plan-tasks";

    private ScanPlanningAnswers() {}

    /** The answer of {@code POST …/plan}. */
    @JsonDeserialize(using = PlanAnswer.Reader.class)
    static final class PlanAnswer implements RESTResponse {
        final PlanTableScanResponse response;

        PlanAnswer(PlanTableScanResponse response) {
            this.response = response;
        }

        @Override
        public void validate() {
            response.validate();
        }

        static final class Reader extends JsonDeserializer<PlanAnswer> {
            @Override
            public PlanAnswer deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                ObjectNode answer = object(parser);
                JsonNode tasks = answer.remove(FILE_SCAN_TASKS);
                JsonNode deletes = answer.remove(DELETE_FILES);
                Map<Integer, PartitionSpec> specs = specsById(context);
                boolean caseSensitive = caseSensitive(context);
                PlanTableScanResponse rest = PlanTableScanResponseParser.fromJson(answer, specs, caseSensitive);
                if (tasks == null) {
                    requireNoDeleteFiles(deletes);
                    return new PlanAnswer(rest);
                }
                return new PlanAnswer(PlanTableScanResponse.builder()
                        .withPlanStatus(rest.planStatus())
                        .withPlanId(rest.planId())
                        .withErrorResponse(rest.errorResponse())
                        .withPlanTasks(rest.planTasks())
                        .withFileScanTasks(fileScanTasks(tasks, deletes, specs, caseSensitive))
                        .withSpecsById(specs)
                        .withCredentials(rest.credentials())
                        .build());
            }
        }
    }

    /** The answer of {@code POST …/tasks}. */
    @JsonDeserialize(using = TasksAnswer.Reader.class)
    static final class TasksAnswer implements RESTResponse {
        final FetchScanTasksResponse response;

        TasksAnswer(FetchScanTasksResponse response) {
            this.response = response;
        }

        @Override
        public void validate() {
            response.validate();
        }

        static final class Reader extends JsonDeserializer<TasksAnswer> {
            @Override
            public TasksAnswer deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                ObjectNode answer = object(parser);
                if (answer.isEmpty()) {
                    throw new IllegalArgumentException("Invalid response: fetchScanTasksResponse null");
                }
                JsonNode tasks = answer.get(FILE_SCAN_TASKS);
                JsonNode deletes = answer.get(DELETE_FILES);
                Map<Integer, PartitionSpec> specs = specsById(context);
                List<FileScanTask> decoded = null;
                if (tasks == null) {
                    requireNoDeleteFiles(deletes);
                } else {
                    decoded = fileScanTasks(tasks, deletes, specs, caseSensitive(context));
                }
                return new TasksAnswer(FetchScanTasksResponse.builder()
                        .withPlanTasks(JsonUtil.getStringListOrNull(PLAN_TASKS, answer))
                        .withSpecsById(specs)
                        .withFileScanTasks(decoded)
                        .build());
            }
        }
    }

    private static List<FileScanTask> fileScanTasks(
            JsonNode tasks, JsonNode deletes, Map<Integer, PartitionSpec> specs, boolean caseSensitive) {
        ScanTasksDecoder decoder = new ScanTasksDecoder(specs, caseSensitive);
        List<DeleteFile> deleteFiles = decoder.deleteFiles(deletes);
        List<FileScanTask> decoded = decoder.tasks(tasks, deleteFiles);
        if (decoded.isEmpty()) {
            requireNoDeleteFiles(deletes);
        }
        return decoded;
    }

    /** Iceberg's rule: delete files come only with the file scan tasks that reference them. */
    private static void requireNoDeleteFiles(JsonNode deletes) {
        if (deletes != null && !deletes.isNull() && !deletes.isEmpty()) {
            throw new IllegalArgumentException(
                    "Invalid response: deleteFiles should only be returned with fileScanTasks that reference them");
        }
    }

    private static ObjectNode object(JsonParser parser) throws IOException {
        JsonNode answer = parser.getCodec().readTree(parser);
        if (answer == null || !answer.isObject()) {
            throw new IllegalArgumentException("Invalid scan planning response: not a JSON object");
        }
        return (ObjectNode) answer;
    }

    @SuppressWarnings("unchecked")
    private static Map<Integer, PartitionSpec> specsById(DeserializationContext context) throws IOException {
        return (Map<Integer, PartitionSpec>) context.findInjectableValue("specsById", null, null);
    }

    private static boolean caseSensitive(DeserializationContext context) throws IOException {
        return (boolean) context.findInjectableValue("caseSensitive", null, null);
    }
}
