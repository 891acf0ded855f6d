package io.treecat.spark;

import static io.treecat.spark.SparkRows.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.e2e.trino.TrinoEnvironment;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino 476's Iceberg connector with its native S3 file system on a TreeCat catalog whose warehouse is a bucket of
 * moto's server, with <b>vended credentials</b> (issue 17): Trino's catalog file has the store's endpoint, region and
 * path style but no key, and Trino's process sees no machine credentials either ({@code TrinoServer} empties the AWS
 * SDK's default chain). Every key Trino signs with is an STS AssumeRole key TreeCat put in the table's load response;
 * moto checks each request's key (IAM checks on). The catalog's own key is in the TreeCat process's environment only.
 *
 * <p>One Trino (trino-e2e's {@link TrinoEnvironment}, started on this test's TreeCat) with two catalogs on the same
 * REST catalog: {@value #TRINO} asks for vended credentials, {@value #TRINO_NO_KEYS} does not and so has no key at all,
 * which shows the vended keys are what {@value #TRINO} read and wrote with. Spark (in this JVM, also with vended
 * credentials) writes a table Trino reads.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IcebergRestVendedTrinoIT {
    private static final String BUCKET = "lake";
    /** TreeCat's catalog (the REST prefix), Trino's {@code iceberg.rest-catalog.warehouse} and Spark's warehouse. */
    private static final String WAREHOUSE = "lake";

    private static final String TRINO = "lake";
    private static final String TRINO_NO_KEYS = "lake_no_keys";
    private static final String SPARK = "vended";
    private static final String SCHEMA = "trino_s3";
    private static final String ORDERS = TRINO + "." + SCHEMA + ".orders";

    @TempDir
    static Path directory;

    private static MotoStore store;
    private static TreeCatServerProcess server;
    private static TrinoEnvironment trino;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        store = new MotoStore(directory, BUCKET);
        server = store.startVendingServer(directory, WAREHOUSE, BUCKET);
        URI restUri = URI.create(server.restUri());
        // docs/engines.md's catalog file for Trino 476 on an object store: the store's address, no key.
        Map<String, String> noKeys = Map.of(
                "iceberg.rest-catalog.warehouse", WAREHOUSE,
                "fs.native-s3.enabled", "true",
                "s3.endpoint", store.endpoint(),
                "s3.region", "us-east-1",
                "s3.path-style-access", "true");
        Map<String, String> vended = new HashMap<>(noKeys);
        vended.put("iceberg.rest-catalog.vended-credentials-enabled", "true");
        trino = TrinoEnvironment.startOn(
                restUri,
                Map.of(
                        TRINO, TrinoEnvironment.icebergRestCatalog(restUri, vended),
                        TRINO_NO_KEYS, TrinoEnvironment.icebergRestCatalog(restUri, noKeys)));
        String prefix = "spark.sql.catalog." + SPARK;
        spark = SparkSessions.local("treecat-vended-trino", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
                .config(prefix + ".type", "rest")
                .config(prefix + ".uri", server.restUri())
                .config(prefix + ".warehouse", WAREHOUSE)
                .config(prefix + ".cache-enabled", "false")
                .config(prefix + ".header.X-Iceberg-Access-Delegation", "vended-credentials")
                .getOrCreate();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (trino != null) {
                trino.close();
            }
        } finally {
            try {
                SparkSessions.stop("IcebergRestVendedTrinoIT", spark, server);
            } finally {
                if (store != null) {
                    store.close();
                }
            }
        }
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    @Test
    @Order(1)
    void trinoCreatesInsertsAndReadsAPartitionedTableWithVendedCredentials() throws Exception {
        trino.execute("CREATE SCHEMA " + TRINO + "." + SCHEMA);
        trino.execute("CREATE TABLE " + ORDERS + " (id BIGINT, region VARCHAR, amount DECIMAL(10,2)) "
                + "WITH (partitioning = ARRAY['region'])");
        // moto records the inserts' requests: which key each of Trino's writes was signed with.
        store.startRecording();
        assertThat(trino.execute(
                        "INSERT INTO " + ORDERS + " VALUES (1, 'eu', 10.50), (2, 'us', 20.25), (3, 'eu', 5.00)"))
                .isEqualTo(3);
        assertThat(trino.query("SELECT id, region, amount FROM " + ORDERS + " ORDER BY id"))
                .isEqualTo(List.of(
                        List.of(1L, "eu", new BigDecimal("10.50")),
                        List.of(2L, "us", new BigDecimal("20.25")),
                        List.of(3L, "eu", new BigDecimal("5.00"))));

        assertThat(trino.execute("INSERT INTO " + ORDERS + " VALUES (4, 'apac', 99.99), (5, 'us', 1.01)"))
                .isEqualTo(2);
        store.stopRecording();
        assertThat(trino.query("SELECT count(*) FROM " + ORDERS)).isEqualTo(List.of(List.of(5L)));
        assertThat(trino.query("SELECT region, count(*), sum(amount) FROM " + ORDERS + " GROUP BY region ORDER BY 1"))
                .isEqualTo(List.of(
                        List.of("apac", 1L, new BigDecimal("99.99")),
                        List.of("eu", 2L, new BigDecimal("15.50")),
                        List.of("us", 2L, new BigDecimal("21.26"))));
        // Each INSERT is one snapshot (Trino's CREATE TABLE commits an empty one before them).
        assertThat(trino.query("SELECT summary['added-records'] FROM " + TRINO + "." + SCHEMA
                        + ".\"orders$snapshots\" ORDER BY committed_at DESC LIMIT 2"))
                .isEqualTo(List.of(List.of("2"), List.of("3")));

        // Trino wrote the data files itself, into the bucket under the schema's location TreeCat answered, one
        // directory per partition; the metadata files are TreeCat's.
        List<String> keys = store.keys(BUCKET, "warehouse/" + SCHEMA + "/orders");
        assertThat(keys)
                .anyMatch(key -> key.matches("warehouse/" + SCHEMA + "/orders[^/]*/data/region=eu/[^/]+\\.parquet"))
                .anyMatch(key -> key.matches("warehouse/" + SCHEMA + "/orders[^/]*/data/region=apac/[^/]+\\.parquet"))
                .anyMatch(key -> key.endsWith(".metadata.json"));

        // Every file Trino wrote (data files, manifests, manifest lists, statistics: all but TreeCat's metadata files)
        // was signed with the key TreeCat vends for this table: its credentials route answers the same cached STS
        // credentials.
        String vendedKeyId = vendedAccessKeyId(SCHEMA, "orders");
        assertThat(vendedKeyId).isNotEqualTo(store.accessKeyId());
        List<String> trinoWrites = new ArrayList<>();
        for (JsonNode request : store.recordedRequests()) {
            String url = request.path("url").asText();
            if (request.path("method").asText().equals("PUT")
                    && url.contains("/" + BUCKET + "/warehouse/" + SCHEMA + "/orders")
                    && !url.contains(".metadata.json")) {
                trinoWrites.add(url);
                assertThat(request.path("headers").path("Authorization").asText())
                        .as("signature of PUT %s", url)
                        .contains("Credential=" + vendedKeyId + "/");
            }
        }
        assertThat(trinoWrites)
                .anyMatch(url -> url.contains("/data/region") && url.endsWith(".parquet"))
                .anyMatch(url -> url.contains("/metadata/snap-") && url.endsWith(".avro"));
    }

    /** The key id of the credentials TreeCat vends for a table now, from its credentials route. */
    private static String vendedAccessKeyId(String namespace, String table) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.restUri() + "/v1/" + WAREHOUSE + "/namespaces/"
                                        + namespace + "/tables/" + table + "/credentials"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode credentials = new ObjectMapper().readTree(response.body()).path("storage-credentials");
        assertThat(credentials).hasSize(1);
        return credentials.get(0).path("config").path("s3.access-key-id").asText();
    }

    @Test
    @Order(2)
    void trinoReadsAndAppendsToATableSparkWroteWithVendedCredentials() throws SQLException {
        String sparkEvents = SPARK + "." + SCHEMA + ".events";
        String trinoEvents = TRINO + "." + SCHEMA + ".events";
        spark.sql("CREATE TABLE " + sparkEvents + " (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
        spark.sql("INSERT INTO " + sparkEvents + " VALUES (1, 'click'), (2, 'view'), (3, 'click')");

        List<List<Object>> sparkRows = rows(spark, "SELECT id, kind FROM " + sparkEvents + " ORDER BY id");
        assertThat(sparkRows).hasSize(3);
        assertThat(trino.query("SELECT id, kind FROM " + trinoEvents + " ORDER BY id"))
                .isEqualTo(sparkRows);

        // And back: Trino's commit on Spark's table, read by Spark with its own vended credentials.
        assertThat(trino.execute("INSERT INTO " + trinoEvents + " VALUES (4, 'buy')"))
                .isEqualTo(1);
        assertThat(rows(spark, "SELECT count(*) FROM " + sparkEvents)).isEqualTo(List.of(List.of(4L)));
    }

    @Test
    @Order(3)
    void trinoWithoutVendedCredentialsHasNoKeyAndCannotReadTheTable() throws SQLException {
        // The catalog itself answers: the same REST catalog, the table listed and loaded.
        assertThat(trino.query("SHOW TABLES FROM " + TRINO_NO_KEYS + "." + SCHEMA))
                .contains(List.of("orders"));
        // Its files are out of reach: without the delegation header TreeCat vends nothing, and Trino has no key, so
        // its S3 client refuses the first read (the manifest list) before sending it. The causes travel with the error.
        assertThatThrownBy(() -> trino.query("SELECT id FROM " + TRINO_NO_KEYS + "." + SCHEMA + ".orders"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("Error processing metadata for table " + SCHEMA + ".orders")
                .hasStackTraceContaining(
                        "S3 HEAD request failed for file: s3://" + BUCKET + "/warehouse/" + SCHEMA + "/orders")
                .hasStackTraceContaining("Unable to load credentials from any of the providers in the chain");
        // The same table still reads with the vended keys.
        assertThat(trino.query("SELECT count(*) FROM " + ORDERS)).isEqualTo(List.of(List.of(5L)));
    }

    @Test
    @Order(4)
    void catalogKeyStaysInTheServer() throws Exception {
        assertThat(server.log()).doesNotContain(store.secretAccessKey());
        assertThat(Files.readString(trino.trinoLog())).doesNotContain(store.secretAccessKey());
    }
}
