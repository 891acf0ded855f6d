package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static io.treecat.spark.SparkRows.row;
import static io.treecat.spark.SparkRows.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import py4j.GatewayServer;

/**
 * Real Spark writing several Iceberg tables as one TreeCat transaction ({@link MultiTableWrite}): all tables
 * change or none; a conflicting writer makes it run again or fail as a whole; a failed audit or a driver killed
 * before the commit changes no table.
 */
class MultiTableWriteSparkIT {
    private static final String LAKE = "lake";
    private static final String LIVE = "live";
    /** py4j's Python client, the version Spark 4.0.1's JVM side is. */
    private static final String PY4J = "py4j==0.10.9.9";

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        spark = SparkSessions.local("treecat-multi-table-write", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config("spark.sql.catalog." + LAKE, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + LAKE + ".uri", server.restUri())
                // Another writer: Iceberg's plain SparkCatalog on the same TreeCat catalog.
                .config("spark.sql.catalog." + LIVE, "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog." + LIVE + ".type", "rest")
                .config("spark.sql.catalog." + LIVE + ".uri", server.restUri())
                .config("spark.sql.catalog." + LIVE + ".cache-enabled", "false")
                .getOrCreate();
    }

    @AfterAll
    static void stop() throws Exception {
        SparkSessions.stop("MultiTableWriteSparkIT", spark, server);
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    /** orders (id, status) with 1 and 2, payments (id, amount) with 1 and 2, daily (day, total) with 3 days. */
    private static void tables(String namespace) {
        spark.sql("CREATE NAMESPACE " + LAKE + "." + namespace);
        spark.sql("CREATE TABLE " + LAKE + "." + namespace + ".orders (id BIGINT, status STRING) USING iceberg");
        spark.sql("CREATE TABLE " + LAKE + "." + namespace + ".payments (id BIGINT, amount DOUBLE) USING iceberg");
        spark.sql("CREATE TABLE " + LAKE + "." + namespace + ".daily (day INT, total DOUBLE) USING iceberg "
                + "PARTITIONED BY (day)");
        spark.sql("INSERT INTO " + LAKE + "." + namespace + ".orders VALUES (1, 'new'), (2, 'new')");
        spark.sql("INSERT INTO " + LAKE + "." + namespace + ".payments VALUES (1, 10.0), (2, 20.0)");
        spark.sql("INSERT INTO " + LAKE + "." + namespace + ".daily VALUES (1, 1.0), (2, 2.0), (3, 3.0)");
    }

    private static List<List<Object>> all(String table) {
        return rows(spark, "SELECT * FROM " + LIVE + "." + table + " ORDER BY 1");
    }

    private static List<Object> branches(String table) {
        return column(spark, "SELECT name FROM " + LIVE + "." + table + ".refs ORDER BY name", 0);
    }

    private static long mainSnapshot(String table) throws Exception {
        return Spark3Util.loadIcebergTable(spark, LIVE + "." + table)
                .currentSnapshot()
                .snapshotId();
    }

    @Test
    void everyTableChangesInOneCommit() throws Exception {
        tables("shop");
        Map<String, Long> heads = MultiTableWrite.in(spark, LAKE)
                .append("shop.orders", spark.sql("SELECT 3L AS id, 'new' AS status"))
                .overwrite("shop.daily", spark.sql("SELECT 2 AS day, 22.0 AS total"), "day = 2")
                .delete("shop.payments", "id = 1")
                .commit();

        assertThat(all("shop.orders")).containsExactly(row(1L, "new"), row(2L, "new"), row(3L, "new"));
        assertThat(all("shop.daily")).containsExactly(row(1, 1.0), row(2, 22.0), row(3, 3.0));
        assertThat(all("shop.payments")).containsExactly(row(2L, 20.0));
        // Each table's main is the snapshot its staged write made; no staging branch is left.
        for (String table : List.of("shop.orders", "shop.daily", "shop.payments")) {
            assertThat(mainSnapshot(table)).as(table).isEqualTo(heads.get(table));
            assertThat(branches(table)).as(table).containsExactly("main");
        }
        // The session's own catalog reads the new rows at once (its cached tables were refreshed).
        assertThat(rows(spark, "SELECT count(*) FROM " + LAKE + ".shop.orders")).containsExactly(row(3L));
    }

    @Test
    void aConflictingWriterMakesTheWritesRunAgain() throws Exception {
        tables("retry");
        AtomicInteger audits = new AtomicInteger();
        MultiTableWrite.in(spark, LAKE)
                .append("retry.orders", spark.sql("SELECT 3L AS id, 'ours' AS status"))
                .delete("retry.payments", "id = 2")
                .audit(staged -> {
                    assertThat(staged).containsOnlyKeys("retry.orders", "retry.payments");
                    if (audits.incrementAndGet() == 1) {
                        // Another writer commits to orders between our staging and our commit.
                        spark.sql("INSERT INTO " + LIVE + ".retry.orders VALUES (9, 'theirs')");
                    }
                })
                .commit();

        assertThat(audits).hasValue(2);
        assertThat(all("retry.orders"))
                .containsExactly(row(1L, "new"), row(2L, "new"), row(3L, "ours"), row(9L, "theirs"));
        assertThat(all("retry.payments")).containsExactly(row(1L, 10.0));
        assertThat(branches("retry.orders")).containsExactly("main");
        assertThat(branches("retry.payments")).containsExactly("main");
    }

    @Test
    void aWriteComputedFromATableItReadsRunsAgainWhenThatTableChanges() throws Exception {
        tables("reads");
        AtomicInteger audits = new AtomicInteger();
        // daily gets one row per order count; the orders it was computed from must not change before the commit.
        MultiTableWrite.in(spark, LAKE)
                .reads("reads.orders")
                .overwrite(
                        "reads.daily",
                        spark.sql("SELECT 9 AS day, CAST(count(*) AS DOUBLE) AS total FROM " + LAKE + ".reads.orders"),
                        "day = 9")
                .audit(staged -> {
                    if (audits.incrementAndGet() == 1) {
                        spark.sql("INSERT INTO " + LIVE + ".reads.orders VALUES (7, 'late')");
                    }
                })
                .commit();

        assertThat(audits).hasValue(2);
        // Computed again after the other writer's order: three orders, not two.
        assertThat(rows(spark, "SELECT total FROM " + LIVE + ".reads.daily WHERE day = 9"))
                .containsExactly(row(3.0));
        assertThat(branches("reads.daily")).containsExactly("main");
    }

    @Test
    void aConflictOnTheLastAttemptFailsAsAWhole() throws Exception {
        tables("conflict");
        long payments = mainSnapshot("conflict.payments");
        assertThatThrownBy(() -> MultiTableWrite.in(spark, LAKE)
                        .maxAttempts(1)
                        .append("conflict.orders", spark.sql("SELECT 3L AS id, 'ours' AS status"))
                        .delete("conflict.payments", "id = 2")
                        .audit(staged -> spark.sql("INSERT INTO " + LIVE + ".conflict.orders VALUES (9, 'theirs')"))
                        .commit())
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining(
                        "Multi-table write to conflict.orders, conflict.payments failed after 1 attempt(s)");

        // Only the other writer's row; payments untouched; the staging branches dropped.
        assertThat(all("conflict.orders")).containsExactly(row(1L, "new"), row(2L, "new"), row(9L, "theirs"));
        assertThat(all("conflict.payments")).containsExactly(row(1L, 10.0), row(2L, 20.0));
        assertThat(mainSnapshot("conflict.payments")).isEqualTo(payments);
        assertThat(branches("conflict.orders")).containsExactly("main");
        assertThat(branches("conflict.payments")).containsExactly("main");
    }

    @Test
    void aFailedAuditChangesNoTable() {
        tables("audit");
        assertThatThrownBy(() -> MultiTableWrite.in(spark, LAKE)
                        .append("audit.orders", spark.sql("SELECT -1L AS id, 'bad' AS status"))
                        .delete("audit.payments", "id = 1")
                        .audit(staged -> {
                            // The staged rows are readable on the branch before anything is committed.
                            List<List<Object>> stagedOrders = rows(
                                    spark,
                                    "SELECT id FROM " + LAKE + ".audit.orders.branch_" + staged.get("audit.orders")
                                            + " WHERE id < 0");
                            if (!stagedOrders.isEmpty()) {
                                throw new IllegalStateException("negative ids staged");
                            }
                        })
                        .commit())
                .hasMessage("negative ids staged");
        assertThat(all("audit.orders")).containsExactly(row(1L, "new"), row(2L, "new"));
        assertThat(all("audit.payments")).containsExactly(row(1L, 10.0), row(2L, 20.0));
        assertThat(branches("audit.orders")).containsExactly("main");
    }

    @Test
    void aDriverKilledBeforeTheCommitChangesNoTable() throws Exception {
        tables("killed");
        long orders = mainSnapshot("killed.orders");
        long payments = mainSnapshot("killed.payments");
        Path scratch = Files.createDirectories(directory.resolve("driver"));
        List<String> command = SparkSessions.childJvm(System.getProperty("java.class.path"));
        command.addAll(List.of(MultiTableWriteDriver.class.getName(), server.restUri(), scratch.toString(), "killed"));
        Process driver = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .start();
        try {
            String staged = null;
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(MultiTableWriteDriver.STAGED)) {
                        staged = line;
                        break;
                    }
                }
                assertThat(staged).as("the driver staged its writes").isNotNull();
                // kill -9: the driver gets no chance to commit or clean up.
                driver.destroyForcibly();
                assertThat(driver.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            driver.destroyForcibly();
        }

        assertThat(all("killed.orders")).containsExactly(row(1L, "new"), row(2L, "new"));
        assertThat(all("killed.payments")).containsExactly(row(1L, 10.0), row(2L, 20.0));
        assertThat(mainSnapshot("killed.orders")).isEqualTo(orders);
        assertThat(mainSnapshot("killed.payments")).isEqualTo(payments);
        // What it leaves: its staging branches, which change no reader of main.
        assertThat(branches("killed.orders"))
                .hasSize(2)
                .anySatisfy(name -> assertThat((String) name).startsWith(MultiTableWrite.BRANCH_PREFIX));
    }

    @Test
    void onlyALiveTreeCatCatalogTakesAMultiTableWrite() {
        assertThatThrownBy(() -> MultiTableWrite.in(spark, LIVE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Catalog live is a org.apache.iceberg.spark.SparkCatalog, not a TreeCatCatalog");
        spark.conf().set("spark.sql.catalog.pinned", TreeCatCatalog.class.getName());
        spark.conf().set("spark.sql.catalog.pinned.uri", server.restUri());
        spark.conf().set("spark.sql.catalog.pinned.vid", "now");
        assertThatThrownBy(() -> MultiTableWrite.in(spark, "pinned"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reads a past version");
        assertThatThrownBy(() -> MultiTableWrite.in(spark, LAKE).commit())
                .hasMessage("A multi-table write names at least one write");
        assertThatThrownBy(() -> MultiTableWrite.in(spark, LAKE).delete("orders", "id = 1"))
                .hasMessageContaining("named <namespace>.<table>");
    }

    /**
     * From Python as PySpark reaches the JVM: py4j's client (the version Spark 4.0.1 ships, from PyPI) on a gateway
     * into this driver, handed the SparkSession as PySpark's {@code spark._jsparkSession} is.
     */
    @Test
    void pythonWritesSeveralTablesThroughTheGatewayPySparkUses() throws Exception {
        tables("python");
        long orders = mainSnapshot("python.orders");
        String token = UUID.randomUUID().toString();
        GatewayServer gateway = new GatewayServer.GatewayServerBuilder()
                .entryPoint(new PythonEntryPoint(spark))
                .javaAddress(InetAddress.getLoopbackAddress())
                .javaPort(0)
                .authToken(token)
                .build();
        gateway.start();
        try {
            Path python = PythonVenvs.python("py4j-venv", PY4J, directory);
            String out = PythonVenvs.run(
                    List.of(
                            python.toString(),
                            Path.of("src/test/python/multi_table_write.py")
                                    .toAbsolutePath()
                                    .toString(),
                            Integer.toString(gateway.getListeningPort()),
                            token,
                            "python"),
                    directory,
                    "multi_table_write.py");
            JsonNode answer = new ObjectMapper().readTree(out);

            assertThat(all("python.orders")).containsExactly(row(1L, "new"), row(2L, "new"), row(3L, "python"));
            assertThat(all("python.payments")).containsExactly(row(2L, 20.0));
            assertThat(answer.get("heads").get("python.orders").asLong()).isEqualTo(mainSnapshot("python.orders"));
            assertThat(answer.get("heads").get("python.payments").asLong()).isEqualTo(mainSnapshot("python.payments"));
            assertThat(mainSnapshot("python.orders")).isNotEqualTo(orders);
            // The failed write reached Python as the JVM's exception, and left the orders as they were.
            assertThat(answer.get("failure").asText()).contains("python.missing");
            assertThat(all("python.orders")).doesNotContain(row(4L, "lost"));
        } finally {
            gateway.shutdown();
        }
    }

    /** What the gateway hands Python: the session, as PySpark's {@code spark._jsparkSession}. */
    public static final class PythonEntryPoint {
        private final SparkSession session;

        PythonEntryPoint(SparkSession session) {
            this.session = session;
        }

        public SparkSession spark() {
            return session;
        }
    }
}
