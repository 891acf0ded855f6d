package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A TreeCat catalog's metadata across all its tables, as tables of the namespace {@code system}
 * ({@code <catalog>.system.<name>}), read at the catalog's version (its pinned vid, else the newest when the
 * statement is analysed):
 *
 * <ul>
 *   <li>{@code tables}: every table object, at every namespace depth, as {@code treecat_query} rows (path, id,
 *       type, vid, value: the table's object, e.g. {@code value.metadata_location});
 *   <li>{@code files}: every live data and delete file of every Iceberg table, from the file index (the leaves
 *       under each table's partitions; {@code value.file_path}, {@code value.record_count}, the bounds, …), read
 *       by one task per namespace depth; filters on {@code id} and {@code value} are pushed as in
 *       {@code treecat_query};
 *   <li>{@code commits}: the catalog's commit log (vid, commit time, principal, interface, operation, counts).
 * </ul>
 *
 * A real namespace called {@code system} is hidden behind these three names (Iceberg's procedures use the
 * same namespace name).
 */
final class SystemTables {
    static final String NAMESPACE = "system";
    static final Set<String> NAMES = Set.of("tables", "files", "commits");
    /** Namespaces nest at most this deep for the system tables' queries. */
    private static final int MAX_DEPTH = 16;

    private SystemTables() {}

    static boolean isSystemTable(String[] namespace, String name) {
        return namespace.length == 1
                && namespace[0].equalsIgnoreCase(NAMESPACE)
                && NAMES.contains(name.toLowerCase(Locale.ROOT));
    }

    static Table load(
            SparkSession spark,
            NativeQueryClient client,
            String catalog,
            OptionalLong vid,
            String sparkName,
            String name) {
        String root = "/[obj_id=" + PathQueries.string(catalog) + "]";
        String table = name.toLowerCase(Locale.ROOT);
        if (table.equals("commits")) {
            long at = vid.isPresent()
                    ? vid.getAsLong()
                    : client.page(root, OptionalLong.empty(), null, 1, null).vid();
            return new Commits(client, "/" + escaped(catalog), at, sparkName + ".system.commits");
        }
        // The namespace depths that exist, probed at one vid.
        NativeQueryClient.Page first = client.page(root, vid, null, 1, null);
        OptionalLong at = OptionalLong.of(first.vid());
        List<String> prefixes = new ArrayList<>();
        String level = root;
        for (int depth = 1; depth <= MAX_DEPTH; depth++) {
            level += "/[obj_type='namespace']";
            if (!client.page(level, at, null, 1, null).rows().elements().hasNext()) {
                break;
            }
            prefixes.add(level);
        }
        List<String> queries = new ArrayList<>();
        for (String prefix : prefixes) {
            queries.add(
                    table.equals("tables")
                            ? prefix + "/[obj_type='table']"
                            : prefix + "/[obj_type='table']/[obj_type='partition']/[obj_type='file']");
        }
        if (queries.isEmpty()) {
            // No namespace yet: a query that matches nothing, so the table is empty and still has its columns.
            queries.add(root + "/[obj_type='namespace']/[obj_type='table']");
        }
        return PathQueryTable.sampled(spark, client, sparkName + ".system." + table, queries, at, false);
    }

    /** A catalog name as one path id ({@code /} and {@code \} escaped, as the server writes paths). */
    private static String escaped(String id) {
        return id.replace("\\", "\\\\").replace("/", "\\/");
    }

    /** The commit log of one path, oldest first, up to one vid. */
    static final class Commits implements SupportsRead {
        private static final StructType SCHEMA = new StructType()
                .add("vid", DataTypes.LongType, false)
                .add("commit_time", DataTypes.TimestampType, false)
                .add("principal", DataTypes.StringType, true)
                .add("interface", DataTypes.StringType, true)
                .add("operation", DataTypes.StringType, true)
                .add("added", DataTypes.LongType, false)
                .add("updated", DataTypes.LongType, false)
                .add("removed", DataTypes.LongType, false);

        private final NativeQueryClient client;
        private final String path;
        private final long vid;
        private final String name;

        Commits(NativeQueryClient client, String path, long vid, String name) {
            this.client = requireNonNull(client, "client is null");
            this.path = requireNonNull(path, "path is null");
            this.vid = vid;
            this.name = requireNonNull(name, "name is null");
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        @SuppressWarnings("deprecation") // Spark 4.0's Table still asks for schema() (columns() defaults to it).
        public StructType schema() {
            return SCHEMA;
        }

        @Override
        public Set<TableCapability> capabilities() {
            return Set.of(TableCapability.BATCH_READ);
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return () -> new CommitScan(new Log(client, path, vid));
        }
    }

    private record Log(NativeQueryClient client, String path, long vid) implements InputPartition, Serializable {}

    private record CommitScan(Log log) implements Scan, Batch {
        @Override
        public StructType readSchema() {
            return Commits.SCHEMA;
        }

        @Override
        public String description() {
            return "TreeCat commit log of " + log.path() + " up to vid " + log.vid();
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            return new InputPartition[] {log};
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return partition -> new CommitReader((Log) partition);
        }
    }

    private static final class CommitReader implements PartitionReader<InternalRow> {
        private final Log log;
        private Iterator<JsonNode> commits = List.<JsonNode>of().iterator();
        private String nextPage;
        private boolean started;
        private InternalRow current;

        CommitReader(Log log) {
            this.log = log;
        }

        @Override
        public boolean next() {
            while (!commits.hasNext()) {
                if (started && nextPage == null) {
                    return false;
                }
                NativeQueryClient.CommitPage page = log.client().commits(log.path(), log.vid(), nextPage);
                started = true;
                nextPage = page.nextPageToken();
                commits = page.commits().elements();
            }
            JsonNode commit = commits.next();
            Instant time = Instant.parse(commit.path("commitTime").asText());
            current = new GenericInternalRow(new Object[] {
                commit.path("vid").asLong(),
                time.getEpochSecond() * 1_000_000L + time.getNano() / 1_000,
                text(commit.get("principal")),
                text(commit.get("interface")),
                text(commit.get("operation")),
                commit.path("added").asLong(),
                commit.path("updated").asLong(),
                commit.path("removed").asLong()
            });
            return true;
        }

        private static UTF8String text(JsonNode node) {
            return node == null || node.isNull() || node.asText().isEmpty()
                    ? null
                    : UTF8String.fromString(node.asText());
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public void close() {}
    }
}
