package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.PartitionEventsEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.ConfigValSecurityException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.InvalidPartitionException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The configuration calls ({@code get_config_value}, {@code getMetaConf}/{@code setMetaConf} per connection,
 * {@code get_metastore_db_uuid}, {@code flushCache}) and Hive's partition marks, through Hive 4.1's
 * {@code HiveMetaStoreClient} and the raw Thrift client.
 */
class TestHmsConfigAndPartitionEvents {
    private static final Map<String, String> SPEC = Map.of("ds", "2025-01-01", "hr", "7");

    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    @Test
    void configValuesAreHivesForTheKeysHiveLetsClientsRead() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        ThriftHiveMetastore.Client raw = hms.client();

        assertThat(client.getConfigValue("hive.metastore.try.direct.sql", "x")).isEqualTo("true");
        assertThat(client.getConfigValue("metastore.client.socket.timeout", "x"))
                .isEqualTo("600s");
        assertThat(client.getConfigValue("hive.exec.default.partition.name", "x"))
                .isEqualTo("__HIVE_DEFAULT_PARTITION__");
        assertThat(client.getConfigValue("metastore.batch.retrieve.max", "x")).isEqualTo("300");
        assertThat(client.getConfigValue("hive.txn.timeout", "x")).isEqualTo("300s");
        String warehouse = hms.warehouse().replaceAll("/$", "") + "/warehouse";
        assertThat(client.getConfigValue("hive.metastore.warehouse.dir", "x")).isEqualTo(warehouse);
        assertThat(client.getConfigValue("hive.some.unknown.key", "fallback")).isEqualTo("fallback");
        assertThat(raw.get_config_value(null, "fallback")).isEqualTo("fallback");
        for (String secret : List.of("javax.jdo.option.ConnectionPassword", "fs.s3a.secret.key", "")) {
            assertThatThrownBy(() -> client.getConfigValue(secret, "x"))
                    .isInstanceOf(ConfigValSecurityException.class)
                    .hasMessage("For security reasons, the config key " + secret + " cannot be accessed");
        }
        assertThat(raw.get_config_value("metastore.try.direct.sql.ddl", "x")).isEqualTo("true");
    }

    @Test
    void metaConfSettingsBelongToTheirConnection() throws Exception {
        ThriftHiveMetastore.Client first = hms.client();
        ThriftHiveMetastore.Client second = hms.client();

        assertThat(first.getMetaConf("metastore.try.direct.sql")).isEqualTo("true");
        assertThat(first.getMetaConf("hive.metastore.expression.proxy"))
                .isEqualTo("org.apache.hadoop.hive.ql.optimizer.ppr.PartitionExpressionForMetastore");
        first.setMetaConf("metastore.try.direct.sql", "false");
        first.setMetaConf("hive.metastore.client.socket.timeout", "20s");

        assertThat(first.getMetaConf("metastore.try.direct.sql")).isEqualTo("false");
        // The key as spelled: the Hive name of the same setting is another key, as in Hive.
        assertThat(first.getMetaConf("hive.metastore.try.direct.sql")).isEqualTo("true");
        assertThat(first.getMetaConf("hive.metastore.client.socket.timeout")).isEqualTo("20s");
        assertThat(second.getMetaConf("metastore.try.direct.sql")).isEqualTo("true");
        assertThat(first.get_config_value("metastore.try.direct.sql", "x")).isEqualTo("true");
        // A new connection starts from the server's settings.
        HiveMetaStoreClient client = hms.hiveClient();
        assertThat(client.getMetaConf("metastore.try.direct.sql")).isEqualTo("true");
        client.setMetaConf("metastore.client.capability.check", "false");
        assertThat(client.getMetaConf("metastore.client.capability.check")).isEqualTo("false");
    }

    @Test
    void badMetaConfCallsAreMetaExceptionsAsInHive() throws Exception {
        ThriftHiveMetastore.Client raw = hms.client();
        for (String key : List.of("nope", "metastore.warehouse.dir", "hive.exec.default.partition.name", "")) {
            assertThatThrownBy(() -> raw.getMetaConf(key))
                    .isInstanceOf(MetaException.class)
                    .hasMessage("Invalid configuration key " + key);
            assertThatThrownBy(() -> raw.setMetaConf(key, "x"))
                    .isInstanceOf(MetaException.class)
                    .hasMessage("Invalid configuration key " + key);
        }
        assertThatThrownBy(() -> raw.getMetaConf(null))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid configuration key null");
        String timeout = "metastore.client.socket.timeout";
        assertThatThrownBy(() -> raw.setMetaConf(timeout, "abc"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid configuration value abc for key " + timeout + " by Invalid time unit abc");
        assertThatThrownBy(() -> raw.setMetaConf(timeout, "12parsecs"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Invalid configuration value 12parsecs for key " + timeout + " by Invalid time unit parsecs");
        assertThatThrownBy(() -> raw.setMetaConf(timeout, "-1"))
                .isInstanceOf(MetaException.class)
                .hasMessage("The reset timeout value should be larger than 0: -1000");
        assertThatThrownBy(() -> raw.setMetaConf(timeout, null))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid configuration value null for key " + timeout);
        assertThat(raw.getMetaConf(timeout)).isEqualTo("600s");
        raw.setMetaConf(timeout, "2min");
        assertThat(raw.getMetaConf(timeout)).isEqualTo("2min");
    }

    @Test
    void theMetastoreIdIsOneUuidKeptInTheTree() throws Exception {
        String uuid = hms.hiveClient().getMetastoreDbUuid();

        assertThat(UUID.fromString(uuid).toString()).isEqualTo(uuid);
        assertThat(hms.client().get_metastore_db_uuid()).isEqualTo(uuid);
        assertThat(CatalogEntry.decode(hms.catalog()
                                .get(ObjectPath.of("warehouse"), ReadPoint.LATEST)
                                .orElseThrow()
                                .value())
                        .hmsMetastoreUuid())
                .isEqualTo(uuid);
        // flushCache: nothing to flush, nothing changes.
        long before = hms.catalog().lastVid();
        hms.hiveClient().flushCache();
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(hms.client().get_metastore_db_uuid()).isEqualTo(uuid);
    }

    @Test
    void partitionsAreMarkedAndTheMarksLiveWithTheirTable() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        client.createTable(table("default", "parts", true));
        client.createTable(table("default", "plain", false));

        assertThat(client.isPartitionMarkedForEvent("default", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isFalse();
        client.markPartitionForEvent("default", "parts", SPEC, PartitionEventType.LOAD_DONE);
        assertThat(client.isPartitionMarkedForEvent("default", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isTrue();
        assertThat(client.isPartitionMarkedForEvent("DEFAULT", "PARTS", SPEC, PartitionEventType.LOAD_DONE))
                .isTrue();
        assertThat(client.isPartitionMarkedForEvent(
                        "default", "parts", Map.of("ds", "2025-01-01", "hr", "8"), PartitionEventType.LOAD_DONE))
                .isFalse();
        // Marking again renews the mark; an unpartitioned table is marked with an empty spec.
        client.markPartitionForEvent("default", "parts", SPEC, PartitionEventType.LOAD_DONE);
        client.markPartitionForEvent("default", "plain", Map.of(), PartitionEventType.LOAD_DONE);
        assertThat(client.isPartitionMarkedForEvent("default", "plain", Map.of(), PartitionEventType.LOAD_DONE))
                .isTrue();
        ObjectPath marks = ObjectPath.of("warehouse", "default", "parts", ".partition_events");
        assertThat(PartitionEventsEntry.decode(hms.catalog()
                                .get(marks, ReadPoint.LATEST)
                                .orElseThrow()
                                .value())
                        .marks())
                .singleElement()
                .satisfies(mark -> assertThat(mark.partition()).isEqualTo("ds=2025-01-01/hr=7"));
        // Partitions are still only the partitions.
        assertThat(client.listPartitionNames("default", "parts", (short) -1)).isEmpty();

        // A renamed table keeps its marks; a dropped one takes them along.
        Table renamed = client.getTable("default", "parts");
        renamed.setTableName("parts2");
        client.alter_table("default", "parts", renamed);
        assertThat(client.isPartitionMarkedForEvent("default", "parts2", SPEC, PartitionEventType.LOAD_DONE))
                .isTrue();
        client.dropTable("default", "parts2");
        client.createTable(table("default", "parts2", true));
        assertThat(client.isPartitionMarkedForEvent("default", "parts2", SPEC, PartitionEventType.LOAD_DONE))
                .isFalse();
    }

    @Test
    void marksInAnotherCatalogAndBadMarksGetHivesExceptions() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        ThriftHiveMetastore.Client raw = hms.client();
        client.createCatalog(new Catalog("c1", hms.warehouse().replaceAll("/$", "") + "/c1"));
        Table inC1 = table("default", "parts", true);
        inC1.setCatName("c1");
        client.createTable(inC1);
        client.createTable(table("default", "parts", true));
        raw.markPartitionForEvent("@c1#default", "parts", SPEC, PartitionEventType.LOAD_DONE);
        assertThat(raw.isPartitionMarkedForEvent("@c1#default", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isTrue();
        assertThat(raw.isPartitionMarkedForEvent("default", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isFalse();
        long before = hms.catalog().lastVid();

        for (String table : List.of("nope", "NOPE")) {
            assertThatThrownBy(() -> client.markPartitionForEvent("default", table, SPEC, PartitionEventType.LOAD_DONE))
                    .isInstanceOf(UnknownTableException.class)
                    .hasMessage("Table: " + table + " is not found.");
        }
        assertThatThrownBy(() -> raw.isPartitionMarkedForEvent("nodb", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("Table: parts is not found.");
        assertThatThrownBy(
                        () -> raw.markPartitionForEvent("@nope#default", "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isInstanceOf(UnknownTableException.class)
                .hasMessage("Table: parts is not found.");
        assertThatThrownBy(() ->
                        raw.markPartitionForEvent("default", "parts", Map.of("ds", "x"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(InvalidPartitionException.class)
                .hasMessage("Number of partition columns in table: 2 doesn't match with number of supplied partition"
                        + " values: 1");
        assertThatThrownBy(() -> raw.isPartitionMarkedForEvent(
                        "default", "parts", Map.of("ds", "x", "nope", "1"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(InvalidPartitionException.class)
                .hasMessage("No value found for partition column: hr");
        assertThatThrownBy(() -> raw.markPartitionForEvent(
                        "default", "parts", Map.of("DS", "x", "hr", "1"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(InvalidPartitionException.class)
                .hasMessage("No value found for partition column: ds");
        assertThatThrownBy(() -> raw.markPartitionForEvent("default", "parts", null, PartitionEventType.LOAD_DONE))
                .isInstanceOf(MetaException.class)
                .hasMessage("No partition spec given");
        assertThatThrownBy(() -> raw.markPartitionForEvent("default", "parts", SPEC, null))
                .isInstanceOf(MetaException.class)
                .hasMessage("No partition event type given");
        assertThatThrownBy(() -> raw.isPartitionMarkedForEvent(null, "parts", SPEC, PartitionEventType.LOAD_DONE))
                .isInstanceOf(MetaException.class)
                .hasMessage("No database or table name given");
        String huge = "v".repeat(800);
        assertThatThrownBy(() -> raw.markPartitionForEvent(
                        "default", "parts", Map.of("ds", huge, "hr", "1"), PartitionEventType.LOAD_DONE))
                .isInstanceOf(MetaException.class)
                .hasMessage("Partition name ds=" + "v".repeat(29) + "… is longer than 767 characters");
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(raw.get_all_databases()).containsExactly("default");
    }

    private static Table table(String db, String name, boolean partitioned) {
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(
                partitioned
                        ? List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null))
                        : List.of());
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE")));
        return table;
    }

    @Test
    void aDatabaseInAnotherCatalogIsNamedWithItsCatalog() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        client.createCatalog(new Catalog("c2", hms.warehouse().replaceAll("/$", "") + "/c2"));
        Database db = new Database();
        db.setName("d");
        db.setCatalogName("c2");
        client.createDatabase(db);
        assertThat(client.getDatabase("c2", "d").getCatalogName()).isEqualTo("c2");
        assertThat(hms.client().get_database("@c2#d").getCatalogName()).isEqualTo("c2");
    }
}
