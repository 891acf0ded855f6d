package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rename moves a table's file index with it (docs/iceberg-rest.md, "Rename and the file index"):
 * after create, appends and a delete, then a rename, the leaves are under the new path and nothing
 * is left under the old one, and server-side planning of the renamed table (current and older
 * snapshots, and after a further commit) answers what Iceberg's client-side planning answers.
 */
class TestIcebergRenameIndex {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "category", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("category").build();
    private static final Namespace NAMESPACE = Namespace.of("sales");
    private static final TableIdentifier OLD = TableIdentifier.of(NAMESPACE, "orders");
    private static final TableIdentifier NEW = TableIdentifier.of(NAMESPACE, "orders_renamed");

    @TempDir
    Path directory;

    private TreeCatTestServer server;
    private RESTCatalog clientPlanning;
    private RESTCatalog serverPlanning;

    @BeforeEach
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
        clientPlanning = server.icebergClient("client-planning", Map.of());
        serverPlanning = server.icebergServerPlanningClient();
    }

    @AfterEach
    void stop() throws IOException {
        clientPlanning.close();
        serverPlanning.close();
        server.close();
    }

    private static DataFile file(Table table, String category, int number) {
        return DataFiles.builder(SPEC)
                .withPath(table.location() + "/data/category=" + category + "/f" + number + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1000 + number)
                .withRecordCount(10 + number)
                .withPartitionPath("category=" + category)
                .build();
    }

    private static Set<String> planned(TableScan scan) {
        Set<String> files = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The file_path of every leaf under the table's path, through the native API's path query. */
    private Set<String> leaves(TableIdentifier table) {
        String query =
                "/[obj_id='warehouse']/[obj_id='" + NAMESPACE.level(0) + "']/[obj_id='" + table.name() + "']/*/*";
        TreeCatTestServer.Reply reply =
                server.get("/treecat/v1/query?q=" + encode(query) + "&results=leaves&fields=file_path");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        Set<String> paths = new TreeSet<>();
        reply.json()
                .get("rows")
                .forEach(row -> paths.add(row.get("value").get("file_path").asText()));
        return paths;
    }

    private TreeCatTestServer.Reply object(TableIdentifier table, String child) {
        return server.get(
                "/treecat/v1/objects?path=" + encode("/warehouse/" + NAMESPACE.level(0) + "/" + table.name() + child));
    }

    /** The object as of {@code vid}. */
    private TreeCatTestServer.Reply object(TableIdentifier table, String child, long vid) {
        return server.get("/treecat/v1/objects?path="
                + encode("/warehouse/" + NAMESPACE.level(0) + "/" + table.name() + child) + "&vid=" + vid);
    }

    @Test
    void renameMovesTheFileIndexAndPlanningStaysExact() {
        clientPlanning.createNamespace(NAMESPACE);
        Table table = clientPlanning.createTable(OLD, SCHEMA, SPEC);
        List<Long> snapshots = new ArrayList<>();
        int number = 0;
        for (String category : List.of("apple", "banana", "cherry")) {
            table.newAppend()
                    .appendFile(file(table, category, number++))
                    .appendFile(file(table, category, number++))
                    .commit();
            snapshots.add(table.currentSnapshot().snapshotId());
        }
        DataFile removed = file(table, "banana", 2);
        table.newDelete().deleteFile(removed).commit();
        snapshots.add(table.currentSnapshot().snapshotId());
        Set<String> before = leaves(OLD);
        assertThat(before).hasSize(5).doesNotContain(removed.location());

        clientPlanning.renameTable(OLD, NEW);

        // The leaves moved, with the index node; nothing is left under the old path.
        assertThat(leaves(NEW)).isEqualTo(before);
        assertThat(leaves(OLD)).isEmpty();
        assertThat(object(OLD, "").status()).isEqualTo(404);
        TreeCatTestServer.Reply index = object(NEW, "/_files");
        assertThat(index.status()).as(index.body()).isEqualTo(200);
        JsonNode indexValue = index.json().get("value");
        assertThat(indexValue.get("head").asLong()).isEqualTo(snapshots.get(snapshots.size() - 1));
        assertThat(indexValue.has("snapshots")).isFalse();

        // Server-side planning equals client-side planning, now and at every older snapshot.
        Table renamedClient = clientPlanning.loadTable(NEW);
        Table renamedServer = serverPlanning.loadTable(NEW);
        assertThat(planned(renamedServer.newScan()))
                .isEqualTo(planned(renamedClient.newScan()))
                .isEqualTo(before);
        for (long snapshot : snapshots) {
            assertThat(planned(renamedServer.newScan().useSnapshot(snapshot)))
                    .as("snapshot %s", snapshot)
                    .isEqualTo(planned(renamedClient.newScan().useSnapshot(snapshot)));
        }

        // The index carries on incrementally from the moved head.
        renamedClient
                .newAppend()
                .appendFile(file(renamedClient, "date", number++))
                .commit();
        Set<String> after = planned(clientPlanning.loadTable(NEW).newScan());
        assertThat(after).hasSize(6);
        assertThat(leaves(NEW)).isEqualTo(after);
        assertThat(planned(serverPlanning.loadTable(NEW).newScan())).isEqualTo(after);
        // The node's version before the commit holds the moved head: where the planner's search finds it.
        long nextVersion = object(NEW, "/_files").json().get("version").asLong();
        JsonNode moved = object(NEW, "/_files", nextVersion - 1).json().get("value");
        assertThat(moved.get("head").asLong()).isEqualTo(snapshots.get(snapshots.size() - 1));
    }

    @Test
    void renameBackAndForthKeepsOneCopyOfTheLeaves() {
        clientPlanning.createNamespace(NAMESPACE);
        Table table = clientPlanning.createTable(OLD, SCHEMA, SPEC);
        table.newAppend()
                .appendFile(file(table, "apple", 1))
                .appendFile(file(table, "banana", 2))
                .commit();
        Set<String> files = leaves(OLD);

        clientPlanning.renameTable(OLD, NEW);
        clientPlanning.renameTable(NEW, OLD);

        assertThat(leaves(OLD)).isEqualTo(files).hasSize(2);
        assertThat(leaves(NEW)).isEmpty();
        assertThat(planned(serverPlanning.loadTable(OLD).newScan())).isEqualTo(files);
    }
}
