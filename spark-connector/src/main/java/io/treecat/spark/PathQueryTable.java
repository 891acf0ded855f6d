package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of path queries at one vid, as a Spark table: {@code path}, {@code id} (the object's own id),
 * {@code type} ({@code inner} or {@code leaf}), {@code vid} (the vid of the object's version) and {@code value}
 * (a struct of the schema inferred from a sample, or the JSON text). Spark's filters on {@code id} and
 * {@code value.…} are added to the query's last step ({@link PathQueries}); the columns of {@code value} Spark
 * needs become the query's {@code fields}. The query as sent is the scan's description, so {@code EXPLAIN}
 * shows it.
 */
final class PathQueryTable implements SupportsRead {
    static final String PATH = "path";
    static final String ID = "id";
    static final String TYPE = "type";
    static final String VID = "vid";
    static final String VALUE = "value";

    /** Rows per page the server streams. */
    private static final int PAGE = 10_000;

    private final NativeQueryClient client;
    private final String name;
    /** The queries whose rows this table has, in order: each one is read by one task. */
    private final List<String> queries;

    private final long vid;
    private final StructType schema;
    private final boolean valueAsJson;
    private final Map<String, Set<PathQueries.Kind>> kinds;

    PathQueryTable(
            NativeQueryClient client,
            String name,
            List<String> queries,
            long vid,
            StructType valueType,
            boolean valueAsJson,
            Map<String, Set<PathQueries.Kind>> kinds) {
        this.client = requireNonNull(client, "client is null");
        this.name = requireNonNull(name, "name is null");
        this.queries = List.copyOf(queries);
        this.vid = vid;
        this.valueAsJson = valueAsJson;
        this.kinds = Map.copyOf(kinds);
        this.schema = new StructType()
                .add(PATH, DataTypes.StringType, false)
                .add(ID, DataTypes.StringType, false)
                .add(TYPE, DataTypes.StringType, false)
                .add(VID, DataTypes.LongType, false)
                .add(VALUE, valueAsJson ? DataTypes.StringType : valueType, true);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * The table of {@code queries}' rows at one vid ({@code vid}, else the newest when it is made), the value's
     * schema inferred from the first page of each query ({@value #SAMPLE} rows in all).
     *
     * @throws NativeQueryClient.Refused when the server refuses a query or the vid
     */
    static PathQueryTable sampled(
            SparkSession spark,
            NativeQueryClient client,
            String name,
            List<String> queries,
            OptionalLong vid,
            boolean valueAsJson) {
        if (queries.isEmpty()) {
            throw new IllegalArgumentException("A path-query table has at least one query");
        }
        List<String> values = new ArrayList<>();
        Map<String, Set<PathQueries.Kind>> kinds = new HashMap<>();
        OptionalLong at = vid;
        int perQuery = Math.max(1, SAMPLE / Math.max(1, queries.size()));
        for (String query : queries) {
            NativeQueryClient.Page sample = client.page(query, at, null, perQuery, null);
            at = OptionalLong.of(sample.vid());
            for (JsonNode row : sample.rows()) {
                JsonNode value = row.path(VALUE);
                values.add(value.toString());
                if (value.isObject()) {
                    JsonRows.kinds(value, "", kinds);
                }
            }
        }
        StructType valueType = values.isEmpty()
                ? new StructType()
                : spark.read()
                        .json(spark.createDataset(values, Encoders.STRING()))
                        .schema();
        return new PathQueryTable(client, name, queries, at.getAsLong(), valueType, valueAsJson, kinds);
    }

    /** Rows sampled for the value's schema. */
    static final int SAMPLE = 1_000;

    @Override
    @SuppressWarnings("deprecation") // Spark 4.0's Table still asks for schema() (columns() defaults to it).
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new Builder();
    }

    private final class Builder implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
        private final List<Predicate> pushed = new ArrayList<>();
        private final List<String> predicates = new ArrayList<>();
        private StructType required = schema;

        @Override
        public Predicate[] pushPredicates(Predicate[] candidates) {
            for (Predicate candidate : candidates) {
                Optional<String> translated = PathQueries.translate(candidate, kinds, false);
                if (translated.isPresent()) {
                    pushed.add(candidate);
                    predicates.add(translated.get());
                }
            }
            // Spark evaluates every filter again: a pushed predicate may keep more rows than its own.
            return candidates;
        }

        @Override
        public Predicate[] pushedPredicates() {
            return pushed.toArray(new Predicate[0]);
        }

        @Override
        public void pruneColumns(StructType requiredSchema) {
            this.required = requiredSchema;
        }

        @Override
        public Scan build() {
            String predicate = predicates.isEmpty() ? null : String.join(" and ", predicates);
            List<String> sent = queries.stream()
                    .map(query -> PathQueries.withPredicate(query, predicate))
                    .toList();
            return new QueryScan(sent, required, fields(required));
        }
    }

    /** The value's top-level fields Spark reads, as the query's {@code fields}; null for the whole value. */
    private String fields(StructType required) {
        if (valueAsJson || !Arrays.asList(required.fieldNames()).contains(VALUE)) {
            return null;
        }
        StructType value = (StructType) required.apply(VALUE).dataType();
        StructType full = (StructType) schema.apply(VALUE).dataType();
        List<String> names = Arrays.asList(value.fieldNames());
        if (names.isEmpty() || names.size() == full.fields().length || !PathQueries.allBare(names)) {
            return null;
        }
        return String.join(",", names);
    }

    private final class QueryScan implements Scan, Batch {
        private final List<String> sent;
        private final StructType read;
        private final String fields;

        QueryScan(List<String> sent, StructType read, String fields) {
            this.sent = sent;
            this.read = read;
            this.fields = fields;
        }

        @Override
        public StructType readSchema() {
            return read;
        }

        @Override
        public String description() {
            return (sent.size() == 1 ? "TreeCat path query " + sent.get(0) : "TreeCat path queries " + sent)
                    + " at vid " + vid + (fields == null ? "" : " fields " + fields);
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            // One task per query: the queries of a system table stream from the server in parallel.
            return sent.stream()
                    .map(query -> new QueryPartition(client, query, vid, fields, read, valueAsJson))
                    .toArray(InputPartition[]::new);
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return partition -> new QueryReader((QueryPartition) partition);
        }
    }

    /** One whole query, read page by page by one task. */
    private record QueryPartition(
            NativeQueryClient client, String query, long vid, String fields, StructType read, boolean valueAsJson)
            implements InputPartition, Serializable {}

    private static final class QueryReader implements PartitionReader<InternalRow> {
        private final QueryPartition partition;
        private Iterator<JsonNode> rows = List.<JsonNode>of().iterator();
        private String nextPage;
        private boolean started;
        private InternalRow current;

        QueryReader(QueryPartition partition) {
            this.partition = partition;
        }

        @Override
        public boolean next() {
            while (!rows.hasNext()) {
                if (started && nextPage == null) {
                    return false;
                }
                NativeQueryClient.Page page = partition
                        .client()
                        .page(partition.query(), OptionalLong.of(partition.vid()), partition.fields(), PAGE, nextPage);
                started = true;
                nextPage = page.nextPageToken();
                rows = page.rows().elements();
            }
            current = row(rows.next());
            return true;
        }

        private InternalRow row(JsonNode row) {
            StructField[] fields = partition.read().fields();
            Object[] values = new Object[fields.length];
            String path = row.path(PATH).asText();
            for (int i = 0; i < fields.length; i++) {
                values[i] = switch (fields[i].name()) {
                    case PATH -> UTF8String.fromString(path);
                    case ID -> UTF8String.fromString(lastId(path));
                    case TYPE -> UTF8String.fromString(row.path("kind").asText());
                    case VID -> row.path("version").asLong();
                    case VALUE ->
                        partition.valueAsJson()
                                ? UTF8String.fromString(row.path(VALUE).toString())
                                : JsonRows.convert(row.path(VALUE), fields[i].dataType());
                    default -> null;
                };
            }
            return new GenericInternalRow(values);
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public void close() {}
    }

    /** The last id of a path as the server writes it ({@code /a/b}: {@code b}; {@code \/} and {@code \\} escape). */
    static String lastId(String path) {
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '\\' && i + 1 < path.length()) {
                id.append(path.charAt(++i));
            } else if (c == '/') {
                id.setLength(0);
            } else {
                id.append(c);
            }
        }
        return id.toString();
    }
}
