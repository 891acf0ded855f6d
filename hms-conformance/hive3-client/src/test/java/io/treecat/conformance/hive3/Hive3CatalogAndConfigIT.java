package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.ConfigValSecurityException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.InvalidPartitionException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on catalogs ({@code get_catalogs}, {@code get_catalog}, {@code create_catalog},
 * {@code drop_catalog}; catalogs came with Hive 3.0, so this client sends {@code catName} fields, in Hive 3.1's
 * older structs), the configuration calls ({@code get_config_value}, {@code getMetaConf}/{@code setMetaConf},
 * {@code get_metastore_db_uuid}, {@code flushCache}) and partition marks ({@code markPartitionForEvent},
 * {@code isPartitionMarkedForEvent}).
 */
class Hive3CatalogAndConfigIT {
    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void clients() {
        client = hms.client();
        raw = hms.thrift();
    }

    @Test
    void aCatalogIsMadeUsedAndDropped() throws Exception {
        assertThat(client.getCatalogs()).contains("hive");
        assertThat(client.getCatalog("hive").getLocationUri()).isNotBlank();

        Path home = hms.server().warehouse().resolveSibling("h3cat-home");
        String location = home.toUri().toString().replaceAll("/$", "");
        Catalog catalog = new Catalog("H3Cat", location);
        catalog.setDescription("made by Hive 3.1");
        client.createCatalog(catalog);
        assertThat(client.getCatalogs()).contains("hive", "h3cat");
        Catalog read = client.getCatalog("h3cat");
        assertThat(read.getName()).isEqualTo("h3cat");
        assertThat(read.getDescription()).isEqualTo("made by Hive 3.1");
        assertThat(read.getLocationUri()).isEqualTo(location);
        // Every catalog has its default database, as in Hive.
        assertThat(client.getAllDatabases("h3cat")).containsExactly("default");
        assertThat(Files.isDirectory(home.resolve("default"))).isTrue();

        // A database and a table in it, named through Hive 3.1's catName fields.
        Database orders = database("h3_orders");
        orders.setCatalogName("h3cat");
        client.createDatabase(orders);
        Table daily = table("h3_orders", "daily", TableType.EXTERNAL_TABLE);
        daily.setCatName("h3cat");
        client.createTable(daily);
        assertThat(client.getTable("h3cat", "h3_orders", "daily").getCatName()).isEqualTo("h3cat");
        assertThat(client.getAllDatabases()).doesNotContain("h3_orders");

        assertThatThrownBy(() -> client.createCatalog(new Catalog("h3cat", location)))
                .isInstanceOf(org.apache.hadoop.hive.metastore.api.AlreadyExistsException.class)
                .hasMessage("Catalog h3cat already exists");
        assertThatThrownBy(() -> client.createCatalog(new Catalog("a-b", location)))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("a-b is not a valid catalog name");
        assertThatThrownBy(() -> client.dropCatalog("h3cat"))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("There are non-default databases in the catalog h3cat so it cannot be dropped.");
        assertThat(client.getAllDatabases("h3cat")).containsExactly("default", "h3_orders");

        client.dropDatabase("h3cat", "h3_orders", true, false, true);
        client.dropCatalog("h3cat");
        assertThat(client.getCatalogs()).doesNotContain("h3cat");
        assertThatThrownBy(() -> client.getCatalog("h3cat"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("No catalog h3cat");
        // Hive 3.1's DropCatalogRequest has no ifExists; TreeCat reads its absence as Hive 4.1 does (Hive 4.1's
        // request defaults it to true and sends nothing for it either), so an unknown catalog drops quietly, where a
        // Hive 3.1 or 4.0.1 metastore answers NoSuchObjectException (docs/hms-thrift.md, "Hive 3.1's client").
        client.dropCatalog("h3cat");
        assertThatThrownBy(() -> client.dropCatalog("hive"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Can not drop hive catalog");
        // The emptied default database's directory goes with the catalog; the external table's data stays.
        assertThat(home.resolve("default")).doesNotExist();
    }

    @Test
    void configValuesAreHivesForTheKeysHiveLetsClientsRead() throws Exception {
        assertThat(client.getConfigValue("hive.exec.default.partition.name", "x"))
                .isEqualTo("__HIVE_DEFAULT_PARTITION__");
        assertThat(client.getConfigValue("metastore.batch.retrieve.max", "x")).isEqualTo("300");
        assertThat(client.getConfigValue("hive.txn.timeout", "x")).isEqualTo("300s");
        assertThat(client.getConfigValue("hive.some.unknown.key", "fallback")).isEqualTo("fallback");
        assertThatThrownBy(() -> client.getConfigValue("javax.jdo.option.ConnectionPassword", "x"))
                .isInstanceOf(ConfigValSecurityException.class)
                .hasMessage("For security reasons, the config key javax.jdo.option.ConnectionPassword cannot be"
                        + " accessed");
    }

    @Test
    void metaConfSettingsBelongToTheirConnection() throws Exception {
        HiveMetaStoreClient first = hms.newClient();
        HiveMetaStoreClient second = hms.newClient();
        assertThat(first.getMetaConf("metastore.try.direct.sql")).isEqualTo("true");
        first.setMetaConf("metastore.try.direct.sql", "false");
        first.setMetaConf("hive.metastore.client.socket.timeout", "20s");
        assertThat(first.getMetaConf("metastore.try.direct.sql")).isEqualTo("false");
        assertThat(first.getMetaConf("hive.metastore.client.socket.timeout")).isEqualTo("20s");
        assertThat(second.getMetaConf("metastore.try.direct.sql")).isEqualTo("true");
        // The server's value is not the connection's.
        assertThat(first.getConfigValue("metastore.try.direct.sql", "x")).isEqualTo("true");

        assertThatThrownBy(() -> first.setMetaConf("metastore.warehouse.dir", "/tmp"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid configuration key metastore.warehouse.dir");
        assertThatThrownBy(() -> first.getMetaConf("no.such.key"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid configuration key no.such.key");
        assertThatThrownBy(() -> first.setMetaConf("metastore.client.socket.timeout", "-1"))
                .isInstanceOf(MetaException.class)
                .hasMessage("The reset timeout value should be larger than 0: -1000");
        assertThat(first.getMetaConf("metastore.try.direct.sql")).isEqualTo("false");
    }

    @Test
    void theMetastoreIdIsOneStableUuidAndFlushCacheChangesNothing() throws Exception {
        String id = client.getMetastoreDbUuid();
        assertThat(UUID.fromString(id).toString()).isEqualTo(id);
        client.flushCache();
        assertThat(hms.newClient().getMetastoreDbUuid()).isEqualTo(id);
        raw.flushCache();
        assertThat(raw.get_metastore_db_uuid()).isEqualTo(id);
    }

    @Test
    void partitionsAreMarkedForEvents() throws Exception {
        client.createDatabase(database("h3_marks"));
        client.createTable(table(
                "h3_marks",
                "parts",
                TableType.EXTERNAL_TABLE,
                new FieldSchema("ds", "string", null),
                new FieldSchema("hr", "int", null)));
        client.createTable(table("h3_marks", "plain", TableType.EXTERNAL_TABLE));
        Map<String, String> spec = Map.of("ds", "2025-01-01", "hr", "3");

        assertThat(client.isPartitionMarkedForEvent("h3_marks", "parts", spec, PartitionEventType.LOAD_DONE))
                .isFalse();
        client.markPartitionForEvent("h3_marks", "parts", spec, PartitionEventType.LOAD_DONE);
        assertThat(client.isPartitionMarkedForEvent("h3_marks", "parts", spec, PartitionEventType.LOAD_DONE))
                .isTrue();
        assertThat(client.isPartitionMarkedForEvent(
                        "h3_marks", "parts", Map.of("ds", "2025-01-01", "hr", "4"), PartitionEventType.LOAD_DONE))
                .isFalse();
        client.markPartitionForEvent("h3_marks", "plain", Map.of(), PartitionEventType.LOAD_DONE);
        assertThat(client.isPartitionMarkedForEvent("h3_marks", "plain", Map.of(), PartitionEventType.LOAD_DONE))
                .isTrue();

        assertThatThrownBy(() -> client.markPartitionForEvent("h3_marks", "nope", spec, PartitionEventType.LOAD_DONE))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("Table: nope is not found.");
        assertThatThrownBy(() -> client.markPartitionForEvent(
                        "h3_marks", "parts", Map.of("ds", "x"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(InvalidPartitionException.class)
                .hasMessage("Number of partition columns in table: 2 doesn't match with number of supplied partition"
                        + " values: 1");
        assertThatThrownBy(() -> client.isPartitionMarkedForEvent(
                        "h3_marks", "parts", Map.of("ds", "x", "hour", "1"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(InvalidPartitionException.class)
                .hasMessage("No value found for partition column: hr");

        // A dropped table takes its marks; one made again under the name starts without.
        client.dropTable("h3_marks", "parts");
        client.createTable(table(
                "h3_marks",
                "parts",
                TableType.EXTERNAL_TABLE,
                new FieldSchema("ds", "string", null),
                new FieldSchema("hr", "int", null)));
        assertThat(client.isPartitionMarkedForEvent("h3_marks", "parts", spec, PartitionEventType.LOAD_DONE))
                .isFalse();
        assertThat(client.getAllTables("h3_marks")).containsExactlyInAnyOrder("parts", "plain");
    }
}
