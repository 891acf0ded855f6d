package io.treecat.spark;

import static io.treecat.spark.SparkRows.column;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark (local mode) with {@code iceberg-aws-bundle} on a TreeCat catalog whose warehouse is a bucket of moto's
 * server, with <b>vended credentials</b> (issue 17): Spark holds no key and asks for {@code vended-credentials}; TreeCat
 * answers each table's load with STS AssumeRole credentials for the table's location (moto checks every request's
 * key). The catalog's own key is in the TreeCat server process's environment only.
 */
class IcebergRestVendedSparkIT {
    private static final String CATALOG = "vended";
    private static final String NAMESPACE = CATALOG + ".e2e";
    private static final String BUCKET = "lake";

    @TempDir
    static Path directory;

    private static MotoStore store;
    private static TreeCatServerProcess server;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        store = new MotoStore(directory, BUCKET);
        server = store.startVendingServer(directory, "lake", BUCKET);
        // No storage key in Spark's settings: the catalog's URI, its warehouse (the REST prefix) and the delegation
        // header. The credentials, the store's endpoint, region and path style all come in each table's load response.
        String prefix = "spark.sql.catalog." + CATALOG;
        spark = SparkSessions.local("treecat-iceberg-rest-vended", directory)
                .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
                .config(prefix + ".type", "rest")
                .config(prefix + ".uri", server.restUri())
                .config(prefix + ".warehouse", "lake")
                .config(prefix + ".cache-enabled", "false")
                .config(prefix + ".header.X-Iceberg-Access-Delegation", "vended-credentials")
                .getOrCreate();
        spark.sql("CREATE NAMESPACE " + NAMESPACE);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            SparkSessions.stop("IcebergRestVendedSparkIT", spark, server);
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    @AfterEach
    void serverStillServes() {
        assertThat(server.isAlive()).as("TreeCat server process alive").isTrue();
    }

    @Test
    void createAppendOverwriteReadTimeTravelAndDropWithPurge() throws Exception {
        String events = NAMESPACE + ".events";
        String keep = NAMESPACE + ".keep";
        S3SparkScenario.writeOverwriteAndTimeTravel(spark, events, prefix -> store.keys(BUCKET, prefix));
        spark.sql("CREATE TABLE " + keep + " (id BIGINT) USING iceberg");
        spark.sql("INSERT INTO " + keep + " VALUES (10), (20)");

        // Spark SQL's DROP TABLE ... PURGE: Iceberg's SparkCatalog drops the table, then deletes its files itself with
        // the table's vended credentials (still valid after the drop). Every object goes; the neighbour's stay.
        assertThat(store.keys(BUCKET, "warehouse/e2e/events/")).isNotEmpty();
        spark.sql("DROP TABLE " + events + " PURGE");
        assertThat(column(spark, "SHOW TABLES IN " + NAMESPACE, 1)).containsExactly("keep");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> left = store.keys(BUCKET, "warehouse/e2e/events/");
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200);
            left = store.keys(BUCKET, "warehouse/e2e/events/");
        }
        assertThat(left).as("files of the purged table left in the bucket").isEmpty();
        assertThat(store.keys(BUCKET, "warehouse/e2e/keep/")).anyMatch(key -> key.endsWith(".parquet"));
        assertThat(column(spark, "SELECT id FROM " + keep + " ORDER BY id", 0)).containsExactly(10L, 20L);
        // The catalog's own secret key stayed in the server: not in its log (every vend, load and commit above).
        assertThat(server.log()).doesNotContain(store.secretAccessKey());
    }
}
