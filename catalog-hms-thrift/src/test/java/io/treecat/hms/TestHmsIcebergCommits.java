package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every failed move of an Iceberg table's {@code metadata_location} answers Hive's "The table has
 * been modified" message, the one failure Iceberg's HiveCatalog retries (HmsIcebergCommits).
 */
class TestHmsIcebergCommits {
    private static final String MODIFIED =
            "The table has been modified. The parameter value for key 'metadata_location' is '";

    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private ThriftHiveMetastore.Client client() throws Exception {
        return hms.client();
    }

    private Table icebergTable(ThriftHiveMetastore.Client client) throws Exception {
        Database db = new Database();
        db.setName("db");
        client.create_database(db);
        Table table = new Table();
        table.setDbName("db");
        table.setTableName("t");
        table.setTableType("EXTERNAL_TABLE");
        table.setParameters(new HashMap<>(Map.of("table_type", "ICEBERG", "metadata_location", "v1")));
        client.create_table(table);
        return client.get_table_req(new GetTableRequest("db", "t")).getTable();
    }

    private static EnvironmentContext swap(String expected) {
        return new EnvironmentContext(new HashMap<>(
                Map.of("expected_parameter_key", "metadata_location", "expected_parameter_value", expected)));
    }

    @Test
    void everyLoserOfARacedSwapIsToldTheWinnersPointer() throws Exception {
        Table base = icebergTable(client());
        int writers = 8;
        List<ThriftHiveMetastore.Client> clients = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            clients.add(client());
        }
        CyclicBarrier barrier = new CyclicBarrier(writers);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<String> losers = new ArrayList<>();
        try {
            List<Future<String>> outcomes = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                ThriftHiveMetastore.Client client = clients.get(i);
                Table next = base.deepCopy();
                next.getParameters().put("metadata_location", "v2-" + i);
                outcomes.add(pool.submit(() -> {
                    barrier.await();
                    try {
                        client.alter_table_with_environment_context("db", "t", next, swap("v1"));
                        return null;
                    } catch (MetaException e) {
                        return e.getMessage();
                    }
                }));
            }
            for (Future<String> outcome : outcomes) {
                if (outcome.get() != null) {
                    losers.add(outcome.get());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        String winner = client().get_table_req(new GetTableRequest("db", "t"))
                .getTable()
                .getParameters()
                .get("metadata_location");
        assertThat(losers)
                .hasSize(writers - 1)
                .allSatisfy(message ->
                        assertThat(message).isEqualTo(MODIFIED + winner + "'. The expected was value was 'v1'"));
    }

    @Test
    void aPointerMoveWithoutExpectedParameterMustStartFromTheCurrentPointer() throws Exception {
        ThriftHiveMetastore.Client client = client();
        Table base = icebergTable(client);
        // With HMS locks Iceberg sends no expected parameter, but names where it started from.
        Table next = base.deepCopy();
        next.getParameters().put("metadata_location", "v2");
        next.getParameters().put("previous_metadata_location", "v1");
        client.alter_table_with_environment_context("db", "t", next, null);

        // A writer that started from v1 (another engine moved the pointer meanwhile) would lose v2.
        Table stale = base.deepCopy();
        stale.getParameters().put("metadata_location", "v3");
        stale.getParameters().put("previous_metadata_location", "v1");
        assertThatThrownBy(() -> client.alter_table_with_environment_context("db", "t", stale, null))
                .isInstanceOf(MetaException.class)
                .hasMessage(MODIFIED + "v2'. The expected was value was 'v1'");
        assertThat(client.get_table_req(new GetTableRequest("db", "t"))
                        .getTable()
                        .getParameters())
                .containsEntry("metadata_location", "v2");

        // An alter that leaves the pointer alone, or a table that is not Iceberg's, is not checked.
        Table current = client.get_table_req(new GetTableRequest("db", "t")).getTable();
        current.getParameters().put("owner-note", "x");
        current.getParameters().put("previous_metadata_location", "v0");
        client.alter_table_with_environment_context("db", "t", current, null);
        assertThat(client.get_table_req(new GetTableRequest("db", "t"))
                        .getTable()
                        .getParameters())
                .containsEntry("owner-note", "x");
    }
}
