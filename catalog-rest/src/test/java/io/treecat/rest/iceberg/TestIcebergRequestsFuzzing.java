package io.treecat.rest.iceberg;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.json.JsonLimits;
import io.treecat.lakehouse.iceberg.TableUpdates;
import io.treecat.lakehouse.model.LakeNames;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.apache.iceberg.rest.requests.PlanTableScanRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the Iceberg REST requests as TreeCat reads them (docs/robustness.md):
 * each body through {@link IcebergBodies#read} (Iceberg's own parsers, then the request's {@code
 * validate()}) and what the route does with it before the lakehouse ({@link IcebergWire}, the name
 * checks); a table commit's requirements and updates applied to a table's metadata, in memory, as
 * {@code TableCommits} applies them ({@link TableUpdates}). Whatever fails must be a 4xx through the one error table ({@link
 * IcebergErrors}), a lost requirement Iceberg's 409: never a 5xx, a stack overflow or a hang.
 */
class TestIcebergRequestsFuzzing {
    private static final IcebergBodies BODIES =
            new IcebergBodies(IcebergRest.mapper(JsonLimits.DEFAULTS), JsonLimits.DEFAULTS);

    private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(
                    4,
                    "point",
                    Types.StructType.of(
                            Types.NestedField.optional(5, "x", Types.DoubleType.get()),
                            Types.NestedField.optional(6, "tag", Types.BinaryType.get()))),
            Types.NestedField.optional(7, "amount", Types.DecimalType.of(10, 2)));

    private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA)
            .identity("day")
            .bucket("id", 16)
            .truncate("day", 4, "day_prefix")
            .hour("ts")
            .build();

    /** The table a commit applies to: format 2, partitioned, no snapshot. */
    private static final TableMetadata BASE = TableMetadata.newTableMetadata(
            SCHEMA, SPEC, SortOrder.unsorted(), "file:/warehouse/db/t", Map.of("format-version", "2"));

    /** The request an input stands for, by the route name on its first line (else by the line's hash). */
    enum Route {
        CREATE_NAMESPACE(CreateNamespaceRequest.class),
        UPDATE_NAMESPACE_PROPERTIES(UpdateNamespacePropertiesRequest.class),
        CREATE_TABLE(CreateTableRequest.class),
        REGISTER_TABLE(RegisterTableRequest.class),
        UPDATE_TABLE(UpdateTableRequest.class),
        RENAME_TABLE(RenameTableRequest.class),
        COMMIT_TRANSACTION(CommitTransactionRequest.class),
        REPORT_METRICS(ReportMetricsRequest.class),
        PLAN_TABLE_SCAN(PlanTableScanRequest.class),
        FETCH_SCAN_TASKS(FetchScanTasksRequest.class),
        CREATE_VIEW(CreateViewRequest.class),
        REGISTER_VIEW(RegisterViewRequest.class),
        REPLACE_VIEW(UpdateTableRequest.class);

        private final Class<? extends RESTRequest> type;

        Route(Class<? extends RESTRequest> type) {
            this.type = type;
        }

        static Route of(String line) {
            for (Route route : values()) {
                if (route.name().replace('_', '-').equalsIgnoreCase(line.trim())) {
                    return route;
                }
            }
            return values()[Math.floorMod(line.hashCode(), values().length)];
        }
    }

    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "create-namespace\\x0A",
        "create-table\\x0A",
        "update-table\\x0A",
        "commit-transaction\\x0A",
        "plan-table-scan\\x0A",
        "create-view\\x0A",
        "rename-table\\x0A",
        "report-metrics\\x0A",
        "{\"namespace\":[",
        "\"name\":",
        "\"schema\":",
        "{\"type\":\"struct\",\"fields\":[",
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}",
        "\"partition-spec\":",
        "\"write-order\":",
        "\"properties\":{",
        "\"requirements\":[",
        "\"updates\":[",
        "{\"action\":\"",
        "add-snapshot",
        "set-snapshot-ref",
        "upgrade-format-version",
        "add-schema",
        "\"type\":\"",
        "assert-ref-snapshot-id",
        "\"filter\":",
        "\"term\":",
        "\"value\":",
        "truncate[",
        "bucket[",
        "\"identifier\":",
        "\"table-changes\":[",
        "\"source\":",
        "\"destination\":",
        "\"report-type\":",
        "\"view-version\":",
        "decimal(",
        "fixed[",
        "\"snapshot-id\":",
        "\"plan-task\":"
    })
    void icebergRequestIsReadOrRefusedWithA4xx(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        Route route = Route.of(newline < 0 ? text : text.substring(0, newline));
        String body = newline < 0 ? "" : text.substring(newline + 1);
        try {
            read(route, body);
        } catch (RuntimeException e) {
            assertClientError(route + " " + body, e);
        }
    }

    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "{\"requirements\":[",
        "\"updates\":[",
        "{\"action\":\"",
        "{\"type\":\"",
        "assert-create",
        "assert-table-uuid",
        "assert-ref-snapshot-id",
        "assert-last-assigned-field-id",
        "assert-current-schema-id",
        "assert-last-assigned-partition-id",
        "assert-default-spec-id",
        "assert-default-sort-order-id",
        "upgrade-format-version",
        "add-schema",
        "set-current-schema",
        "add-spec",
        "set-default-spec",
        "add-sort-order",
        "set-default-sort-order",
        "add-snapshot",
        "remove-snapshots",
        "remove-snapshot-ref",
        "set-snapshot-ref",
        "set-properties",
        "remove-properties",
        "set-location",
        "set-statistics",
        "remove-statistics",
        "remove-partition-specs",
        "remove-schemas",
        "add-encryption-key",
        "\"snapshot-id\":",
        "\"ref\":\"main\"",
        "\"schema-id\":",
        "\"spec-id\":",
        "\"fields\":[",
        "\"source-id\":",
        "\"transform\":\"",
        "\"format-version\":",
        "\"manifest-list\":\"",
        "\"sequence-number\":",
        "\"timestamp-ms\":",
        "\"summary\":{\"operation\":\"append\"}"
    })
    void tableCommitAppliesOrIsRefusedWithA4xx(byte[] input) {
        String body = new String(input, StandardCharsets.UTF_8);
        try {
            UpdateTableRequest request = BODIES.read(body, UpdateTableRequest.class);
            IcebergResource.requireTableUpdates(request);
            // TableCommits.apply, in memory: check the requirements, apply the updates (TableUpdates), build.
            request.requirements().forEach(requirement -> requirement.validate(BASE));
            TableUpdates.apply(TableMetadata.buildFrom(BASE), request.updates());
        } catch (RuntimeException e) {
            assertClientError(body, e);
        }
    }

    /** What each route does with a request before it calls the lakehouse. */
    private static void read(Route route, String body) {
        RESTRequest request = BODIES.read(body, route.type);
        switch (route) {
            case CREATE_NAMESPACE ->
                List.of(((CreateNamespaceRequest) request).namespace().levels())
                        .forEach(level -> LakeNames.DEFAULT.check(LakeNames.NAMESPACE, level));
            case CREATE_TABLE -> {
                CreateTableRequest create = (CreateTableRequest) request;
                LakeNames.DEFAULT.check(LakeNames.TABLE, create.name());
                IcebergWire.table(create).metadata("file:/warehouse/db/" + create.name());
            }
            case REGISTER_TABLE -> LakeNames.DEFAULT.check(LakeNames.TABLE, ((RegisterTableRequest) request).name());
            case UPDATE_TABLE -> {
                UpdateTableRequest update = (UpdateTableRequest) request;
                IcebergResource.requireTableUpdates(update);
                IcebergWire.change(TABLE, update);
            }
            case RENAME_TABLE ->
                LakeNames.DEFAULT.check(
                        LakeNames.TABLE,
                        ((RenameTableRequest) request).destination().name());
            case COMMIT_TRANSACTION -> {
                CommitTransactionRequest commit = (CommitTransactionRequest) request;
                commit.tableChanges().forEach(IcebergResource::requireTableUpdates);
                commit.tableChanges().forEach(IcebergWire::change);
            }
            case REPORT_METRICS -> ((ReportMetricsRequest) request).reportType().name();
            // Binding the filter to the table is ScanPlanner's, with the table read (a transform Iceberg cannot
            // bind is its ValidationException): tested over HTTP in catalog-server.
            case PLAN_TABLE_SCAN -> IcebergWire.scan((PlanTableScanRequest) request);
            case CREATE_VIEW -> IcebergWire.view((CreateViewRequest) request);
            case REPLACE_VIEW -> IcebergWire.change(TABLE, (UpdateTableRequest) request);
            case UPDATE_NAMESPACE_PROPERTIES, FETCH_SCAN_TASKS, REGISTER_VIEW -> {}
        }
    }

    private static void assertClientError(String input, RuntimeException e) {
        int status = IcebergErrors.toIceberg(e).getStatus();
        if (status < 400 || status > 499) {
            throw new AssertionError("Answered " + status + ", not a 4xx, for: " + input, e);
        }
    }
}
