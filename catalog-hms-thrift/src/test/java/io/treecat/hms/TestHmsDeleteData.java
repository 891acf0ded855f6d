package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.RequestPartsSpec;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Drops with deleteData through Hive 4's HiveMetaStoreClient: which files go, as Hive's metastore decides. */
class TestHmsDeleteData {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
    }

    private Path dbDir() {
        return Path.of(java.net.URI.create(catalogDb("sales")));
    }

    private String catalogDb(String db) {
        try {
            return client.getDatabase(db).getLocationUri();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private Table table(String name, String type, Map<String, String> parameters, List<FieldSchema> keys) {
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName(name);
        table.setTableType(type);
        table.setOwner("alice");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(keys);
        table.setParameters(new HashMap<>(parameters));
        return table;
    }

    /** Creates the table and writes a data file into its directory; returns the directory. */
    private Path create(Table table) throws Exception {
        client.createTable(table);
        Path location = Path.of(java.net.URI.create(
                client.getTable("sales", table.getTableName()).getSd().getLocation()));
        assertThat(location).isDirectory();
        Files.createDirectories(location.resolve("sub"));
        Files.writeString(location.resolve("sub").resolve("part-0.txt"), "1\n");
        return location;
    }

    private Partition addPartition(String tableName, String location, String... values) throws Exception {
        Table table = client.getTable("sales", tableName);
        Partition partition = new Partition();
        partition.setDbName("sales");
        partition.setTableName(tableName);
        partition.setValues(List.of(values));
        StorageDescriptor sd = table.getSd().deepCopy();
        sd.setLocation(location);
        partition.setSd(sd);
        partition.setParameters(new HashMap<>());
        client.add_partition(partition);
        Partition added = client.getPartition("sales", tableName, List.of(values));
        Path dir = Path.of(java.net.URI.create(added.getSd().getLocation()));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("data.txt"), "x\n");
        return added;
    }

    @Test
    void managedTableDroppedWithDeleteDataLosesItsDirectory() throws Exception {
        Path location = create(table("managed", "MANAGED_TABLE", Map.of(), List.of()));
        client.dropTable("sales", "managed", true, false);
        assertThat(location).doesNotExist();
        assertThat(dbDir()).isDirectory();
    }

    @Test
    void withoutDeleteDataTheFilesStay() throws Exception {
        Path location = create(table("kept", "MANAGED_TABLE", Map.of(), List.of()));
        client.dropTable("sales", "kept", false, false);
        assertThat(location.resolve("sub").resolve("part-0.txt")).exists();
    }

    @Test
    void externalTableKeepsItsFilesUnlessPurgeIsSet() throws Exception {
        Path external = create(table("ext", "EXTERNAL_TABLE", Map.of("EXTERNAL", "TRUE"), List.of()));
        Path typeOnly = create(table("ext_type", "EXTERNAL_TABLE", Map.of(), List.of()));
        Path purged = create(table(
                "ext_purge", "EXTERNAL_TABLE", Map.of("EXTERNAL", "TRUE", "external.table.purge", "true"), List.of()));
        client.dropTable("sales", "ext", true, false);
        client.dropTable("sales", "ext_type", true, false);
        client.dropTable("sales", "ext_purge", true, false);
        assertThat(external.resolve("sub").resolve("part-0.txt")).exists();
        assertThat(typeOnly.resolve("sub").resolve("part-0.txt")).exists();
        assertThat(purged).doesNotExist();
    }

    @Test
    void tableDropDeletesPartitionsOutsideItsDirectory() throws Exception {
        Path location =
                create(table("events", "MANAGED_TABLE", Map.of(), List.of(new FieldSchema("ds", "string", null))));
        Path outside = hms.directory().resolve("elsewhere").resolve("ds=2");
        Path sibling = hms.directory().resolve("elsewhere").resolve("other.txt");
        Files.createDirectories(sibling.getParent());
        Files.writeString(sibling, "keep\n");
        addPartition("events", null, "1");
        addPartition("events", outside.toUri().toString(), "2");
        assertThat(location.resolve("ds=1").resolve("data.txt")).exists();
        assertThat(outside.resolve("data.txt")).exists();

        client.dropTable("sales", "events", true, false);
        assertThat(location).doesNotExist();
        assertThat(outside).doesNotExist();
        assertThat(sibling).exists();
    }

    @Test
    void partitionDropDeletesItsDirectoryAndEmptiedLevels() throws Exception {
        Path location = create(table(
                "logs",
                "MANAGED_TABLE",
                Map.of(),
                List.of(new FieldSchema("region", "string", null), new FieldSchema("day", "int", null))));
        addPartition("logs", null, "eu", "1");
        addPartition("logs", null, "eu", "2");
        addPartition("logs", null, "us", "1");

        assertThat(client.dropPartition("sales", "logs", List.of("eu", "1"), true))
                .isTrue();
        assertThat(location.resolve("region=eu").resolve("day=1")).doesNotExist();
        assertThat(location.resolve("region=eu").resolve("day=2").resolve("data.txt"))
                .exists();

        assertThat(client.dropPartition("sales", "logs", "region=eu/day=2", true))
                .isTrue();
        // The emptied upper level goes too, as Hive's deleteParentRecursive; the table's directory stays.
        assertThat(location.resolve("region=eu")).doesNotExist();
        assertThat(location.resolve("sub").resolve("part-0.txt")).exists();

        assertThat(client.dropPartition("sales", "logs", List.of("us", "1"), false))
                .isTrue();
        assertThat(location.resolve("region=us").resolve("day=1").resolve("data.txt"))
                .exists();
    }

    @Test
    void dropPartitionsReqHonoursDeleteDataAndExternalTables() throws Exception {
        Path managed = create(table("m", "MANAGED_TABLE", Map.of(), List.of(new FieldSchema("ds", "string", null))));
        Path external = create(table(
                "x", "EXTERNAL_TABLE", Map.of("EXTERNAL", "TRUE"), List.of(new FieldSchema("ds", "string", null))));
        addPartition("m", null, "1");
        addPartition("x", null, "1");
        // Hive 4's client sends drop_partitions_req only with expressions; the raw call carries names.
        try (TSocket socket = new TSocket("127.0.0.1", hms.port())) {
            socket.open();
            ThriftHiveMetastore.Client raw = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            for (String name : List.of("m", "x")) {
                DropPartitionsRequest request =
                        new DropPartitionsRequest("sales", name, RequestPartsSpec.names(List.of("ds=1")));
                request.setDeleteData(true);
                raw.drop_partitions_req(request);
            }
        }
        assertThat(managed.resolve("ds=1")).doesNotExist();
        assertThat(external.resolve("ds=1").resolve("data.txt")).exists();
    }

    @Test
    void databaseCascadeWithDeleteDataDeletesManagedDataOnly() throws Exception {
        Path managed = create(table("managed", "MANAGED_TABLE", Map.of(), List.of()));
        Path external = create(table("ext", "EXTERNAL_TABLE", Map.of("EXTERNAL", "TRUE"), List.of()));
        Path db = dbDir();
        client.dropDatabase("sales", true, false, true);
        assertThat(managed).doesNotExist();
        // Hive would delete the database directory recursively; TreeCat keeps what external tables hold.
        assertThat(external.resolve("sub").resolve("part-0.txt")).exists();
        assertThat(db).isDirectory();
    }

    @Test
    void databaseCascadeWithDeleteDataRemovesTheEmptiedDirectory() throws Exception {
        Path managed = create(table("managed", "MANAGED_TABLE", Map.of(), List.of()));
        Path db = dbDir();
        client.dropDatabase("sales", true, false, true);
        assertThat(managed).doesNotExist();
        assertThat(db).doesNotExist();
    }

    @Test
    void databaseDropWithoutDeleteDataKeepsFiles() throws Exception {
        Path managed = create(table("managed", "MANAGED_TABLE", Map.of(), List.of()));
        client.dropDatabase("sales", false, false, true);
        assertThat(managed.resolve("sub").resolve("part-0.txt")).exists();
    }

    @Test
    void refusedDropDeletesNothing() throws Exception {
        Path managed = create(table("managed", "MANAGED_TABLE", Map.of(), List.of()));
        assertThatThrownBy(() -> client.dropDatabase("sales", true, false, false))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("One or more tables exist.");
        assertThat(managed.resolve("sub").resolve("part-0.txt")).exists();
    }

    @Test
    void databaseWithOnlyFunctionsSaysSo() throws Exception {
        client.createFunction(new Function(
                "to_upper",
                "sales",
                "com.example.Upper",
                "alice",
                PrincipalType.USER,
                0,
                FunctionType.JAVA,
                List.of()));
        assertThatThrownBy(() -> client.dropDatabase("sales", true, false, false))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("Database sales is not empty. One or more functions exist.");
        client.dropFunction("sales", "to_upper");
        client.dropDatabase("sales", true, false, false);
    }

    @Test
    void symbolicLinksAreRemovedNotFollowed() throws Exception {
        Path target = hms.directory().resolve("target");
        Files.createDirectories(target);
        Files.writeString(target.resolve("precious.txt"), "keep\n");
        Path location = create(table("linked", "MANAGED_TABLE", Map.of(), List.of()));
        Files.createSymbolicLink(location.resolve("link"), target);
        client.dropTable("sales", "linked", true, false);
        assertThat(location).doesNotExist();
        assertThat(target.resolve("precious.txt")).exists();
    }

    @Test
    void locationsWithDotSegmentsOrOtherSchemesAreNotDeleted() {
        assertThat(HmsDataFiles.path("file:/tmp/w/../../etc")).isEmpty();
        assertThat(HmsDataFiles.path("file:/tmp/./w")).isEmpty();
        assertThat(HmsDataFiles.path("s3://bucket/w/t")).isEmpty();
        assertThat(HmsDataFiles.path("file:/")).isEmpty();
        assertThat(HmsDataFiles.path("file:/tmp/w/t")).contains(Path.of("/tmp/w/t"));
    }
}
