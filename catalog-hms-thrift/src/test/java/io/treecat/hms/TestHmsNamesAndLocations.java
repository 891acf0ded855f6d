package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Names and locations at the Thrift edge, with Hive 4's own client against a TreeCat HMS (issue 24): the table, column
 * and partition-key names Hive 4.0.1 refuses are refused with its exception types (and a few it stores but that
 * would not read back are refused too); default locations are one escaped path segment per name, inside the
 * warehouse; a partition value with {@code /} or {@code ..} stays one directory inside its table; directories are
 * made only after the commit and only inside the warehouse. Each refusal leaves the tree at the same vid and no new
 * file or directory anywhere under the test's root.
 */
class TestHmsNamesAndLocations {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;

    @BeforeEach
    void setUp() throws Exception {
        client = hms.hiveClient();
        Database sales = new Database();
        sales.setName("sales");
        sales.setParameters(new HashMap<>());
        client.createDatabase(sales);
    }

    private Path warehouse() {
        return hms.directory().resolve("warehouse/warehouse");
    }

    /** Every file and directory under the test's root but the tree's own (RocksDB writes its logs as it likes). */
    private Set<String> files() throws IOException {
        Path db = hms.directory().resolve("db");
        try (Stream<Path> all = Files.walk(hms.directory())) {
            return all.filter(path -> !path.startsWith(db))
                    .map(path -> hms.directory().relativize(path).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** Runs {@code refused}, which must throw {@code type} with {@code message}, and checks it changed nothing. */
    private void assertRefusedUntouched(ThrowingCall refused, Class<? extends Exception> type, String message)
            throws Exception {
        long vid = hms.catalog().lastVid();
        Set<String> before = files();
        assertThatThrownBy(refused::call).as(message).isInstanceOf(type).hasMessage(message);
        assertThat(hms.catalog().lastVid()).as("vid after: " + message).isEqualTo(vid);
        assertThat(files()).as("files after: " + message).isEqualTo(before);
        assertThat(hms.server().isServing()).isTrue();
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void call() throws Exception;
    }

    static Table table(String db, String name, String... partitionKeys) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(
                new ArrayList<>(List.of(new FieldSchema("id", "bigint", null), new FieldSchema("v", "string", null))));
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.setSerdeInfo(
                new SerDeInfo("s", "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", new HashMap<>()));
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setSd(sd);
        List<FieldSchema> keys = new ArrayList<>();
        for (String key : partitionKeys) {
            keys.add(new FieldSchema(key, "string", null));
        }
        table.setPartitionKeys(keys);
        table.setParameters(new HashMap<>());
        table.setTableType("MANAGED_TABLE");
        return table;
    }

    // ---- table names

    @Test
    void tableNamesHiveRefusesAreRefusedWithItsMessage() throws Exception {
        for (String name : List.of("données", "tab\tle", "back\\slash", "日本")) {
            assertRefusedUntouched(
                    () -> client.createTable(table("sales", name)),
                    InvalidObjectException.class,
                    name.replace("\t", "\\u0009") + " is not a valid object name");
        }
        assertThat(client.getAllTables("sales")).isEmpty();
    }

    @Test
    void tableNamesWithDotPartsAreRefusedThoughHiveTakesThem() throws Exception {
        for (String name : List.of("..", ".", "../escaped", "a/../b")) {
            assertRefusedUntouched(
                    () -> client.createTable(table("sales", name)),
                    InvalidObjectException.class,
                    "Invalid table name: it is '.' or '..', or has such a part between slashes");
        }
        assertThat(Files.exists(hms.directory().resolve("warehouse/escaped"))).isFalse();
    }

    @Test
    void aTableNameWithHivesSpecialCharactersIsOneEscapedDirectory() throws Exception {
        client.createTable(table("sales", "a/b"));
        client.createTable(table("sales", "50%"));
        client.createTable(table("sales", "x=y z"));
        String sales = warehouse().resolve("sales").toUri().toString().replaceAll("/$", "");
        assertThat(client.getTable("sales", "a/b").getSd().getLocation()).isEqualTo(sales + "/a%2Fb");
        assertThat(client.getTable("sales", "50%").getSd().getLocation()).isEqualTo(sales + "/50%25");
        assertThat(client.getTable("sales", "x=y z").getSd().getLocation()).isEqualTo(sales + "/x=y z");
        // One directory each, its name as written: a%2Fb is not a/b (no separator is ever decoded).
        assertThat(warehouse().resolve("sales/a%2Fb")).isDirectory();
        assertThat(warehouse().resolve("sales/a")).doesNotExist();
        assertThat(warehouse().resolve("sales/50%25")).isDirectory();
        assertThat(warehouse().resolve("sales/x=y z")).isDirectory();
        assertThat(client.getAllTables("sales")).containsExactlyInAnyOrder("a/b", "50%", "x=y z");
    }

    @Test
    void droppingATableWithDeleteDataRemovesItsOwnEscapedDirectoryOnly() throws Exception {
        client.createTable(table("sales", "a"));
        client.createTable(table("sales", "a/b"));
        // Table a's data in a directory named b: java.net.URI reads the location a%2Fb as a/b.
        Path precious = warehouse().resolve("sales/a/b/precious.txt");
        Files.createDirectories(precious.getParent());
        Files.writeString(precious, "keep\n");
        Files.writeString(warehouse().resolve("sales/a%2Fb/data.txt"), "gone\n");
        client.dropTable("sales", "a/b", true, false);
        assertThat(warehouse().resolve("sales/a%2Fb")).doesNotExist();
        assertThat(precious).exists();
        assertThat(HmsDataFiles.path("file:/tmp/w/a%2Fb")).contains(Path.of("/tmp/w/a%2Fb"));
        assertThat(HmsDataFiles.path("file:///tmp/w/50%25")).contains(Path.of("/tmp/w/50%25"));
        assertThat(HmsDataFiles.path("file://localhost/tmp/w")).contains(Path.of("/tmp/w"));
        assertThat(HmsDataFiles.path("file://elsewhere/tmp/w")).isEmpty();
    }

    // ---- columns and partition keys

    @Test
    void columnsHiveRefusesAreRefusedWithItsTypes() throws Exception {
        Table twice = table("sales", "twice");
        twice.getSd().getCols().add(new FieldSchema("ID", "int", null));
        // Hive's store refuses the second row of a column: a MetaException.
        assertRefusedUntouched(
                () -> client.createTable(twice), MetaException.class, "Invalid column name: ID is named twice");
        Table upper = table("sales", "upper");
        upper.getSd().getCols().add(new FieldSchema("c", "INT", null));
        assertRefusedUntouched(
                () -> client.createTable(upper), InvalidObjectException.class, "Invalid column type: INT");
        Table bad = table("sales", "bad");
        bad.getSd().getCols().add(new FieldSchema("c", "no such type(", null));
        assertRefusedUntouched(
                () -> client.createTable(bad), InvalidObjectException.class, "Invalid column type: no such type(");
        Table keysTwice = table("sales", "keys_twice", "ds", "DS");
        assertRefusedUntouched(
                () -> client.createTable(keysTwice),
                MetaException.class,
                "Invalid partition column name: DS is named twice");
        assertThat(client.getAllTables("sales")).isEmpty();
    }

    @Test
    void partitionKeysThatWouldNotReadBackAreRefused() throws Exception {
        assertRefusedUntouched(
                () -> client.createTable(table("sales", "overlap", "id")),
                InvalidObjectException.class,
                "Invalid partition column name: id is also a column of the table");
        assertRefusedUntouched(
                () -> client.createTable(table("sales", "nameless", "")),
                InvalidObjectException.class,
                "Invalid partition column name: it is empty");
        for (String key : List.of("a=b", "a/b", "a%b", "a:b")) {
            assertRefusedUntouched(
                    () -> client.createTable(table("sales", "keyed", key)),
                    InvalidObjectException.class,
                    "Invalid partition column name: " + key + " holds '" + key.charAt(1)
                            + "', which a partition name would have to escape");
        }
        assertThat(client.getAllTables("sales")).isEmpty();
    }

    // ---- alter_table

    @Test
    void alterTableRefusesAsHiveDoes() throws Exception {
        client.createTable(table("sales", "t"));
        for (String name : List.of("données", "back\\slash")) {
            Table renamed = client.getTable("sales", "t");
            renamed.setTableName(name);
            assertRefusedUntouched(
                    () -> client.alter_table("sales", "t", renamed),
                    InvalidOperationException.class,
                    name + " is not a valid object name");
        }
        Table dotted = client.getTable("sales", "t");
        dotted.setTableName("../t");
        assertRefusedUntouched(
                () -> client.alter_table("sales", "t", dotted),
                InvalidOperationException.class,
                "Invalid table name: it is '.' or '..', or has such a part between slashes");
        Table twice = client.getTable("sales", "t");
        twice.getSd().getCols().add(new FieldSchema("id", "int", null));
        assertRefusedUntouched(
                () -> client.alter_table("sales", "t", twice),
                MetaException.class,
                "Invalid column name: id is named twice");
        Table bad = client.getTable("sales", "t");
        bad.getSd().getCols().add(new FieldSchema("c", "no such type(", null));
        assertRefusedUntouched(
                () -> client.alter_table("sales", "t", bad),
                InvalidOperationException.class,
                "Invalid column type: no such type(");
        assertThat(client.getAllTables("sales")).containsExactly("t");
        // A rename to a name Hive takes still works, and keeps its directory where it was (the location is kept).
        Table renamed = client.getTable("sales", "t");
        renamed.setTableName("t 2");
        client.alter_table("sales", "t", renamed);
        assertThat(client.getAllTables("sales")).containsExactly("t 2");
    }

    // ---- partition values

    @Test
    void partitionValuesWithSlashesAndDotsStayOneDirectoryInsideTheTable() throws Exception {
        client.createTable(table("sales", "parted", "ds"));
        Path tableDirectory = warehouse().resolve("sales/parted");
        Set<String> outside = filesOutside(tableDirectory);
        List<String> values = List.of("../../../../escaped", "..", "a/b", "x/../../y", "%2F..%2F..", "\\..\\..");
        for (String value : values) {
            Partition partition = new Partition();
            partition.setDbName("sales");
            partition.setTableName("parted");
            partition.setValues(List.of(value));
            client.add_partition(partition);
        }
        String table = tableDirectory.toUri().toString().replaceAll("/$", "");
        for (String value : values) {
            String location = client.getPartition("sales", "parted", List.of(value))
                    .getSd()
                    .getLocation();
            assertThat(location).as(value).startsWith(table + "/ds=");
            // One path segment below the table, as written.
            assertThat(location.substring(table.length() + 1)).as(value).doesNotContain("/");
            Path directory = tableDirectory.resolve(location.substring(table.length() + 1));
            assertThat(directory).as(value).isDirectory();
            assertThat(directory.getParent()).isEqualTo(tableDirectory);
        }
        assertThat(client.getPartition("sales", "parted", List.of("../../../../escaped"))
                        .getSd()
                        .getLocation())
                .isEqualTo(table + "/ds=..%2F..%2F..%2F..%2Fescaped");
        // Nothing was made anywhere but inside the table's directory.
        assertThat(filesOutside(tableDirectory)).isEqualTo(outside);
        // And the values read back: a filter on each finds its partition.
        for (String value : values.subList(0, 5)) {
            assertThat(client.listPartitionsByFilter("sales", "parted", "ds = \"" + value + "\"", (short) -1))
                    .as(value)
                    .extracting(Partition::getValues)
                    .containsExactly(List.of(value));
        }
    }

    private Set<String> filesOutside(Path directory) throws IOException {
        Set<String> all = files();
        String prefix = hms.directory().relativize(directory).toString();
        all.removeIf(path -> path.startsWith(prefix + "/"));
        return all;
    }

    // ---- locations

    @Test
    void defaultLocationsAreBuiltInsideTheWarehouse() throws Exception {
        String sales = warehouse().resolve("sales").toUri().toString().replaceAll("/$", "");
        assertThat(client.getDatabase("sales").getLocationUri()).isEqualTo(sales);
        assertThat(warehouse().resolve("sales")).isDirectory();
        client.createTable(table("sales", "Orders"));
        assertThat(client.getTable("sales", "orders").getSd().getLocation()).isEqualTo(sales + "/orders");
        assertThat(warehouse().resolve("sales/orders")).isDirectory();
    }

    @Test
    void locationsWithDotSegmentsAreRefused() throws Exception {
        String escape = warehouse().toUri() + "sales/../../../escaped";
        Database db = new Database();
        db.setName("dotted");
        db.setLocationUri(escape);
        db.setParameters(new HashMap<>());
        assertRefusedUntouched(
                () -> client.createDatabase(db),
                InvalidObjectException.class,
                "Invalid location: it has a '.' or '..' path segment");
        Table table = table("sales", "t");
        table.getSd().setLocation(escape);
        assertRefusedUntouched(
                () -> client.createTable(table),
                InvalidObjectException.class,
                "Invalid location: it has a '.' or '..' path segment");
        client.createTable(table("sales", "parted", "ds"));
        Partition partition = new Partition();
        partition.setDbName("sales");
        partition.setTableName("parted");
        partition.setValues(List.of("1"));
        partition.setSd(client.getTable("sales", "parted").getSd().deepCopy());
        partition.getSd().setLocation(warehouse().toUri() + "sales/parted/%2E%2E/%2E%2E/escaped");
        assertRefusedUntouched(
                () -> client.add_partition(partition),
                InvalidObjectException.class,
                "Invalid location: it has a '.' or '..' path segment");
        assertThat(hms.directory().resolve("escaped")).doesNotExist();
        assertThat(hms.directory().resolve("warehouse/escaped")).doesNotExist();
    }

    @Test
    void aLocationOutsideTheWarehouseIsKeptAndItsDirectoryMadeAsHiveDoes() throws Exception {
        // External locations are allowed by default (Hive's and Iceberg's catalogs allow them): the client's own.
        // Hive's metastore makes its directory, and Spark's Hive catalog reads it before the first INSERT.
        Path elsewhere = hms.directory().resolve("elsewhere");
        String location = elsewhere.resolve("t").toUri().toString();
        Table table = table("sales", "outside");
        table.getSd().setLocation(location);
        client.createTable(table);
        assertThat(client.getTable("sales", "outside").getSd().getLocation()).isEqualTo(location);
        assertThat(elsewhere.resolve("t")).isDirectory();
    }

    @Test
    void aFailedCreateLeavesNoDirectory() throws Exception {
        client.createTable(table("sales", "t"));
        Table again = table("sales", "t");
        again.getSd().setLocation(warehouse().resolve("sales/other").toUri().toString());
        long vid = hms.catalog().lastVid();
        Set<String> before = files();
        assertThatThrownBy(() -> client.createTable(again))
                .isInstanceOf(org.apache.hadoop.hive.metastore.api.AlreadyExistsException.class);
        assertThatThrownBy(() -> client.createTable(table("missing_db", "t")))
                .isInstanceOf(InvalidObjectException.class);
        assertThat(hms.catalog().lastVid()).isEqualTo(vid);
        assertThat(files()).isEqualTo(before);
        assertThat(warehouse().resolve("sales/other")).doesNotExist();
    }
}
