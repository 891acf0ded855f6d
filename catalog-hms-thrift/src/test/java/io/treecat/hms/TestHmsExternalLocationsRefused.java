package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.lakehouse.storage.ExternalLocations;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server that keeps every location inside the catalog's warehouse ({@code warehouse.allow-external-locations:
 * false}): over Hive 4's client, a database, table or partition placed outside it is refused (Hive's exception type
 * for the call), nothing is stored and no directory is made there; inside, they are made as before.
 */
class TestHmsExternalLocationsRefused {
    private static final String OUTSIDE =
            "Invalid location: it is outside the catalog's warehouse, and this server keeps every location inside it"
                    + " (warehouse.allow-external-locations)";

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withExternalLocations(ExternalLocations.REFUSED);

    @Test
    void locationsOutsideTheWarehouseAreRefused() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Path elsewhere = hms.directory().resolve("elsewhere");
        long vid = hms.catalog().lastVid();

        Database outside = new Database();
        outside.setName("outside");
        outside.setLocationUri(elsewhere.toUri().toString());
        outside.setParameters(new HashMap<>());
        assertThatThrownBy(() -> client.createDatabase(outside))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(OUTSIDE);
        // Another warehouse's directory is outside too, though it shares the root.
        outside.setLocationUri(
                hms.directory().resolve("warehouse/other/outside").toUri().toString());
        assertThatThrownBy(() -> client.createDatabase(outside))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(OUTSIDE);
        assertThat(hms.catalog().lastVid()).isEqualTo(vid);
        assertThat(client.getAllDatabases()).containsExactly("default");

        Database sales = new Database();
        sales.setName("sales");
        sales.setParameters(new HashMap<>());
        client.createDatabase(sales);
        Table table = TestHmsNamesAndLocations.table("sales", "t", "ds");
        table.getSd().setLocation(elsewhere.resolve("t").toUri().toString());
        long afterDatabase = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.createTable(table))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(OUTSIDE);
        assertThat(hms.catalog().lastVid()).isEqualTo(afterDatabase);

        // Inside the warehouse: made, at the place given or the default.
        table.getSd()
                .setLocation(hms.directory()
                        .resolve("warehouse/warehouse/placed")
                        .toUri()
                        .toString());
        client.createTable(table);
        assertThat(hms.directory().resolve("warehouse/warehouse/placed")).isDirectory();

        Partition partition = new Partition();
        partition.setDbName("sales");
        partition.setTableName("t");
        partition.setValues(List.of("1"));
        partition.setSd(client.getTable("sales", "t").getSd().deepCopy());
        partition.getSd().setLocation(elsewhere.resolve("ds=1").toUri().toString());
        long afterTable = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.add_partition(partition))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(OUTSIDE);
        partition.getSd().setLocation(null);
        client.add_partition(partition);
        assertThat(hms.directory().resolve("warehouse/warehouse/placed/ds=1")).isDirectory();

        // Moving a partition outside by alter_partition: refused too (alter_partition declares MetaException).
        Partition moved = client.getPartition("sales", "t", List.of("1"));
        moved.getSd().setLocation(elsewhere.resolve("moved").toUri().toString());
        long afterPartition = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.alter_partition("sales", "t", moved))
                .isInstanceOf(MetaException.class)
                .hasMessage(OUTSIDE);
        assertThat(hms.catalog().lastVid()).isEqualTo(afterPartition);
        assertThat(afterPartition).isGreaterThan(afterTable);

        // Moving a table or a database outside by alter: refused, nothing changed.
        Table movedTable = client.getTable("sales", "t");
        movedTable.getSd().setLocation(elsewhere.resolve("t").toUri().toString());
        assertThatThrownBy(() -> client.alter_table("sales", "t", movedTable))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage(OUTSIDE);
        Database movedDatabase = client.getDatabase("sales");
        movedDatabase.setLocationUri(elsewhere.resolve("sales").toUri().toString());
        assertThatThrownBy(() -> client.alterDatabase("sales", movedDatabase))
                .isInstanceOf(MetaException.class)
                .hasMessage(OUTSIDE);
        assertThat(hms.catalog().lastVid()).isEqualTo(afterPartition);
        // An alter that keeps the location (a client sends the whole struct back) is not refused.
        Table kept = client.getTable("sales", "t");
        kept.getParameters().put("touched", "yes");
        client.alter_table("sales", "t", kept);
        Database keptDatabase = client.getDatabase("sales");
        keptDatabase.setDescription("kept");
        client.alterDatabase("sales", keptDatabase);

        assertThat(elsewhere).doesNotExist();
        assertThat(hms.directory().resolve("warehouse/other")).doesNotExist();
        assertThat(hms.server().isServing()).isTrue();
    }
}
