package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static io.treecat.spark.SparkRows.rows;
import static io.treecat.spark.SparkRows.scalar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark with {@link TreeCatCatalog} against the packaged server: configured with the lines of a REST
 * catalog less the type, Iceberg's own SQL extensions and procedures working through it, and the whole
 * catalog read at one version (a vid, "now", a named snapshot, a time; pinned in SQL) while another catalog of
 * the same session writes the live one.
 */
class TreeCatCatalogSparkIT {
    private static final String LAKE = "lake";
    private static final String LIVE = "live";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        spark = SparkSessions.local("treecat-catalog", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                // docs/engines.md's lines for TreeCatCatalog: the class and the server; the catalog is the default.
                .config("spark.sql.catalog." + LAKE, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + LAKE + ".uri", server.restUri())
                .config("spark.sql.catalog." + LAKE + ".cache-enabled", "false")
                // Another writer on the same TreeCat catalog: Iceberg's plain SparkCatalog.
                .config("spark.sql.catalog." + LIVE, "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog." + LIVE + ".type", "rest")
                .config("spark.sql.catalog." + LIVE + ".uri", server.restUri())
                .config("spark.sql.catalog." + LIVE + ".cache-enabled", "false")
                .getOrCreate();
    }

    @AfterAll
    static void stop() throws Exception {
        SparkSessions.stop("TreeCatCatalogSparkIT", spark, server);
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    private static long count(String table) {
        return (Long) scalar(spark, "SELECT count(*) FROM " + table);
    }

    /** Two tables in one namespace, one row in one, two in the other. */
    private static void twoTables(String namespace) {
        spark.sql("CREATE NAMESPACE " + LAKE + "." + namespace);
        spark.sql("CREATE TABLE " + LAKE + "." + namespace + ".orders (id BIGINT, day DATE) USING iceberg "
                + "PARTITIONED BY (day)");
        spark.sql("CREATE TABLE " + LAKE + "." + namespace + ".payments (id BIGINT, amount DOUBLE) USING iceberg");
        spark.sql("INSERT INTO " + LAKE + "." + namespace + ".orders VALUES (1, DATE '2025-01-01'), "
                + "(2, DATE '2025-01-02')");
        spark.sql("INSERT INTO " + LAKE + "." + namespace + ".payments VALUES (1, 9.5)");
    }

    /** Changes both tables and adds a third, through the other catalog. */
    private static void laterChanges(String namespace) {
        spark.sql("INSERT INTO " + LIVE + "." + namespace + ".orders VALUES (3, DATE '2025-01-03')");
        spark.sql("INSERT INTO " + LIVE + "." + namespace + ".payments VALUES (2, 1.0), (3, 2.0)");
        spark.sql("CREATE TABLE " + LIVE + "." + namespace + ".returns (id BIGINT) USING iceberg");
    }

    private static long pinNow(String catalog) {
        List<List<Object>> answer = rows(spark, "CALL " + catalog + ".system.pin_vid()");
        assertThat(answer).hasSize(1);
        return (Long) answer.get(0).get(0);
    }

    @Test
    void aSessionPinnedInSqlReadsEveryTableAtOneVid() {
        twoTables("pinned");
        long vid = pinNow(LAKE);
        assertThat(vid).isPositive();

        laterChanges("pinned");

        // The other catalog sees the changes; the pinned one sees neither table's nor the new table.
        assertThat(count(LIVE + ".pinned.orders")).isEqualTo(3L);
        assertThat(count(LIVE + ".pinned.payments")).isEqualTo(3L);
        assertThat(count(LAKE + ".pinned.orders")).isEqualTo(2L);
        assertThat(count(LAKE + ".pinned.payments")).isEqualTo(1L);
        assertThat(column(spark, "SHOW TABLES IN " + LAKE + ".pinned", 1))
                .containsExactlyInAnyOrder("orders", "payments");
        assertThat(scalar(spark, "SELECT sum(amount) FROM " + LAKE + ".pinned.payments"))
                .isEqualTo(9.5);

        // A pinned catalog is a past version: writes are refused, and nothing changes.
        assertThatThrownBy(() -> spark.sql("INSERT INTO " + LAKE + ".pinned.orders VALUES (9, DATE '2025-01-09')"))
                .hasStackTraceContaining("is read-only");
        assertThat(count(LIVE + ".pinned.orders")).isEqualTo(3L);

        // Pinning a given vid; then back to the live catalog.
        assertThat(rows(spark, "CALL " + LAKE + ".system.pin_vid(vid => " + vid + ")"))
                .containsExactly(List.of(vid));
        assertThat(count(LAKE + ".pinned.payments")).isEqualTo(1L);
        long newest =
                (Long) rows(spark, "CALL " + LAKE + ".system.unpin()").get(0).get(0);
        assertThat(newest).isGreaterThan(vid);
        assertThat(count(LAKE + ".pinned.orders")).isEqualTo(3L);
        assertThat(column(spark, "SHOW TABLES IN " + LAKE + ".pinned", 1))
                .containsExactlyInAnyOrder("orders", "payments", "returns");
        spark.sql("INSERT INTO " + LAKE + ".pinned.orders VALUES (4, DATE '2025-01-04')");
        assertThat(count(LIVE + ".pinned.orders")).isEqualTo(4L);
    }

    @Test
    void aVidASnapshotOrATimeInTheConfigurationPinsTheCatalog() throws Exception {
        twoTables("configured");
        long vid = pinNow(LAKE);
        spark.sql("CALL " + LAKE + ".system.unpin()");
        snapshot("before later changes");
        Thread.sleep(20);
        Instant between = Instant.now();
        Thread.sleep(20);
        laterChanges("configured");

        configure("at_vid", "vid", Long.toString(vid));
        configure("at_snapshot", "snapshot", "before later changes");
        configure("at_time", "timestamp", between.toString());
        for (String catalog : List.of("at_vid", "at_snapshot", "at_time")) {
            assertThat(count(catalog + ".configured.orders")).as(catalog).isEqualTo(2L);
            assertThat(count(catalog + ".configured.payments")).as(catalog).isEqualTo(1L);
            assertThat(column(spark, "SHOW TABLES IN " + catalog + ".configured", 1))
                    .as(catalog)
                    .doesNotContain("returns");
        }
        // vid=now: the newest vid when the catalog is first used, then that one.
        configure("at_now", "vid", "now");
        assertThat(count("at_now.configured.payments")).isEqualTo(3L);
        spark.sql("INSERT INTO " + LIVE + ".configured.payments VALUES (4, 4.0)");
        assertThat(count("at_now.configured.payments")).isEqualTo(3L);
        assertThat(count(LAKE + ".configured.payments")).isEqualTo(4L);
    }

    @Test
    void badVersionsAndSettingsGetClearErrors() {
        configure("bad_vid", "vid", "yesterday");
        assertThatThrownBy(() -> spark.sql("SHOW NAMESPACES IN bad_vid"))
                .hasStackTraceContaining(
                        "Invalid spark.sql.catalog.bad_vid.vid 'yesterday': expected a vid (a non-negative integer) or 'now'");
        configure("future_vid", "vid", "999999999");
        assertThatThrownBy(() -> spark.sql("SHOW NAMESPACES IN future_vid"))
                .hasStackTraceContaining("Version 999999999 is not committed");
        configure("no_snapshot", "snapshot", "never made");
        assertThatThrownBy(() -> spark.sql("SHOW NAMESPACES IN no_snapshot"))
                .hasStackTraceContaining("No snapshot named never made");
        configure("hive_type", "type", "hive");
        assertThatThrownBy(() -> spark.sql("SHOW NAMESPACES IN hive_type"))
                .hasStackTraceContaining("TreeCatCatalog talks to TreeCat over Iceberg REST; remove type=hive");
        // A pin the server refuses leaves the catalog as it was (live, writable).
        assertThatThrownBy(() -> spark.sql("CALL " + LAKE + ".system.pin_vid(vid => 999999999)"))
                .hasStackTraceContaining("Version 999999999 is not committed");
        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + LAKE + ".still_live");
        assertThat(column(spark, "SHOW NAMESPACES IN " + LIVE, 0)).contains("still_live");
    }

    @Test
    void icebergsExtensionsAndProceduresWorkThroughTheCatalog() {
        spark.sql("CREATE NAMESPACE " + LAKE + ".iceberg");
        String table = LAKE + ".iceberg.events";
        spark.sql("CREATE TABLE " + table + " (id BIGINT, kind STRING) USING iceberg");
        spark.sql("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')");
        long first = (Long) scalar(spark, "SELECT snapshot_id FROM " + table + ".snapshots");

        // Iceberg's SQL extensions: a tag, a branch written on its own, a write order.
        spark.sql("ALTER TABLE " + table + " CREATE TAG v1");
        spark.sql("ALTER TABLE " + table + " CREATE BRANCH audit");
        spark.sql("INSERT INTO " + table + ".branch_audit VALUES (3, 'c')");
        spark.sql("ALTER TABLE " + table + " WRITE ORDERED BY id");
        spark.sql("INSERT INTO " + table + " VALUES (4, 'd')");
        assertThat(count(table)).isEqualTo(3L);
        assertThat(count(table + " VERSION AS OF 'audit'")).isEqualTo(3L);
        assertThat(count(table + " VERSION AS OF 'v1'")).isEqualTo(2L);
        assertThat(column(spark, "SELECT name FROM " + table + ".refs ORDER BY name", 0))
                .containsExactly("audit", "main", "v1");

        // An Iceberg procedure beside TreeCat's own.
        spark.sql("CALL " + LAKE + ".system.rollback_to_snapshot('iceberg.events', " + first + ")");
        assertThat(count(table)).isEqualTo(2L);
        assertThat(count(LIVE + ".iceberg.events")).isEqualTo(2L);
    }

    @Test
    void theSystemTablesListEveryTableFileAndCommitOfTheCatalog() {
        spark.sql("CREATE NAMESPACE " + LAKE + ".sys");
        spark.sql("CREATE NAMESPACE " + LAKE + ".sys.nested");
        spark.sql("CREATE TABLE " + LAKE + ".sys.events (id BIGINT, day DATE) USING iceberg PARTITIONED BY (day)");
        spark.sql("CREATE TABLE " + LAKE + ".sys.nested.deep (id BIGINT) USING iceberg");
        spark.sql("INSERT INTO " + LAKE + ".sys.events VALUES (1, DATE '2025-01-01'), (2, DATE '2025-01-02'), "
                + "(3, DATE '2025-01-02')");
        spark.sql("INSERT INTO " + LAKE + ".sys.nested.deep VALUES (7)");

        // Tables at every namespace depth, with their objects' fields.
        assertThat(rows(
                        spark,
                        "SELECT path, type FROM " + LAKE + ".system.tables WHERE path LIKE '/warehouse/sys/%' "
                                + "ORDER BY path"))
                .containsExactly(
                        List.of("/warehouse/sys/events", "inner"), List.of("/warehouse/sys/nested/deep", "inner"));
        assertThat(scalar(
                        spark,
                        "SELECT value.metadata_location LIKE '%.metadata.json' FROM " + LAKE
                                + ".system.tables WHERE path = '/warehouse/sys/events'"))
                .isEqualTo(true);

        // Every live data file of every table, from the file index: the rows Spark wrote, per file.
        assertThat(rows(
                        spark,
                        "SELECT split(path, '/')[3], sum(value.record_count) FROM " + LAKE + ".system.files "
                                + "WHERE path LIKE '/warehouse/sys/%' GROUP BY 1 ORDER BY 1"))
                .containsExactly(List.of("events", 3L), List.of("nested", 1L));
        assertThat(scalar(
                        spark,
                        "SELECT count(*) FROM " + LAKE + ".system.files WHERE path LIKE '/warehouse/sys/events/%'"))
                .isEqualTo(scalar(spark, "SELECT count(*) FROM " + LAKE + ".sys.events.files"));

        // The catalog's commit log, oldest first: the creates and appends above among them.
        List<List<Object>> commits = rows(
                spark, "SELECT vid, interface, operation FROM " + LAKE + ".system.commits ORDER BY vid DESC LIMIT 4");
        assertThat(commits)
                .hasSize(4)
                .allSatisfy(commit -> assertThat(commit.get(1)).isEqualTo("rest"));
        assertThat(commits.get(0).get(2)).isEqualTo("commitTable");
    }

    /** Registers (or re-registers, before its first use) a TreeCatCatalog with one more option. */
    private static void configure(String catalog, String option, String value) {
        spark.conf().set("spark.sql.catalog." + catalog, TreeCatCatalog.class.getName());
        spark.conf().set("spark.sql.catalog." + catalog + ".uri", server.restUri());
        spark.conf().set("spark.sql.catalog." + catalog + ".cache-enabled", "false");
        spark.conf().set("spark.sql.catalog." + catalog + "." + option, value);
    }

    /** A named snapshot of the whole TreeCat catalog, through the native API. */
    private static void snapshot(String name) throws Exception {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(URI.create(server.restUri() + "/treecat/v1/snapshots"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"" + name + "\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }
}
