package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hive.HiveCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Iceberg's own HiveCatalog (1.11, on Hive 4.1's client) against the server, with a local
 * warehouse: with HMS locks (the default) and with {@code engine.hive.lock-enabled=false} (the
 * expected-parameter swap of {@code metadata_location}).
 */
class TestIcebergHiveCatalog {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.StringType.get()));
    private static final int COMMITS_EACH = 6;

    // A short lock timeout, with Iceberg heartbeating well inside it.
    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withLockTimeout(Duration.ofSeconds(3));

    private final List<HiveCatalog> catalogs = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (HiveCatalog catalog : catalogs) {
            catalog.close();
        }
    }

    /** A HiveCatalog of its own (own name, so Iceberg's in-JVM per-table lock does not serialize two of them). */
    private HiveCatalog catalog(String name, boolean locks) {
        Configuration conf = new Configuration(false);
        conf.set("iceberg.hive.lock-heartbeat-interval-ms", "500");
        conf.set("iceberg.hive.lock-check-max-wait-ms", "200");
        HiveCatalog catalog = new HiveCatalog();
        catalog.setConf(conf);
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "thrift://127.0.0.1:" + hms.port());
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION,
                hms.directory().resolve("hive-warehouse").toUri().toString());
        properties.put(CatalogProperties.CLIENT_POOL_SIZE, "2");
        if (!locks) {
            properties.put("engine.hive.lock-enabled", "false");
        }
        catalog.initialize(name, properties);
        catalogs.add(catalog);
        return catalog;
    }

    private static DataFile file(String name, long records) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath("/data/" + name + ".parquet")
                .withFileSizeInBytes(1024)
                .withRecordCount(records)
                .build();
    }

    private static List<FileScanTask> plan(org.apache.iceberg.Table table) throws Exception {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> files = table.newScan().planFiles()) {
            files.forEach(tasks::add);
        }
        return tasks;
    }

    private ThriftHiveMetastore.Client rawClient(List<TSocket> sockets) throws Exception {
        TSocket socket = hms.socket();
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    @ParameterizedTest(name = "locks={0}")
    @ValueSource(booleans = {true, false})
    void createAppendReadBackAndRaceTwoCommitters(boolean locks) throws Exception {
        HiveCatalog one = catalog("one", locks);
        HiveCatalog two = catalog("two", locks);
        one.createNamespace(Namespace.of("db"));
        TableIdentifier id = TableIdentifier.of("db", "events");
        Map<String, String> properties = new HashMap<>(Map.of(
                "commit.retry.num-retries", "50", "commit.retry.min-wait-ms", "10", "commit.retry.max-wait-ms", "100"));
        if (!locks) {
            properties.put("engine.hive.lock-enabled", "false");
        }
        org.apache.iceberg.Table created = one.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), properties);
        created.newAppend().appendFile(file("a", 10)).commit();
        created.newAppend().appendFile(file("b", 20)).commit();

        // Read back through the other catalog.
        org.apache.iceberg.Table read = two.loadTable(id);
        assertThat(plan(read))
                .extracting(task -> task.file().location())
                .containsExactlyInAnyOrder("/data/a.parquet", "/data/b.parquet");
        assertThat(plan(read).stream()
                        .mapToLong(task -> task.file().recordCount())
                        .sum())
                .isEqualTo(30);
        assertThat(read.schema().asStruct()).isEqualTo(SCHEMA.asStruct());
        assertThat(two.listNamespaces()).contains(Namespace.of("db"));

        // Hive clients see an Iceberg table whose metadata_location is the current one.
        List<TSocket> sockets = new ArrayList<>();
        try {
            Table hive = rawClient(sockets)
                    .get_table_req(new GetTableRequest("db", "events"))
                    .getTable();
            assertThat(hive.getParameters())
                    .containsEntry("table_type", "ICEBERG")
                    .containsEntry(
                            "metadata_location",
                            ((org.apache.iceberg.BaseTable) read)
                                    .operations()
                                    .current()
                                    .metadataFileLocation());
        } finally {
            sockets.forEach(TSocket::close);
        }

        // Two committers, each on its own catalog and client pool, appending at the same time: no commit is lost.
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> runs = new ArrayList<>();
            for (HiveCatalog catalog : List.of(one, two)) {
                String prefix = catalog.name();
                runs.add(pool.submit(() -> {
                    org.apache.iceberg.Table table = catalog.loadTable(id);
                    go.await();
                    for (int i = 0; i < COMMITS_EACH; i++) {
                        table.newAppend().appendFile(file(prefix + "-" + i, 1)).commit();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> run : runs) {
                run.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        org.apache.iceberg.Table after = one.loadTable(id);
        List<String> files =
                plan(after).stream().map(task -> task.file().location()).toList();
        assertThat(files).hasSize(2 + 2 * COMMITS_EACH);
        for (int i = 0; i < COMMITS_EACH; i++) {
            assertThat(files).contains("/data/one-" + i + ".parquet", "/data/two-" + i + ".parquet");
        }
        assertThat(after.currentSnapshot().summary())
                .containsEntry("total-records", String.valueOf(30 + 2 * COMMITS_EACH));
        int snapshots = 0;
        for (org.apache.iceberg.Snapshot ignored : after.snapshots()) {
            snapshots++;
        }
        assertThat(snapshots).isEqualTo(2 + 2 * COMMITS_EACH);
        // Every lock was released.
        assertThat(hms.server().locks().size()).isZero();
    }

    @Test
    void aCommitWaitsForTheHmsLockHeldByAnotherClient() throws Exception {
        HiveCatalog catalog = catalog("waiter", true);
        catalog.createNamespace(Namespace.of("db"));
        TableIdentifier id = TableIdentifier.of("db", "t");
        org.apache.iceberg.Table table = catalog.createTable(id, SCHEMA);
        List<TSocket> sockets = new ArrayList<>();
        try {
            ThriftHiveMetastore.Client other = rawClient(sockets);
            LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, "db");
            component.setTablename("t");
            LockResponse held = other.lock(new LockRequest(List.of(component), "bob", "elsewhere"));
            assertThat(held.getState()).isEqualTo(LockState.ACQUIRED);

            CompletableFuture<Void> append = CompletableFuture.runAsync(
                    () -> table.newAppend().appendFile(file("x", 5)).commit());
            ShowLocksRequest show = new ShowLocksRequest();
            show.setDbname("db");
            show.setTablename("t");
            // Iceberg's request queues behind ours, marked with its agentInfo, and its commit does not happen.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            List<ShowLocksResponseElement> waiting = List.of();
            while (waiting.isEmpty() && System.nanoTime() < deadline) {
                waiting = other.show_locks(show).getLocks().stream()
                        .filter(e -> e.getState() == LockState.WAITING
                                && e.getAgentInfo() != null
                                && e.getAgentInfo().startsWith("Iceberg-"))
                        .toList();
                TimeUnit.MILLISECONDS.sleep(50);
            }
            assertThat(waiting).hasSize(1);
            for (int i = 0; i < 10; i++) {
                other.heartbeat(TestHmsLocks.beat(held.getLockid(), 0));
                TimeUnit.MILLISECONDS.sleep(100);
            }
            assertThat(append).isNotDone();
            assertThat(catalog.loadTable(id).currentSnapshot()).isNull();

            other.unlock(new UnlockRequest(held.getLockid()));
            append.get(30, TimeUnit.SECONDS);
            assertThat(plan(catalog.loadTable(id)))
                    .extracting(task -> task.file().location())
                    .containsExactly("/data/x.parquet");
            assertThat(hms.server().locks().size()).isZero();
        } finally {
            sockets.forEach(TSocket::close);
        }
    }

    @Test
    void catalogCallsBeyondCommits() throws Exception {
        HiveCatalog catalog = catalog("ddl", true);
        Namespace ns = Namespace.of("db");
        catalog.createNamespace(ns, Map.of("owner-note", "x"));
        assertThat(catalog.loadNamespaceMetadata(ns)).containsEntry("owner-note", "x");
        catalog.setProperties(ns, Map.of("k", "v"));
        assertThat(catalog.loadNamespaceMetadata(ns)).containsEntry("k", "v").containsEntry("owner-note", "x");
        catalog.removeProperties(ns, java.util.Set.of("k"));
        assertThat(catalog.loadNamespaceMetadata(ns)).doesNotContainKey("k");
        TableIdentifier id = TableIdentifier.of("db", "t");
        catalog.createTable(id, SCHEMA);
        assertThat(catalog.tableExists(id)).isTrue();
        assertThat(catalog.listTables(ns)).containsExactly(id);
        TableIdentifier renamed = TableIdentifier.of("db", "u");
        catalog.renameTable(id, renamed);
        assertThat(catalog.tableExists(id)).isFalse();
        assertThat(catalog.loadTable(renamed).schema().asStruct()).isEqualTo(SCHEMA.asStruct());
        assertThat(catalog.dropTable(renamed, false)).isTrue();
        assertThat(catalog.dropNamespace(ns)).isTrue();
        assertThat(catalog.listNamespaces()).containsExactly(Namespace.of("default"));
    }
}
