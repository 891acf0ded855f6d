package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hive.HiveCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table made by Iceberg's HiveCatalog over the HMS Thrift port keeps its Hive fields through
 * commits over Iceberg REST (docs/iceberg-rest.md, "Fields a REST commit keeps"): the REST side
 * updates only the keys of the table object it owns, so Hive clients still see the owner, type,
 * storage descriptor and parameters the table was made with, and the moved metadata_location.
 */
class TestHmsRestCommits {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.StringType.get()));
    private static final String DATABASE = "hive_db";
    private static final TableIdentifier TABLE = TableIdentifier.of(DATABASE, "events");

    @TempDir
    Path directory;

    private TreeCatTestServer server;
    private RESTCatalog rest;
    private HiveCatalog hive;
    private TSocket socket;
    private ThriftHiveMetastore.Client thrift;

    @BeforeEach
    void start() throws Exception {
        server = new TreeCatTestServer(directory);
        rest = server.icebergClient();
        hive = new HiveCatalog();
        hive.setConf(new Configuration(false));
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "thrift://127.0.0.1:" + server.hmsPort());
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION,
                directory.resolve("hive-warehouse").toUri().toString());
        properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
        hive.initialize("hive", properties);
        socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        thrift = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    @AfterEach
    void stop() throws Exception {
        socket.close();
        hive.close();
        rest.close();
        server.close();
    }

    private static DataFile file(org.apache.iceberg.Table table, int number) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/f" + number + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100 + number)
                .withRecordCount(1 + number)
                .build();
    }

    private Table hiveTable(String database, String name) throws Exception {
        return thrift.get_table_req(new GetTableRequest(database, name)).getTable();
    }

    private static String metadataLocation(org.apache.iceberg.Table table) {
        return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }

    /** A Hive table made by HiveCatalog, with a parameter only Hive knows, as Hive clients see it. */
    private Table hiveTable() throws Exception {
        hive.createNamespace(Namespace.of(DATABASE));
        hive.createTable(TABLE, SCHEMA, PartitionSpec.unpartitioned(), Map.of("made-by", "hive-catalog"));
        Table table = hiveTable(DATABASE, TABLE.name());
        table.getParameters().put("hive.only", "kept");
        table.setOwner("hive-owner");
        thrift.alter_table_with_environment_context(DATABASE, TABLE.name(), table, new EnvironmentContext());
        return hiveTable(DATABASE, TABLE.name());
    }

    private static void assertHiveFieldsKept(Table before, Table after) {
        assertThat(after.getOwner()).isEqualTo("hive-owner").isEqualTo(before.getOwner());
        assertThat(after.getTableType()).isEqualTo(before.getTableType());
        assertThat(after.getSd()).isEqualTo(before.getSd());
        assertThat(after.getPartitionKeys()).isEqualTo(before.getPartitionKeys());
        assertThat(after.getCreateTime()).isEqualTo(before.getCreateTime());
        assertThat(after.getParameters())
                .containsEntry("hive.only", "kept")
                .containsEntry("table_type", "ICEBERG")
                .containsEntry("EXTERNAL", before.getParameters().get("EXTERNAL"));
    }

    @Test
    void restCommitKeepsTheHiveFieldsAndMovesTheMetadataLocation() throws Exception {
        Table before = hiveTable();
        String created = before.getParameters().get("metadata_location");
        assertThat(created).isNotNull();

        org.apache.iceberg.Table table = rest.loadTable(TABLE);
        table.newAppend().appendFile(file(table, 1)).commit();
        table.updateProperties().set("committed-by", "rest").commit();

        Table after = hiveTable(DATABASE, TABLE.name());
        assertHiveFieldsKept(before, after);
        String moved = after.getParameters().get("metadata_location");
        assertThat(moved).isNotEqualTo(created).isEqualTo(metadataLocation(rest.loadTable(TABLE)));

        // HiveCatalog reads the REST commits and commits on top of them (its expected-parameter check
        // compares the metadata_location the REST commit moved).
        org.apache.iceberg.Table throughHive = hive.loadTable(TABLE);
        assertThat(throughHive.currentSnapshot().snapshotId())
                .isEqualTo(table.currentSnapshot().snapshotId());
        assertThat(throughHive.properties())
                .containsEntry("committed-by", "rest")
                .containsEntry("made-by", "hive-catalog");
        throughHive.newAppend().appendFile(file(throughHive, 2)).commit();
        assertThat(rest.loadTable(TABLE).currentSnapshot().snapshotId())
                .isEqualTo(throughHive.currentSnapshot().snapshotId());
        assertHiveFieldsKept(before, hiveTable(DATABASE, TABLE.name()));
    }

    @Test
    void restCommitsKeepTheHiveConstraintsAndARestDropEndsThem() throws Exception {
        hiveTable();
        org.apache.hadoop.hive.metastore.api.SQLPrimaryKey key = new org.apache.hadoop.hive.metastore.api.SQLPrimaryKey(
                DATABASE, TABLE.name(), "id", 1, "pk_id", false, false, true);
        thrift.add_primary_key(new org.apache.hadoop.hive.metastore.api.AddPrimaryKeyRequest(List.of(key)));

        org.apache.iceberg.Table table = rest.loadTable(TABLE);
        table.newAppend().appendFile(file(table, 1)).commit();
        table.updateProperties().set("committed-by", "rest").commit();

        org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest request =
                new org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest(DATABASE, TABLE.name());
        assertThat(thrift.get_primary_keys(request).getPrimaryKeys())
                .extracting(org.apache.hadoop.hive.metastore.api.SQLPrimaryKey::getPk_name)
                .containsExactly("pk_id");
        rest.dropTable(TABLE, false);
        assertThat(thrift.get_primary_keys(request).getPrimaryKeys()).isEmpty();
    }

    @Test
    void registerOverwriteKeepsTheHiveFields() throws Exception {
        Table before = hiveTable();
        org.apache.iceberg.Table table = rest.loadTable(TABLE);
        String first = metadataLocation(table);
        table.newAppend().appendFile(file(table, 1)).commit();

        // Point the table back at its first metadata file, as a rollback by registration does.
        rest.registerTable(TABLE, first, true);

        Table after = hiveTable(DATABASE, TABLE.name());
        assertHiveFieldsKept(before, after);
        assertThat(after.getParameters()).containsEntry("metadata_location", first);
        assertThat(rest.loadTable(TABLE).currentSnapshot()).isNull();
    }

    @Test
    void restRenameOfAHivePartitionedTableMovesItsPartitions() throws Exception {
        thrift.create_database(
                new Database("hivedb", "", directory.resolve("hivedb").toUri().toString(), new HashMap<>()));
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setLocation(directory.resolve("hivedb/events").toUri().toString());
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        sd.setSerdeInfo(new SerDeInfo("events", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        Table table = new Table();
        table.setDbName("hivedb");
        table.setTableName("events");
        table.setTableType("MANAGED_TABLE");
        table.setSd(sd);
        table.setParameters(new HashMap<>());
        table.setPartitionKeys(List.of(new FieldSchema("day", "string", null), new FieldSchema("hour", "int", null)));
        thrift.create_table(table);
        for (String[] values : new String[][] {{"2025-01-01", "1"}, {"2025-01-01", "2"}, {"2025-01-02", "1"}}) {
            thrift.append_partition("hivedb", "events", List.of(values));
        }

        rest.renameTable(TableIdentifier.of("hivedb", "events"), TableIdentifier.of("hivedb", "renamed"));

        assertThat(thrift.get_partition_names("hivedb", "renamed", (short) -1))
                .containsExactlyInAnyOrder("day=2025-01-01/hour=1", "day=2025-01-01/hour=2", "day=2025-01-02/hour=1");
        assertThat(thrift.get_all_tables("hivedb")).containsExactly("renamed");
    }
}
