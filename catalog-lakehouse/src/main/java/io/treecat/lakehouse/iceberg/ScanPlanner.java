package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.parser.QueryLimits;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.ChildKinds;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Tables;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.storage.StoreFailures;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NoSuchPlanIdException;
import org.apache.iceberg.exceptions.NoSuchPlanTaskException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * Server-side scan planning (the REST spec's {@code planTableScan} and {@code fetchScanTasks})
 * answered from the file leaves {@link FileIndex} keeps in the tree.
 *
 * <p>A plan reads the tree at the vid where the leaves are exactly the snapshot's live files. The
 * path query prunes partition nodes with a predicate derived from Iceberg's inclusive projection of
 * the filter onto each partition spec (sound: it keeps every partition Iceberg could keep); then
 * every candidate file goes through exactly the checks Iceberg's {@code ManifestReader} makes
 * (the projected partition {@link Evaluator}, then {@link InclusiveMetricsEvaluator} on its
 * stats), for data and delete files alike, and delete files are attached by Iceberg's own
 * {@code DeleteFileIndex}. So the answer equals the client-side {@code planFiles}. The per-file
 * work is kept to what Iceberg's checks need: {@link LeafDecoder} reads each leaf's bytes once;
 * the partition test is made once per partition node (every file of a node has its values) and
 * the residual once per distinct values of the partition fields the filter references; and a
 * snapshot without delete files decodes only the stats of the filter's columns.
 *
 * <p>A snapshot with no indexed vid (never indexed, or reached through a branch) and incremental
 * scans are planned by Iceberg's own scan over the manifests, on the server: slower, never wrong.
 *
 * <p>Plans are answered synchronously ({@code completed}); none is kept. When more than {@code
 * partitionsPerTask} partitions match, the answer is a list of plan tasks, each an opaque token
 * for one contiguous range of partition ids at the plan's vid, which {@code /tasks} plans alone;
 * the client fetches them in parallel.
 */
public final class ScanPlanner {
    /** Partitions per plan task: plans that match more partitions are split into plan tasks. */
    public static final int DEFAULT_PARTITIONS_PER_TASK = 100;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Metadata files never change once written: the last few parsed, by location. */
    private static final int METADATA_CACHE_SIZE = 32;

    private final Lakehouse lake;
    private final int partitionsPerTask;
    private final Map<String, TableMetadata> metadataCache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TableMetadata> eldest) {
            return size() > METADATA_CACHE_SIZE;
        }
    };

    public ScanPlanner(Lakehouse lake, int partitionsPerTask) {
        this.lake = requireNonNull(lake, "lake is null");
        if (partitionsPerTask < 1) {
            throw new IllegalArgumentException("partitionsPerTask must be positive: " + partitionsPerTask);
        }
        this.partitionsPerTask = partitionsPerTask;
    }

    /** What one plan (or one plan task) reads: the table as of {@code vid}, and the scan's options. */
    private record Scan(
            ObjectPath table,
            long vid,
            TableMetadata metadata,
            long snapshotId,
            Expression filter,
            boolean caseSensitive,
            List<String> statsFields) {}

    // ---- planTableScan

    /** Plans a scan of the table as of {@code point} (a past vid or named snapshot plans the table as it was there). */
    public ScanPlan plan(
            Principal who, String catalog, ReadPoint point, TableIdentifier identifier, ScanRequest request) {
        ObjectPath table = IcebergNames.tablePath(catalog, identifier);
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        FileIO io = warehouse.io();
        // Manifests read from a failing object store: 503 (StoreFailures), as for loads.
        return StoreFailures.translate(
                warehouse,
                () -> lake.runner()
                        .read(
                                Access.of(who, Action.PLAN_SCAN, table),
                                point,
                                txn -> plan(txn, io, table, identifier, request)));
    }

    private ScanPlan plan(
            LakeTransaction txn, FileIO io, ObjectPath table, TableIdentifier identifier, ScanRequest request) {
        CatalogService service = txn.service();
        long vid = txn.readVid();
        TableMetadata metadata = metadataAt(txn, io, table, identifier);
        Expression filter = request.filter();
        boolean caseSensitive = request.caseSensitive();
        if (request.incremental()) {
            validate(metadata.schema(), filter, caseSensitive, request.select(), request.statsFields());
            return incremental(io, identifier, metadata, request, filter);
        }
        Long snapshotId = request.snapshotId();
        if (snapshotId == null) {
            if (metadata.currentSnapshot() == null) {
                // Nothing to plan, but a malformed request is refused all the same.
                validate(metadata.schema(), filter, caseSensitive, request.select(), request.statsFields());
                return completed(List.of(), metadata);
            }
            snapshotId = metadata.currentSnapshot().snapshotId();
        }
        Snapshot snapshot = metadata.snapshot(snapshotId);
        if (snapshot == null) {
            throw new IllegalArgumentException("Cannot find snapshot with ID " + snapshotId);
        }
        Schema schema = request.useSnapshotSchema() && snapshot.schemaId() != null
                ? metadata.schemasById().get(snapshot.schemaId())
                : metadata.schema();
        validate(schema, filter, caseSensitive, request.select(), request.statsFields());
        Scan scan = new Scan(table, vid, metadata, snapshotId, filter, caseSensitive, request.statsFields());
        Optional<FileIndex.Point> indexed = indexedPoint(txn, table, metadata, snapshotId);
        if (indexed.isEmpty()) {
            return completed(throughManifests(io, identifier, scan), metadata);
        }
        List<String> partitions =
                matchingPartitions(service, scan, indexed.get().vid());
        if (partitions.size() <= partitionsPerTask) {
            return completed(fromTree(service, scan, indexed.get(), null, null), metadata);
        }
        List<String> tokens = new ArrayList<>();
        for (int start = 0; start < partitions.size(); start += partitionsPerTask) {
            int end = Math.min(start + partitionsPerTask, partitions.size()) - 1;
            tokens.add(planTask(scan, partitions.get(start), partitions.get(end)));
        }
        return new ScanPlan(ScanPlan.Status.COMPLETED, tokens, List.of(), List.of(), metadata.specsById());
    }

    private static ScanPlan completed(List<FileScanTask> tasks, TableMetadata metadata) {
        return new ScanPlan(ScanPlan.Status.COMPLETED, List.of(), tasks, deleteFiles(tasks), metadata.specsById());
    }

    /** The distinct delete files the tasks reference, in first-reference order. */
    private static List<DeleteFile> deleteFiles(List<FileScanTask> tasks) {
        Map<String, DeleteFile> files = new LinkedHashMap<>();
        for (FileScanTask task : tasks) {
            for (DeleteFile delete : task.deletes()) {
                files.putIfAbsent(delete.location(), delete);
            }
        }
        return new ArrayList<>(files.values());
    }

    private static void validate(
            Schema schema, Expression filter, boolean caseSensitive, List<String> select, List<String> statsFields) {
        // Binding throws ValidationException (400) for a filter on a column the schema does not have. A
        // transform Iceberg cannot parse (truncate[-1], bucket[x], a name it does not know) parses as an
        // UnknownTransform, which throws UnsupportedOperationException only when bound: the client's
        // mistake as well.
        try {
            Binder.bind(schema.asStruct(), filter, caseSensitive);
        } catch (UnsupportedOperationException e) {
            throw new ValidationException(e, "Invalid filter: %s", e.getMessage());
        }
        if (select != null && !select.isEmpty()) {
            for (String column : select) {
                if (field(schema, column, caseSensitive) == null) {
                    throw new IllegalArgumentException("Cannot find selected column: " + column);
                }
            }
        }
        if (statsFields != null) {
            for (String column : statsFields) {
                if (field(schema, column, caseSensitive) == null) {
                    throw new IllegalArgumentException("Cannot find stats field: " + column);
                }
            }
        }
    }

    private static Types.NestedField field(Schema schema, String name, boolean caseSensitive) {
        return caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
    }

    private TableMetadata metadataAt(LakeTransaction txn, FileIO io, ObjectPath table, TableIdentifier identifier) {
        String location = IcebergTables.pointer(
                Tables.find(txn, table).orElseThrow(() -> IcebergNames.noSuchTable(identifier)), identifier);
        synchronized (metadataCache) {
            TableMetadata cached = metadataCache.get(location);
            if (cached != null) {
                return cached;
            }
        }
        TableMetadata metadata = TableMetadataParser.read(io, location);
        synchronized (metadataCache) {
            metadataCache.put(location, metadata);
        }
        return metadata;
    }

    /**
     * Where the table's leaves hold the snapshot's files (a vid, and for a snapshot committed before others in one
     * write set, the highest data sequence number of its files), if the index has it and the tree still holds that
     * version.
     */
    private static Optional<FileIndex.Point> indexedPoint(
            LakeTransaction txn, ObjectPath table, TableMetadata metadata, long snapshotId) {
        Optional<CatalogObject> node = txn.read(FileIndex.indexPath(table));
        if (node.isEmpty()) {
            return Optional.empty();
        }
        Optional<FileIndex.Point> indexed = FileIndex.find(txn.service(), table, node.get(), metadata, snapshotId);
        if (indexed.isPresent()) {
            try {
                // A vid older than the tree's retention cannot be read: plan through the manifests instead.
                txn.service()
                        .get(
                                FileIndex.indexPath(table),
                                ReadPoint.vid(indexed.get().vid()));
            } catch (CatalogException e) {
                return Optional.empty();
            }
        }
        return indexed;
    }

    // ---- planning through Iceberg's own scan (no index, incremental)

    private static List<FileScanTask> throughManifests(FileIO io, TableIdentifier identifier, Scan scan) {
        Table table = new BaseTable(new StaticTableOperations(scan.metadata(), io), identifier.toString());
        TableScan tableScan = table.newScan()
                .useSnapshot(scan.snapshotId())
                .filter(scan.filter())
                .caseSensitive(scan.caseSensitive());
        return collect(tableScan.planFiles(), scan);
    }

    private static ScanPlan incremental(
            FileIO io, TableIdentifier identifier, TableMetadata metadata, ScanRequest request, Expression filter) {
        if (request.startSnapshotId() == null || request.endSnapshotId() == null) {
            throw new BadRequestException("An incremental scan needs both start-snapshot-id and end-snapshot-id");
        }
        Table table = new BaseTable(new StaticTableOperations(metadata, io), identifier.toString());
        IncrementalAppendScan scan = table.newIncrementalAppendScan()
                .fromSnapshotExclusive(request.startSnapshotId())
                .toSnapshot(request.endSnapshotId())
                .filter(filter)
                .caseSensitive(request.caseSensitive());
        Scan options = new Scan(
                null, 0, metadata, request.endSnapshotId(), filter, request.caseSensitive(), request.statsFields());
        return completed(collect(scan.planFiles(), options), metadata);
    }

    private static List<FileScanTask> collect(CloseableIterable<FileScanTask> planned, Scan scan) {
        List<FileScanTask> tasks = new ArrayList<>();
        TaskFactory factory = new TaskFactory(scan);
        try (CloseableIterable<FileScanTask> closing = planned) {
            for (FileScanTask task : closing) {
                tasks.add(factory.task(
                        task.file(),
                        task.deletes().toArray(DeleteFile[]::new),
                        task.spec(),
                        factory.residuals(task.spec())));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tasks;
    }

    /**
     * Builds scan tasks as Iceberg's planner does, with the schema and spec JSON and the residual
     * evaluator made once per spec, and the data file cut down to the column stats the client asked
     * for ({@code stats-fields}), none otherwise.
     */
    private static final class TaskFactory {
        private final Scan scan;
        private final Set<Integer> statsFieldIds;
        private final Map<Integer, String> schemas = new HashMap<>();
        private final Map<Integer, String> specs = new HashMap<>();
        private final Map<Integer, ResidualEvaluator> residuals = new HashMap<>();

        TaskFactory(Scan scan) {
            this.scan = scan;
            this.statsFieldIds = statsFieldIds(scan);
        }

        ResidualEvaluator residuals(PartitionSpec spec) {
            return residuals.computeIfAbsent(
                    spec.specId(), id -> ResidualEvaluator.of(spec, scan.filter(), scan.caseSensitive()));
        }

        FileScanTask task(DataFile file, DeleteFile[] deletes, PartitionSpec spec, ResidualEvaluator residual) {
            DataFile withStats = statsFieldIds.isEmpty() ? file.copyWithoutStats() : file.copyWithStats(statsFieldIds);
            return new BaseFileScanTask(
                    withStats,
                    deletes,
                    schemas.computeIfAbsent(spec.specId(), id -> SchemaParser.toJson(spec.schema())),
                    specs.computeIfAbsent(spec.specId(), id -> PartitionSpecParser.toJson(spec)),
                    residual);
        }
    }

    /** The ids of the {@code stats-fields} columns (of the table's schema). */
    private static Set<Integer> statsFieldIds(Scan scan) {
        Set<Integer> ids = new TreeSet<>();
        if (scan.statsFields() != null) {
            Schema schema = scan.metadata().schema();
            for (String name : scan.statsFields()) {
                Types.NestedField field = field(schema, name, scan.caseSensitive());
                if (field != null) {
                    ids.add(field.fieldId());
                }
            }
        }
        return ids;
    }

    /**
     * The columns whose stats planning reads from the leaves: those the filter references (all the
     * metrics evaluator looks at) and the {@code stats-fields}; null (all) when the snapshot may hold
     * delete files, as {@code DeleteFileIndex} compares equality deletes with the data files' bounds.
     */
    private static Set<Integer> statsToRead(Scan scan) {
        Snapshot snapshot = scan.metadata().snapshot(scan.snapshotId());
        Map<String, String> summary = snapshot == null ? null : snapshot.summary();
        if (summary == null || !"0".equals(summary.get(SnapshotSummary.TOTAL_DELETE_FILES_PROP))) {
            return null;
        }
        Set<Integer> ids = new HashSet<>(statsFieldIds(scan));
        for (PartitionSpec spec : scan.metadata().specs()) {
            ids.addAll(Binder.boundReferences(spec.schema().asStruct(), List.of(scan.filter()), scan.caseSensitive()));
        }
        return ids;
    }

    // ---- planning from the tree

    /** The ids of the partition nodes the filter may match, in id order. */
    private List<String> matchingPartitions(CatalogService service, Scan scan, long indexedVid) {
        String query = PathSteps.of(scan.table()) + "/[" + partitionStep(scan, null, service.queryLimits()) + "]";
        List<String> ids = new ArrayList<>();
        QueryRequest request = QueryRequest.of(query)
                .at(ReadPoint.vid(indexedVid))
                .withResults(ChildKinds.INNER)
                .withLimit(QueryRequest.MAX_LIMIT);
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                ids.add(cursor.current().id());
            }
        }
        return ids;
    }

    /**
     * Plans the files under the partitions in [{@code from}, {@code to}] (all when null): data files
     * only from that range, delete files also from the table's unpartitioned specs (global equality
     * deletes apply to every partition). Only the leaves the snapshot's {@code point} holds: those
     * with a higher data sequence number were added by later snapshots of its write set.
     */
    private List<FileScanTask> fromTree(
            CatalogService service, Scan scan, FileIndex.Point point, String from, String to) {
        TableMetadata metadata = scan.metadata();
        LeafDecoder decoder = new LeafDecoder(metadata.specsById(), metadata.sortOrdersById(), statsToRead(scan));
        Map<Integer, Evaluator> partitionEvaluators = new HashMap<>();
        Map<Integer, InclusiveMetricsEvaluator> metricsEvaluators = new HashMap<>();
        Residuals residuals = new Residuals(scan);
        List<DataFile> dataFiles = new ArrayList<>();
        List<ResidualEvaluator> dataResiduals = new ArrayList<>();
        List<DeleteFile> deleteFiles = new ArrayList<>();
        // The leaves come partition by partition, and every file of a partition node has its spec and
        // values: the partition test and the residual are made once per node, not once per file.
        String partitionId = null;
        boolean partitionInRange = false;
        boolean partitionTested = false;
        boolean partitionMatches = false;
        ResidualEvaluator residual = null;
        String query = PathSteps.of(scan.table()) + "/["
                + partitionStep(scan, from == null ? null : new String[] {from, to}, service.queryLimits()) + "]/*";
        QueryRequest request = QueryRequest.of(query)
                .at(ReadPoint.vid(point.vid()))
                .withResults(ChildKinds.LEAVES)
                .withLimit(QueryRequest.MAX_LIMIT);
        try (QueryCursor cursor = service.openQuery(request)) {
            while (cursor.advance()) {
                CatalogObject row = cursor.current();
                String parent = row.path().parent().id();
                if (!parent.equals(partitionId)) {
                    partitionId = parent;
                    partitionInRange = from == null || inRange(parent, from, to);
                    partitionTested = false;
                    residual = null;
                }
                ContentFile<?> file = decoder.decode(row.value());
                if (!point.holds(file.dataSequenceNumber())) {
                    continue;
                }
                boolean data = file.content() == FileContent.DATA;
                if (data && !partitionInRange) {
                    continue;
                }
                PartitionSpec spec = metadata.spec(file.specId());
                if (!partitionTested) {
                    partitionTested = true;
                    Evaluator partitionEvaluator = partitionEvaluators.computeIfAbsent(
                            spec.specId(),
                            id -> new Evaluator(
                                    spec.partitionType(),
                                    Projections.inclusive(spec, scan.caseSensitive())
                                            .project(scan.filter()),
                                    scan.caseSensitive()));
                    partitionMatches = partitionEvaluator.eval(file.partition());
                }
                if (!partitionMatches) {
                    continue;
                }
                InclusiveMetricsEvaluator metricsEvaluator = metricsEvaluators.computeIfAbsent(
                        spec.specId(),
                        id -> new InclusiveMetricsEvaluator(spec.schema(), scan.filter(), scan.caseSensitive()));
                if (!metricsEvaluator.eval(file)) {
                    continue;
                }
                if (data) {
                    if (residual == null) {
                        residual = residuals.of(spec, file.partition());
                    }
                    dataFiles.add((DataFile) file);
                    dataResiduals.add(residual);
                } else {
                    deleteFiles.add((DeleteFile) file);
                }
            }
        }
        TreeCatIcebergAccess.DeleteMatcher deletes =
                TreeCatIcebergAccess.deleteMatcher(deleteFiles, metadata.specsById(), scan.caseSensitive());
        TaskFactory factory = new TaskFactory(scan);
        List<FileScanTask> tasks = new ArrayList<>(dataFiles.size());
        for (int i = 0; i < dataFiles.size(); i++) {
            DataFile file = dataFiles.get(i);
            DeleteFile[] applied = deletes.isEmpty() ? new DeleteFile[0] : deletes.forDataFile(file);
            tasks.add(factory.task(file, applied, metadata.spec(file.specId()), dataResiduals.get(i)));
        }
        return tasks;
    }

    /**
     * The residual of a partition, as an evaluator that gives it for any file of that partition.
     * Iceberg's {@link ResidualEvaluator} tests each predicate of the filter only on the partition
     * fields derived from that predicate's column, so a residual depends only on the values of the
     * fields whose source column the filter references: partitions that agree on those share it (a
     * day filter over day × bucket partitions computes it once per day, not once per bucket).
     */
    private static final class Residuals {
        private final Scan scan;
        private final Map<Integer, ResidualEvaluator> evaluators = new HashMap<>();
        private final Map<Integer, int[]> referencedFields = new HashMap<>();
        private final Map<List<Object>, ResidualEvaluator> byValues = new HashMap<>();

        Residuals(Scan scan) {
            this.scan = scan;
        }

        ResidualEvaluator of(PartitionSpec spec, StructLike partition) {
            int[] positions = referencedFields.computeIfAbsent(spec.specId(), id -> referencedFields(spec));
            List<Object> key = new ArrayList<>(positions.length + 1);
            key.add(spec.specId());
            for (int position : positions) {
                key.add(partition.get(position, Object.class));
            }
            ResidualEvaluator residual = byValues.get(key);
            if (residual == null) {
                ResidualEvaluator evaluator = evaluators.computeIfAbsent(
                        spec.specId(), id -> ResidualEvaluator.of(spec, scan.filter(), scan.caseSensitive()));
                residual = ResidualEvaluator.unpartitioned(evaluator.residualFor(partition));
                byValues.put(key, residual);
            }
            return residual;
        }

        private int[] referencedFields(PartitionSpec spec) {
            Set<Integer> columns =
                    Binder.boundReferences(spec.schema().asStruct(), List.of(scan.filter()), scan.caseSensitive());
            List<PartitionField> fields = spec.fields();
            return IntStream.range(0, fields.size())
                    .filter(i -> columns.contains(fields.get(i).sourceId()))
                    .toArray();
        }
    }

    private static boolean inRange(String id, String from, String to) {
        return IdOrder.compare(id, from) >= 0 && IdOrder.compare(id, to) <= 0;
    }

    /**
     * The predicate on partition nodes: for each spec, {@code spec_id = N and} the inclusive
     * projection of the filter, translated where the tree's comparison semantics agree with Iceberg's
     * (and widened to "anything" where not); optionally limited to a range of ids, plus the
     * unpartitioned specs' nodes.
     */
    /**
     * The step's predicate, kept inside {@code limits} whatever the filter: the translated filter nests
     * at most what the query's depth leaves it (the step wraps it in three levels), and the per-spec
     * part is left out, narrowing nothing, when it would take more than half the query's text. Both only
     * widen the candidates, which the partition evaluator then checks exactly.
     */
    private static String partitionStep(Scan scan, String[] range, QueryLimits limits) {
        StringBuilder step = new StringBuilder(LakeKeys.OBJ_TYPE)
                .append(" = ")
                .append(PathSteps.literal(ObjectType.PARTITION.storedName()));
        if (range != null) {
            step.append(" and ((obj_id >= ")
                    .append(PathSteps.literal(range[0]))
                    .append(" and obj_id <= ")
                    .append(PathSteps.literal(range[1]))
                    .append(")");
            for (PartitionSpec spec : scan.metadata().specs()) {
                if (spec.isUnpartitioned()) {
                    step.append(" or obj_id = '").append(spec.specId()).append(":'");
                }
            }
            step.append(")");
        }
        List<String> perSpec = new ArrayList<>();
        boolean unconstrained = false;
        for (PartitionSpec spec : scan.metadata().specs()) {
            Expression projected =
                    Projections.inclusive(spec, scan.caseSensitive()).project(scan.filter());
            String predicate = PartitionPredicates.translate(projected, spec, limits.maxDepth() - 3);
            String ids = PartitionPredicates.idConstraint(projected, spec);
            if (ids != null && !PartitionPredicates.FALSE.equals(predicate)) {
                predicate = predicate == null ? ids : ids + " and " + predicate;
            }
            if (predicate == null) {
                perSpec.add(LakeKeys.SPEC_ID + " = " + spec.specId());
            } else if (!predicate.equals(PartitionPredicates.FALSE)) {
                perSpec.add("(" + LakeKeys.SPEC_ID + " = " + spec.specId() + " and " + predicate + ")");
            }
        }
        if (perSpec.isEmpty()) {
            step.append(" and ").append(PartitionPredicates.FALSE);
        } else if (perSpec.size() < scan.metadata().specs().size()
                || perSpec.stream().anyMatch(p -> p.startsWith("("))) {
            String specs = " and (" + String.join(" or ", perSpec) + ")";
            if (specs.getBytes(StandardCharsets.UTF_8).length <= limits.maxTextBytes() / 2) {
                step.append(specs);
            }
        }
        return step.toString();
    }

    // ---- plan tasks

    private static String planTask(Scan scan, String from, String to) {
        ObjectNode token = JSON.createObjectNode();
        token.put("vid", scan.vid());
        token.put("snapshot-id", scan.snapshotId());
        token.set("filter", parse(ExpressionParser.toJson(scan.filter())));
        token.put("case-sensitive", scan.caseSensitive());
        if (scan.statsFields() != null) {
            ArrayNode fields = token.putArray("stats-fields");
            scan.statsFields().forEach(fields::add);
        }
        token.put("from", from);
        token.put("to", to);
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(token.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Plans one plan task: the same read vid, snapshot and filter as its plan, one range of partitions. */
    public ScanTasks tasks(Principal who, String catalog, TableIdentifier identifier, String planTask) {
        JsonNode token;
        try {
            token = JSON.readTree(Base64.getUrlDecoder().decode(planTask));
        } catch (IOException | IllegalArgumentException e) {
            throw new NoSuchPlanTaskException("Unknown plan task: %s", planTask);
        }
        if (token == null
                || !token.hasNonNull("vid")
                || !token.hasNonNull("snapshot-id")
                || !token.hasNonNull("from")
                || !token.hasNonNull("to")) {
            throw new NoSuchPlanTaskException("Unknown plan task: %s", planTask);
        }
        ObjectPath table = IcebergNames.tablePath(catalog, identifier);
        Warehouse warehouse = lake.warehouses().forCatalog(catalog);
        FileIO io = warehouse.io();
        long vid = token.get("vid").asLong();
        JsonNode plan = token;
        return StoreFailures.translate(
                warehouse,
                () -> lake.runner()
                        .read(
                                Access.of(who, Action.PLAN_SCAN, table),
                                ReadPoint.vid(vid),
                                txn -> tasks(txn, io, table, identifier, plan, planTask)));
    }

    private ScanTasks tasks(
            LakeTransaction txn,
            FileIO io,
            ObjectPath table,
            TableIdentifier identifier,
            JsonNode token,
            String planTask) {
        CatalogService service = txn.service();
        long vid = txn.readVid();
        TableMetadata metadata = metadataAt(txn, io, table, identifier);
        long snapshotId = token.get("snapshot-id").asLong();
        List<String> statsFields = null;
        if (token.has("stats-fields")) {
            statsFields = new ArrayList<>();
            for (JsonNode field : token.get("stats-fields")) {
                statsFields.add(field.asText());
            }
        }
        Expression filter =
                token.has("filter") ? ExpressionParser.fromJson(token.get("filter")) : Expressions.alwaysTrue();
        Scan scan = new Scan(
                table,
                vid,
                metadata,
                snapshotId,
                filter,
                token.path("case-sensitive").asBoolean(true),
                statsFields);
        Optional<FileIndex.Point> indexed = indexedPoint(txn, table, metadata, snapshotId);
        if (indexed.isEmpty()) {
            throw new NoSuchPlanTaskException("Plan task is no longer readable: %s", planTask);
        }
        List<FileScanTask> tasks = fromTree(
                service,
                scan,
                indexed.get(),
                token.get("from").asText(),
                token.get("to").asText());
        return new ScanTasks(tasks, deleteFiles(tasks), metadata.specsById());
    }

    /** Every plan is answered when it is submitted and none is kept, so there is never a plan to fetch. */
    public void fetch(String planId) {
        throw new NoSuchPlanIdException("No such plan: %s (TreeCat answers every plan when it is submitted)", planId);
    }
}
