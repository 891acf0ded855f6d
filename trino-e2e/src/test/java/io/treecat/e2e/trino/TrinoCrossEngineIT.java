package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One table, two protocols: an Iceberg table made over Iceberg REST is an Iceberg table to Hive Metastore clients,
 * and one made through HMS calls is an Iceberg table over REST. TreeCat keeps one object per table with one
 * {@code metadata_location}, so a commit on either side is what the other reads next.
 *
 * <p>Trino's Hive connector cannot create Iceberg tables; the HMS side here is Trino's Iceberg connector on the
 * metastore ({@code iceberg.catalog.type=hive_metastore}, catalog {@value TrinoEnvironment#ICEBERG_HMS}), which
 * registers tables the way Iceberg's HiveCatalog does ({@code table_type=ICEBERG}, {@code metadata_location}). The
 * Hive connector's part is to recognise such a table and redirect to the Iceberg catalog
 * ({@code hive.iceberg-catalog-name}).
 */
@ExtendWith(TrinoEnvironmentExtension.class)
class TrinoCrossEngineIT {
    private static final String NAMESPACE = "/v1/" + TrinoEnvironment.REST_PREFIX + "/namespaces/trino_cross";

    private final TrinoEnvironment trino;

    TrinoCrossEngineIT(TrinoEnvironment trino) {
        this.trino = trino;
    }

    @BeforeAll
    static void createSchema(TrinoEnvironment trino) throws Exception {
        trino.execute("CREATE SCHEMA iceberg.trino_cross");
    }

    @Test
    void icebergTableMadeOverRestIsAnIcebergTableToHiveMetastoreClients() throws Exception {
        trino.execute("CREATE TABLE iceberg.trino_cross.rest_made (id BIGINT, name VARCHAR)");
        trino.execute("INSERT INTO iceberg.trino_cross.rest_made VALUES (1, 'one'), (2, 'two')");
        List<List<Object>> expected = List.of(List.of(1L, "one"), List.of(2L, "two"));

        // The Hive connector lists it, sees table_type=ICEBERG in its HMS parameters and hands the query to the Iceberg
        // catalog.
        assertThat(trino.query("SHOW TABLES FROM hive.trino_cross")).contains(List.of("rest_made"));
        assertThat(trino.query("SELECT id, name FROM hive.trino_cross.rest_made ORDER BY id"))
                .isEqualTo(expected);
        // Iceberg's metastore catalog finds the current metadata file through HMS alone.
        assertThat(trino.query("SELECT id, name FROM iceberg_hms.trino_cross.rest_made ORDER BY id"))
                .isEqualTo(expected);
        assertThat(trino.query("SELECT snapshot_id FROM iceberg_hms.trino_cross.\"rest_made$snapshots\""))
                .isEqualTo(trino.query("SELECT snapshot_id FROM iceberg.trino_cross.\"rest_made$snapshots\""));
    }

    @Test
    void icebergTableMadeThroughHiveMetastoreIsVisibleOverRest() throws Exception {
        trino.execute(
                "CREATE TABLE iceberg_hms.trino_cross.hms_made (id BIGINT, city VARCHAR) WITH (partitioning = ARRAY['city'])");
        trino.execute("INSERT INTO iceberg_hms.trino_cross.hms_made VALUES (1, 'Oslo'), (2, 'Lima')");

        // A plain HTTP GET: the REST catalog loads the table from the metadata file HMS registered.
        JsonNode table = trino.restJson(NAMESPACE + "/tables/hms_made");
        JsonNode metadata = table.path("metadata");
        List<String> columns = new ArrayList<>();
        for (JsonNode schema : metadata.path("schemas")) {
            if (schema.path("schema-id").asInt()
                    == metadata.path("current-schema-id").asInt()) {
                schema.path("fields")
                        .forEach(field -> columns.add(field.path("name").asText() + ":"
                                + field.path("type").asText()));
            }
        }
        assertThat(columns).containsExactly("id:long", "city:string");
        assertThat(metadata.path("partition-specs")
                        .get(0)
                        .path("fields")
                        .get(0)
                        .path("name")
                        .asText())
                .isEqualTo("city");
        assertThat(table.path("metadata-location").asText()).startsWith("file:").endsWith(".metadata.json");
        long hmsSnapshot = (Long) trino.query("SELECT snapshot_id FROM iceberg_hms.trino_cross.\"hms_made$snapshots\" "
                        + "ORDER BY committed_at DESC LIMIT 1")
                .get(0)
                .get(0);
        assertThat(metadata.path("current-snapshot-id").asLong()).isEqualTo(hmsSnapshot);

        // Read over REST, then written over REST and read back through HMS: one table, one current metadata file.
        assertThat(trino.query("SELECT id, city FROM iceberg.trino_cross.hms_made ORDER BY id"))
                .containsExactly(List.of(1L, "Oslo"), List.of(2L, "Lima"));
        trino.execute("INSERT INTO iceberg.trino_cross.hms_made VALUES (3, 'Pune')");
        assertThat(trino.query("SELECT id, city FROM iceberg_hms.trino_cross.hms_made ORDER BY id"))
                .containsExactly(List.of(1L, "Oslo"), List.of(2L, "Lima"), List.of(3L, "Pune"));
        trino.execute("DELETE FROM iceberg_hms.trino_cross.hms_made WHERE city = 'Lima'");
        assertThat(trino.query("SELECT id FROM iceberg.trino_cross.hms_made ORDER BY id"))
                .containsExactly(List.of(1L), List.of(3L));

        trino.execute("DROP TABLE iceberg_hms.trino_cross.hms_made");
        assertThat(trino.restGet(NAMESPACE + "/tables/hms_made").statusCode()).isEqualTo(404);
    }
}
