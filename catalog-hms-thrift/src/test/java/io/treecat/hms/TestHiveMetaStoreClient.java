package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Hive 4's own HiveMetaStoreClient against the server. */
class TestHiveMetaStoreClient {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    @Test
    void databasesThroughHivesClient() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
        assertThat(client.getAllDatabases()).containsExactly("default", "sales");
        assertThat(client.getDatabase("sales").getName()).isEqualTo("sales");

        Table table = new Table();
        table.setDbName("sales");
        table.setTableName("orders");
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(List.of());
        table.setParameters(new HashMap<>(Map.of("table_type", "ICEBERG", "metadata_location", "v1")));
        client.createTable(table);
        assertThat(client.getAllTables("sales")).containsExactly("orders");
        assertThat(client.getTables("sales", "ord*")).containsExactly("orders");
        assertThat(client.getTables("sales", "x*")).isEmpty();
        Table read = client.getTable("sales", "orders");
        assertThat(read.getSd().getCols()).extracting(FieldSchema::getName).containsExactly("id");
        assertThat(read.getParameters()).containsEntry("metadata_location", "v1");

        read.getParameters().put("metadata_location", "v2");
        EnvironmentContext swap = new EnvironmentContext(
                new HashMap<>(Map.of("expected_parameter_key", "metadata_location", "expected_parameter_value", "v1")));
        client.alter_table_with_environmentContext("sales", "orders", read, swap);
        assertThat(client.getTable("sales", "orders").getParameters()).containsEntry("metadata_location", "v2");
        assertThatThrownBy(() -> client.alter_table_with_environmentContext("sales", "orders", read, swap))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("The table has been modified");

        client.dropTable("sales", "orders");
        assertThat(client.getAllTables("sales")).isEmpty();
        assertThatThrownBy(() -> client.getTable("sales", "orders")).isInstanceOf(NoSuchObjectException.class);
        client.dropDatabase("sales", true, true, true);
        assertThat(client.getAllDatabases()).containsExactly("default");
    }
}
