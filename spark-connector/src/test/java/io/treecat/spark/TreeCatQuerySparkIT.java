package io.treecat.spark;

import static io.treecat.spark.SparkRows.row;
import static io.treecat.spark.SparkRows.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark SQL over the catalog's tree with {@code treecat_query} ({@link TreeCatSparkExtensions}): rows and
 * values, filters pushed into the path query (seen in {@code EXPLAIN}) only where that keeps Spark's answer,
 * columns pruned to the query's {@code fields}, reads at a vid, the JSON form, and the errors.
 */
class TreeCatQuerySparkIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;
    private static long loadedVid;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        spark = SparkSessions.local("treecat-query", directory)
                .config(
                        "spark.sql.extensions",
                        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                                + TreeCatSparkExtensions.class.getName())
                .config("spark.sql.catalog.lake", TreeCatCatalog.class.getName())
                .config("spark.sql.catalog.lake.uri", server.restUri())
                .getOrCreate();
        // Four files in two days of /retail/sales; values as a catalog's file objects hold them.
        loadedVid = load(
                "{\"path\": \"/retail\", \"kind\": \"inner\", \"value\": {\"owner\": \"shop\"}}",
                "{\"path\": \"/retail/sales\", \"kind\": \"inner\", \"value\": {}}",
                "{\"path\": \"/retail/sales/2025-01-01\", \"kind\": \"inner\", \"value\": {}}",
                "{\"path\": \"/retail/sales/2025-01-02\", \"kind\": \"inner\", \"value\": {}}",
                file("2025-01-01", "f1.parquet", 3, "eu"),
                file("2025-01-01", "f2.parquet", 6, "us"),
                file("2025-01-02", "f3.parquet", 9, "eu"),
                file("2025-01-02", "f4.parquet", 12, "eu"),
                // A field that is a number in one object and a string in another.
                "{\"path\": \"/mixed\", \"kind\": \"inner\", \"value\": {}}",
                "{\"path\": \"/mixed/a\", \"kind\": \"leaf\", \"value\": {\"n\": 7}}",
                "{\"path\": \"/mixed/b\", \"kind\": \"leaf\", \"value\": {\"n\": \"7\"}}");
    }

    private static String file(String day, String name, int min, String region) {
        return String.format(
                "{\"path\": \"/retail/sales/%s/%s\", \"kind\": \"leaf\", \"value\": {\"obj_type\": \"file\","
                        + " \"region\": \"%s\", \"stats\": {\"price\": {\"min\": %d, \"max\": %d}}}}",
                day, name, region, min, min + 10);
    }

    /** Loads JSON lines through the native API; answers the last vid. */
    private static long load(String... lines) throws Exception {
        HttpResponse<String> loaded = HTTP.send(
                HttpRequest.newBuilder(URI.create(server.restUri() + "/treecat/v1/load"))
                        .header("Content-Type", "application/x-ndjson")
                        .POST(HttpRequest.BodyPublishers.ofString(String.join("\n", lines) + "\n"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(loaded.body());
        return answer.get("lastVid").asLong();
    }

    @AfterAll
    static void stop() throws Exception {
        SparkSessions.stop("TreeCatQuerySparkIT", spark, server);
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    private static String explain(String sql) {
        return spark.sql(sql)
                .queryExecution()
                .explainString(org.apache.spark.sql.execution.ExplainMode.fromString("extended"));
    }

    @Test
    void aPathQuerysObjectsAreRowsWithTheirValues() {
        assertThat(rows(
                        spark,
                        "SELECT path, id, type, value.region, value.stats.price.min FROM "
                                + "treecat_query('/[obj_id=\"retail\"]/*/*/*') ORDER BY path"))
                .containsExactly(
                        row("/retail/sales/2025-01-01/f1.parquet", "f1.parquet", "leaf", "eu", 3L),
                        row("/retail/sales/2025-01-01/f2.parquet", "f2.parquet", "leaf", "us", 6L),
                        row("/retail/sales/2025-01-02/f3.parquet", "f3.parquet", "leaf", "eu", 9L),
                        row("/retail/sales/2025-01-02/f4.parquet", "f4.parquet", "leaf", "eu", 12L));
        // A predicate in the query itself. (Spark SQL joins 'a''b' into 'ab': quote the query's strings with ".)
        assertThat(rows(
                        spark,
                        "SELECT path, value.stats.price.min FROM "
                                + "treecat_query('/[obj_id=\"retail\"]/*/*/[stats.price.min > 5]') ORDER BY path"))
                .containsExactly(
                        row("/retail/sales/2025-01-01/f2.parquet", 6L),
                        row("/retail/sales/2025-01-02/f3.parquet", 9L),
                        row("/retail/sales/2025-01-02/f4.parquet", 12L));
        // Every row carries the vid of its object's version.
        assertThat(rows(spark, "SELECT DISTINCT vid FROM treecat_query('/[obj_id=\"retail\"]/*/*/*')"))
                .containsExactly(row(loadedVid));
    }

    @Test
    void filtersOnIdAndValueFieldsArePushedIntoThePathQuery() {
        String sql = "SELECT id FROM treecat_query('/[obj_id=\"retail\"]/*/*/*') "
                + "WHERE value.stats.price.min > 5 AND value.region = 'eu' ORDER BY id";
        assertThat(rows(spark, sql)).containsExactly(row("f3.parquet"), row("f4.parquet"));
        assertThat(explain(sql))
                .contains("TreeCat path query /[obj_id=\"retail\"]/*/*/[")
                .contains("stats.price.min > 5")
                .contains("region = 'eu'");

        String byId = "SELECT value.stats.price.max FROM treecat_query('/[obj_id=\"retail\"]/*/*/*') "
                + "WHERE id IN ('f1.parquet', 'f4.parquet') ORDER BY 1";
        assertThat(rows(spark, byId)).containsExactly(row(13L), row(22L));
        assertThat(explain(byId)).contains("obj_id in ('f1.parquet', 'f4.parquet')");

        // A query's own last step and a pushed filter are joined with AND.
        String both = "SELECT id FROM treecat_query('/[obj_id=\"retail\"]/*/*/[region = \"eu\"]') "
                + "WHERE value.stats.price.min < 10";
        assertThat(rows(spark, both)).containsExactlyInAnyOrder(row("f1.parquet"), row("f3.parquet"));
        assertThat(explain(both)).contains("[(region = \"eu\") and stats.price.min < 10]");
    }

    @Test
    void aFieldOfMixedTypesIsFilteredBySparkAlone() {
        // n is 7 in one object and '7' in the other: Spark reads it as a string, and both rows match '7'. Pushed,
        // TreeCat would compare the number with the string and drop it, so the filter stays in Spark.
        String sql = "SELECT id FROM treecat_query('/[obj_id=\"mixed\"]/*') WHERE value.n = '7' ORDER BY id";
        assertThat(rows(spark, sql)).containsExactly(row("a"), row("b"));
        assertThat(explain(sql)).contains("TreeCat path query /[obj_id=\"mixed\"]/* at vid");
    }

    @Test
    void onlyTheValueFieldsSparkNeedsAreRead() {
        String sql = "SELECT value.region FROM treecat_query('/[obj_id=\"retail\"]/*/*/*') ORDER BY 1";
        assertThat(rows(spark, sql)).containsExactly(row("eu"), row("eu"), row("eu"), row("us"));
        assertThat(explain(sql)).contains("fields region");
    }

    @Test
    void aVidReadsTheTreeAsItWasAndJsonKeepsTheValueAsText() throws Exception {
        load(
                "{\"path\": \"/retail/sales/2025-01-03\", \"kind\": \"inner\", \"value\": {}}",
                file("2025-01-03", "f5.parquet", 20, "us"));
        assertThat(rows(spark, "SELECT count(*) FROM treecat_query('/[obj_id=\"retail\"]/*/*/*')"))
                .containsExactly(row(5L));
        assertThat(rows(spark, "SELECT count(*) FROM treecat_query('/[obj_id=\"retail\"]/*/*/*', " + loadedVid + ")"))
                .containsExactly(row(4L));
        assertThat(rows(
                        spark,
                        "SELECT get_json_object(value, '$.stats.price.min') FROM "
                                + "treecat_query('/[obj_id=\"retail\"]/*/*/[obj_id=\"f5.parquet\"]', NULL, 'json')"))
                .containsExactly(row("20"));
    }

    @Test
    void badQueriesAndVidsFailTheAnalysisWithTheServersMessage() {
        assertThatThrownBy(() -> spark.sql("SELECT * FROM treecat_query('/[obj_id=\"retail\"')"))
                .isInstanceOf(AnalysisException.class)
                .hasMessageContaining("treecat_query: TreeCat refused the path query /[obj_id=\"retail\"")
                .hasMessageContaining("position");
        assertThatThrownBy(() -> spark.sql("SELECT * FROM treecat_query('/[obj_id=\"retail\"]/*', 999999999)"))
                .isInstanceOf(AnalysisException.class)
                .hasMessageContaining("999999999");
        assertThatThrownBy(() -> spark.sql("SELECT * FROM treecat_query()"))
                .isInstanceOf(AnalysisException.class)
                .hasMessageContaining("treecat_query takes a path query");
        assertThatThrownBy(() -> spark.sql("SELECT * FROM treecat_query('/*', 'x')"))
                .isInstanceOf(AnalysisException.class)
                .hasMessageContaining("the vid must be an integer or NULL");
        List<List<Object>> still = rows(spark, "SELECT count(*) FROM treecat_query('/[obj_id=\"mixed\"]/*')");
        assertThat(still).containsExactly(row(2L));
    }
}
